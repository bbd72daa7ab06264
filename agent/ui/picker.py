"""An arrow-key picker: one line per row, ↑/↓ (or k/j) to move, Enter to choose, Esc to cancel.

Used for `agent -r`, /resume, /rewind (and what to rewind) and /model. A digit moves to that row
(so `2` then Enter picks the second, as the numbered list did); PgUp/PgDn, Home/End jump. Rows
are cut to the terminal's width, never wrapped: a row is one line of the user's own words.
Ctrl-C raises KeyboardInterrupt (the caller decides: an interrupt at start-up exits 130);
Ctrl-D and Esc are "no choice" (None).
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from agent.base.visible import visible

if TYPE_CHECKING:  # annotations only
    from prompt_toolkit.formatted_text import StyleAndTextTuples

HEIGHT = 10  # rows shown at once; the list scrolls
HINT = "↑↓ move · Enter choose · Esc cancel"


def one_line(text: str, width: int) -> str:
    """`text` on one line (a line break as one space), cut to `width` with an ellipsis."""
    flat = " ".join(visible(text, "").splitlines())
    return flat if len(flat) <= width else flat[: max(width - 1, 0)] + "…"


class _State:
    def __init__(self, rows: Sequence[str], default: int, height: int) -> None:
        self.rows, self.height = list(rows), min(height, len(rows))
        self.at = min(max(default, 0), len(rows) - 1)
        self.top = max(0, self.at - self.height + 1)

    def move(self, to: int) -> None:
        self.at = min(max(to, 0), len(self.rows) - 1)
        if self.at < self.top:
            self.top = self.at
        elif self.at >= self.top + self.height:
            self.top = self.at - self.height + 1

    def lines(self, title: str, width: int) -> StyleAndTextTuples:
        out: StyleAndTextTuples = [("bold", one_line(title, width) + "\n")]
        end = self.top + self.height
        for n in range(self.top, min(end, len(self.rows))):
            mark, style = ("❯ ", "reverse") if n == self.at else ("  ", "")
            out.append((style, one_line(f"{mark}{n + 1:>2}. {self.rows[n]}", width)))
            out.append(("", "\n"))
        more = len(self.rows) - self.height
        where = f" · {self.at + 1}/{len(self.rows)}" if more > 0 else ""
        out.append(("class:dim", one_line(HINT + where, width)))
        return out


def _keys(state: _State) -> Any:
    from prompt_toolkit.key_binding import KeyBindings

    kb = KeyBindings()
    moves = {
        "up": lambda: state.at - 1,
        "k": lambda: state.at - 1,
        "down": lambda: state.at + 1,
        "j": lambda: state.at + 1,
        "pageup": lambda: state.at - state.height,
        "pagedown": lambda: state.at + state.height,
        "home": lambda: 0,
        "end": lambda: len(state.rows) - 1,
    }
    for key, to in moves.items():
        kb.add(key)(lambda e, to=to: state.move(to()))
    for d in "123456789":
        kb.add(d)(lambda e, d=d: state.move(int(d) - 1))
    kb.add("enter")(lambda e: e.app.exit(result=state.at))
    kb.add("escape", eager=True)(lambda e: e.app.exit(result=None))
    kb.add("q")(lambda e: e.app.exit(result=None))
    kb.add("c-d")(lambda e: e.app.exit(result=None))
    kb.add("c-c")(lambda e: e.app.exit(exception=KeyboardInterrupt()))
    kb.add("<any>")(lambda e: None)  # nothing else types anywhere
    return kb


async def pick(title: str, rows: Sequence[str], default: int = 0) -> int | None:
    """The index of the row chosen, or None (Esc, q, Ctrl-D; no rows). The picker is erased
    when done; the caller says what was chosen."""
    if not rows:
        return None
    from prompt_toolkit.application import Application
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl
    from prompt_toolkit.styles import Style

    state = _State(rows, default, HEIGHT)
    width = shutil.get_terminal_size((80, 24)).columns - 1  # the last column wraps
    control = FormattedTextControl(lambda: state.lines(title, width), show_cursor=False)
    app: Application[int | None] = Application(
        layout=Layout(Window(control, dont_extend_height=True)),
        key_bindings=_keys(state),
        style=Style.from_dict({"dim": "#8a8a8a"}),
        full_screen=False,
        erase_when_done=True,
    )
    return await app.run_async()


def pick_now(title: str, rows: Sequence[str], default: int = 0) -> int | None:
    """`pick` outside any event loop (start-up: `agent -r`)."""
    return asyncio.run(pick(title, rows, default))


def for_terminal() -> Callable[[str, list[str]], int | None] | None:
    """`pick_now` where the terminal is both ends; else None (the caller lists and numbers)."""
    return pick_now if sys.stdin.isatty() and sys.stdout.isatty() else None
