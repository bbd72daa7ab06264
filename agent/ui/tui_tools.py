"""How the REPL's renderer draws what tools did: one line per finished call with its time, an
edit's diff (once: not again when the permission prompt showed it), a command's first lines of
output (Ctrl-O: all of it), a denial with its whole reason, the todo list each time it changes.
"""

from __future__ import annotations

from typing import Any

from agent.base.events import ToolEnd
from agent.base.visible import visible
from agent.ui.render import result_line, todo_text
from agent.ui.tui_blocks import diff_text, output_preview


class ToolLines:
    """Part of agent.ui.tui.LiveRenderer: the tool calls' lines."""

    running: dict[str, tuple[str, float]]  # the calls under way (LiveRenderer)

    def _print(self, *objs: Any, **kw: Any) -> None: ...
    def line(self, text: str, style: str = "") -> None: ...

    def tool_lines(self) -> None:
        self.last_output: tuple[str, str] | None = None  # the last command's line and output
        self.denied: dict[str, str] = {}  # call id → why the permission layer said no
        self.prompted: list[tuple[str, ...]] = []  # diffs permission prompts showed (hunks)
        self.todo_items: list[dict[str, Any]] | None = None  # changed by a call still running

    def tool_end(self, e: ToolEnd) -> None:
        from rich.text import Text

        rest = (e.display or "").partition("\n")[2]
        why = self.denied.pop(e.id, None)
        if why is not None:  # the reason whole (it may say where the rule is): never cut
            why = visible(why or "not allowed", "")
            line = f"{visible(e.name, '')}: {why if 'denied' in why else 'denied: ' + why}"
        else:
            line = result_line(e.name, e.args, e.output, e.is_error, e.display or "")
        mark = ("✗", "red") if e.is_error else ("✓", "green")
        self._print(
            Text.assemble(("  " + mark[0], mark[1]), f" {line} ", (f"· {e.duration_ms} ms", "dim"))
        )
        if rest and not e.is_error and not self._prompted(rest):
            self._print(diff_text(rest))
        if e.shown:
            self.last_output = (line, e.shown)
            self._print(output_preview(e.shown, e.is_error))
        if self.todo_items is not None:  # changed by this call: drawn under its line
            self.line(todo_text(self.todo_items), "dim")
            self.todo_items = None

    def prompt_showed(self, diff: str) -> None:
        """A permission prompt showed this diff and the call was allowed: not shown again."""
        if diff.strip():
            self.prompted.append(hunks(diff))

    def _prompted(self, diff: str) -> bool:
        key = hunks(diff)
        if key in self.prompted:
            self.prompted.remove(key)
            return True
        return False

    def todo(self, items: list[dict[str, Any]]) -> None:
        """The list changed: drawn under the line of the call that changed it, else now."""
        if self.running:
            self.todo_items = items
        else:
            self.line(todo_text(items), "dim")

    def expand(self) -> None:
        """The last command's whole output (Ctrl-O), as far as it was kept to be shown."""
        if self.last_output is None:
            self.line("no command output yet", "dim")
            return
        line, shown = self.last_output
        self.line(f"⏺ {line}", "bold")
        self.line(shown)


def hunks(diff: str) -> tuple[str, ...]:
    """A diff's hunks, without the header lines (which may name the file differently)."""
    return tuple(ln for ln in diff.strip().splitlines() if not ln.startswith(("---", "+++")))
