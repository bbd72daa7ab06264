"""What a session hangs on a ToolContext for its tools, as the tools see it: the editor's
buffers and terminals (ACP), the plan review, the todo list, the stale-read record, the OS
sandbox, and what runs in the background (/loop, subagents). Each is a small Protocol; the
package that owns the real object (editor, workflows, tools.tasks, tools.shared, sandbox,
subagents) implements it, and its accessor narrows to its own class where it needs more.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from agent.config.modes import PermissionMode

# What the user made of a plan: approved into one of two modes, or sent back to keep planning
PlanOutcome = Literal["default", "acceptEdits", "keep"]


@dataclass(frozen=True)
class TerminalRun:
    """A command run in an editor's terminal: its exit code (None: timed out and killed), its
    output (stdout and stderr together, as a terminal shows them), whether the editor cut it."""

    code: int | None
    output: str
    truncated: bool
    seconds: float


class EditorIO(Protocol):
    """The editor side; `read` and `write` are called from worker threads (never the loop's)."""

    def read(self, path: Path) -> str | None:
        """The editor's text of `path` (unsaved changes included); None: use the disk."""
        ...

    def write(self, path: Path, text: str) -> bool:
        """Write `text` through the editor (it updates its buffer and saves); False: not done,
        write the disk."""
        ...

    def remember(self, path: Path, text: str) -> None:
        """read_file showed the model this text of `path`."""
        ...

    def changed(self, path: Path, text: str) -> bool:
        """Whether the buffer's `text` differs from what read_file last showed (the user typed
        since): an edit must not overwrite what the model never saw."""
        ...

    async def run(self, argv: list[str], cwd: str, timeout: float) -> TerminalRun | None:
        """Run `argv` in an editor terminal; None when the editor has no terminals."""
        ...


class PlanReview(Protocol):
    """Approving a plan, leaving plan mode (agent.workflows.planning.Review)."""

    @property
    def mode(self) -> PermissionMode: ...
    @property
    def can_ask(self) -> bool: ...
    async def review(self, plan: str) -> tuple[PlanOutcome, str]:
        """("default" | "acceptEdits" | "keep", the user's feedback)."""
        ...


class TodoStore(Protocol):
    """The session's todo list (agent.tools.tasks.todo_list.TodoList)."""

    def __len__(self) -> int: ...
    def clear(self) -> None: ...
    def load(self, items: list[dict[str, Any]]) -> None: ...
    def render(self) -> str: ...


class FileRecord(Protocol):
    """What the file tools last saw of each file (agent.tools.shared.stamps.FileStamps)."""

    def saw(self, path: Path) -> None: ...
    def problem(self, path: Path) -> str:
        """Why `path` must be read again before it is changed ("" when it need not)."""
        ...


class CommandBox(Protocol):
    """The OS sandbox commands run in (agent.sandbox.runtime.Sandbox)."""

    mode: str

    @property
    def active(self) -> bool: ...
    @property
    def runs_unasked(self) -> bool: ...
    def wrap(self, argv: list[str], cwd: Path | str) -> list[str]: ...


class CodeIntel(Protocol):
    """The session's language servers (agent.lsp.session.CodeServers)."""

    async def ask(self, method: str, path: Path, line: int, col: int) -> tuple[str, Any] | None: ...
    def status(self) -> list[dict[str, Any]]: ...
    async def aclose(self) -> None: ...


class Background(Protocol):
    """Work a session runs in the background (a /loop, the subagent runner): closed with it."""

    async def aclose(self) -> None: ...


class ToolShelf(Protocol):
    """The conversation's deferred tools (agent.base.shelf.Shelf), as tool_search sees them."""

    deferred: dict[str, str]  # name -> its group (the server)
    loaded: list[str]

    def load(self, names: list[str]) -> list[str]: ...
    def described(self) -> list[tuple[str, str, dict[str, Any]]]: ...
