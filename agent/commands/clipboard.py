"""/copy: an answer of the model to the clipboard — through wl-copy, xclip, xsel or pbcopy where
one is installed (and a display is there for it), else, and always over ssh (where those would
fill the remote machine's clipboard), with an OSC 52 escape that asks the terminal to set it.
The escape is written to the controlling terminal itself: the console commands print to takes
escapes out of what it prints (agent.base.visible), as it must."""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
from collections.abc import Mapping
from subprocess import DEVNULL, PIPE

from agent.base.messages import Message, text_of
from agent.base.words import plural
from agent.commands.registry import Ctx, command

TTY = "/dev/tty"  # the controlling terminal (a test points it elsewhere)
TIMEOUT = 5.0  # seconds a clipboard program may take to read the text
OSC52_LIMIT = 100_000  # bytes of escape some terminals take at most
# (program, its arguments to set the clipboard from stdin, the variable its display needs)
PROGRAMS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("wl-copy", (), "WAYLAND_DISPLAY"),
    ("xclip", ("-selection", "clipboard"), "DISPLAY"),
    ("xsel", ("--clipboard", "--input"), "DISPLAY"),
    ("pbcopy", (), ""),  # macOS: no display to name
)


class ClipboardError(Exception):
    """Neither a clipboard program nor a terminal took the text; the message says why."""


def over_ssh(env: Mapping[str, str]) -> bool:
    return bool(env.get("SSH_TTY") or env.get("SSH_CONNECTION"))


def program(env: Mapping[str, str]) -> list[str] | None:
    """The first clipboard program on PATH whose display is there, with its arguments."""
    for name, args, display in PROGRAMS:
        if display and not env.get(display):
            continue
        found = shutil.which(name, path=env.get("PATH"))
        if found:
            return [found, *args]
    return None


def osc52(text: str) -> bytes:
    """The escape that asks a terminal to put `text` on the clipboard."""
    return b"\x1b]52;c;" + base64.b64encode(text.encode("utf-8")) + b"\x07"


def write_tty(data: bytes) -> None:
    """Write `data` to the controlling terminal, all of it; OSError when there is none."""
    fd = os.open(TTY, os.O_WRONLY | os.O_NOCTTY)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


async def _run(argv: list[str], text: str) -> bool:
    """Give `text` to a clipboard program. Its output goes nowhere: xclip and wl-copy stay in
    the background holding the clipboard, and a pipe of theirs would never close."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=PIPE, stdout=DEVNULL, stderr=DEVNULL
        )
    except OSError:
        return False
    try:
        await asyncio.wait_for(proc.communicate(text.encode("utf-8")), TIMEOUT)
    except (asyncio.TimeoutError, OSError):
        proc.kill()
        await proc.wait()
        return False
    return proc.returncode == 0


async def copy_text(text: str, env: Mapping[str, str] | None = None) -> str:
    """Put `text` on the clipboard; returns how it went there."""
    env = os.environ if env is None else env
    argv = None if over_ssh(env) else program(env)
    if argv is not None and await _run(argv, text):
        return f"with {os.path.basename(argv[0])}"
    data = osc52(text)
    try:
        write_tty(data)
    except OSError as e:
        raise ClipboardError(
            "no clipboard program (wl-copy, xclip, xsel, pbcopy) and no terminal to send "
            f"the OSC 52 escape to ({e.strerror or e})"
        ) from None
    how = "with an OSC 52 escape to your terminal (it must allow clipboard writes"
    how += "; in tmux: set -g set-clipboard on" if env.get("TMUX") else ""
    how += f"; some take at most {OSC52_LIMIT // 1000} kB)" if len(data) > OSC52_LIMIT else ")"
    return how


def answers(messages: list[Message]) -> list[str]:
    """The model's answers, oldest first: its replies that end a turn (no tool calls)."""
    out = []
    for m in messages:
        if m.get("role") == "assistant" and not m.get("tool_calls"):
            text = text_of(m)
            if text.strip():
                out.append(text)
    return out


@command("copy", usage="[N]")
async def copy_cmd(ctx: Ctx, args: str) -> None:
    """Copy the model's last answer (or the Nth latest) to the clipboard (OSC 52 over ssh)."""
    arg = args.strip() or "1"
    if not arg.isdigit() or int(arg) < 1:
        ctx.say("usage: /copy [N] — N: the Nth latest answer (1: the last)", "yellow")
        return
    n, found = int(arg), answers(ctx.agent.messages)
    if not found:
        ctx.say("no answer to copy yet")
        return
    if n > len(found):
        ctx.say(f"only {plural(len(found), 'answer')} so far", "yellow")
        return
    text = found[-n]
    try:
        how = await copy_text(text)
    except ClipboardError as e:
        ctx.say(f"not copied: {e}", "yellow")
        return
    which = "the last answer" if n == 1 else f"answer {n} from the end"
    ctx.say(f"copied {which} ({plural(len(text), 'character')}) {how}")
