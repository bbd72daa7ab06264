"""The permission prompt inside the REPL (SPEC §5): one keypress, No by default.

It shows the tool, the resolved path or the full command, the coloured diff of a write or an
edit, and the rules "remember" would add — as agent.permissions.showing renders them: a value
that cannot be shown as it is (escape sequences, bidi controls…) says so first; then `y` once ·
`s` this session · `d`/`a` remember (directory / command prefix) · `n` or Enter no, with an
optional reason for the model. Esc or Ctrl-C says no and stops the turn.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from agent.base.visible import visible
from agent.permissions import showing
from agent.permissions.request import Answer, AskRequest
from agent.ui.tui import diff_text

LABELS = {
    "y": "yes, once",
    "s": "yes, this session",
    "d": "yes, remember this directory",
    "a": "yes, remember this command prefix",
    "n": "no",
}
KEYS = {
    "y": "[y] once",
    "s": "[s] this session",
    "d": "[d] remember dir",
    "a": "[a] remember prefix",
    "n": "[N]o",
}


class AskHost(Protocol):
    """What the prompt needs from the REPL: the console, and the terminal to itself."""

    console: Any

    def asking(self) -> AbstractAsyncContextManager[None]: ...
    def cancel_turn(self) -> None: ...
    def keep_typed(self, text: str) -> None: ...
    def last_key(self) -> float: ...
    def prompt_showed(self, diff: str) -> None: ...


def show_request(console: Any, req: AskRequest) -> str:
    """The request as agent.permissions.showing renders it: a warning first when the value
    cannot be shown as it is, then the value whole (or marked where cut), never summarised."""
    from rich.text import Text

    shown = showing.shown(req)
    console.print(Text(f"── permission: {visible(req.tool, '')} ──", style="bold yellow"))
    if shown.warning:
        console.print(Text(shown.warning, style="bold red"), soft_wrap=True)
    console.print(Text.assemble((f"{shown.label}: ", "bold"), shown.value), soft_wrap=True)
    if shown.args:
        console.print(Text.assemble(("arguments: ", "bold"), shown.args), soft_wrap=True)
    if shown.reason:
        console.print(Text(f"why: {shown.reason}", style="dim"), soft_wrap=True)
    if shown.body:
        console.print(Text(shown.body), soft_wrap=True)
    if shown.diff:
        console.print(diff_text(shown.diff))
    if shown.remember and {"d", "a"} & set(req.choices):
        console.print(Text(f"remember adds: {', '.join(shown.remember)}", style="dim"))
    if shown.reminder:  # the warning may have scrolled away with the top of the value
        console.print(Text(shown.reminder, style="bold red"))
    return shown.diff or ""


QUIET = 0.4  # an answer key counts after this long without other keys
ALONE = 0.2  # ... and when no other key follows it this soon (it was not a typed word)


def _bindings(
    choices: tuple[str, ...], answer: Callable[[Any, str], None], typing: Callable[[str], None]
) -> Any:
    """A key of `choices` (either case) or Enter (= n) answers; Esc and Ctrl-C cancel; any other
    key is typing."""
    from prompt_toolkit.key_binding import KeyBindings

    kb = KeyBindings()
    for c in choices:
        for key in {c, c.upper()}:
            kb.add(key)(lambda e, c=c: answer(e, c))
    kb.add("enter")(lambda e: answer(e, "n"))
    kb.add("c-c")(lambda e: e.app.exit(result="cancel"))
    kb.add("escape", eager=True)(lambda e: e.app.exit(result="cancel"))
    kb.add("<any>")(lambda e: typing(e.data))
    return kb


class _Deliberate:
    """Tells a deliberate key (an answer) from typing (kept for the next message)."""

    def __init__(self, keep: Any, last_key: float, loop: asyncio.AbstractEventLoop) -> None:
        self.keep, self.last, self.loop = keep, last_key, loop
        self.pending: asyncio.TimerHandle | None = None  # an answer, unless typing follows
        self.data = ""  # the key of that answer
        self.kept = False  # typing went to the next message: the prompt says so

    def typing(self, data: str) -> None:
        """A key that does not answer: it, and an answer it showed to be typing, are kept."""
        if self.pending is not None:
            self.pending.cancel()
            data, self.pending = self.data + data, None
        self.last = time.monotonic()
        if self.keep is not None and data:
            self.keep(data)
            self.kept = True

    def answer(self, e: Any, c: str) -> None:
        quiet = time.monotonic() - self.last >= QUIET and self.pending is None
        if not quiet:
            self.typing(e.data)
            return
        self.last, self.data = time.monotonic(), e.data
        self.pending = self.loop.call_later(ALONE, lambda: e.app.exit(result=c))


async def one_key(
    choices: tuple[str, ...],
    keep: Any = None,
    last_key: float = 0.0,
    keys: dict[str, str] | None = None,
) -> str:
    """Wait for one of `choices` (Enter = n); "cancel" on Esc or Ctrl-C.

    Only a deliberate key answers: one pressed after a pause in typing (`last_key`: when the
    last key was typed before the prompt, time.monotonic()), not within a word. Keys typed
    while a message is being typed ahead ("yes I think…") go to `keep`, the REPL's
    typed-ahead text, instead of answering the question."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    wait = _Deliberate(keep, last_key, asyncio.get_running_loop())
    kb = _bindings(choices, wait.answer, wait.typing)
    shown = " · ".join((keys or {}).get(c) or KEYS[c] for c in choices)

    def text() -> Any:
        kept = ("class:dim", " (typing kept for your next message; pause, then answer)")
        return [
            ("bold", "Allow? "),
            ("", shown),
            kept if wait.kept else ("", ""),
            ("", " "),
        ]

    app: Application[str] = Application(
        layout=Layout(Window(FormattedTextControl(text), height=1, dont_extend_height=True)),
        key_bindings=kb,
        full_screen=False,
    )
    return await app.run_async()


async def ask_reason() -> str:
    from prompt_toolkit import PromptSession

    try:
        return (
            await PromptSession[str]().prompt_async("reason for the model (Enter to skip): ")
        ).strip()
    except (KeyboardInterrupt, EOFError):
        return ""


class TerminalAsker:
    """An `Asker` for the gate that works while prompt_toolkit owns the terminal."""

    def __init__(self, host: AskHost) -> None:
        self.host = host

    async def __call__(self, req: AskRequest) -> Answer:
        async with self.host.asking():
            diff = show_request(self.host.console, req)
            labels = dict(req.labels)
            key = await one_key(req.choices, self.host.keep_typed, self.host.last_key(), labels)
            if key == "cancel":
                self.host.console.print("→ no (interrupted)", style="red", markup=False)
                self.host.cancel_turn()
                raise asyncio.CancelledError  # now, not at the turn's next pause
            reason = await ask_reason() if key == "n" and req.for_model else ""
            style = "red" if key == "n" else "green"
            if key != "n" and diff:
                self.host.prompt_showed(diff)  # the result's diff is not drawn again
            said = req.key(key, LABELS.get(key, key))
            self.host.console.print(f"→ {said}", style=style, markup=False)
            return Answer(key, reason)
