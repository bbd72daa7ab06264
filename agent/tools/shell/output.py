"""Command output made to fit a tool result honestly, for bash (shell.py) and bash_output
(shell_bg.py): the head and tail of each stream within a character budget, a marker where bytes
were left out, and notes saying how much was produced, shown and not shown, how the bytes were
decoded, and how many were not valid UTF-8.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agent.base.record import RESULT_CAP, ToolResult, cap
from agent.config.envfiles import process_env
from agent.config.providers import model_key_names
from agent.tools.shared.textio import decode_output, printable

if TYPE_CHECKING:
    from agent.base.parts import TerminalRun
    from agent.sandbox.runtime import Sandbox

MARKER_ROOM = 48  # characters of one "[... N bytes not shown ...]" marker, with newlines
MORE = "redirect the output to a file and read it with read_file or grep"
NOTE_ROOM = 400  # characters of one stream's notes (sizes, encoding, invalid bytes, advice)


@dataclass(frozen=True)
class Excerpt:
    """What is shown of one stream's bytes, and the counts its notes give."""

    text: str
    encoding: str | None  # the stated fallback when the bytes were not UTF-8
    total: int  # bytes produced (in the range read)
    shown: int  # bytes whose text is shown
    invalid: int = 0  # shown bytes that are not valid UTF-8 (shown as U+FFFD)

    @property
    def omitted(self) -> int:
        return max(self.total - self.shown, 0)

    def encoding_notes(self, name: str) -> list[str]:
        if self.encoding:
            return [f"[{name} was not valid UTF-8; decoded as {self.encoding}]"]
        if self.invalid:
            s = "" if self.invalid == 1 else "s"
            return [f"[{name}: {self.invalid} byte{s} not valid UTF-8, shown as \ufffd]"]
        return []

    def size_note(self, name: str, what: str, advice: str) -> str | None:
        """`[stdout: N bytes, S shown, D not shown ...; advice]` when anything was left out."""
        if not self.omitted:
            return None
        return (
            f"[{name}: {self.total} {what}, {self.shown} shown, {self.omitted} not shown "
            f"(only the start and the end fit); {advice}]"
        )


def share(budget: int, out_size: int, err_size: int) -> tuple[int, int]:
    """Character rooms for stdout and stderr: stderr gets what it needs up to a third of
    `budget` (more when stdout needs less), stdout the rest."""
    budget = max(budget, 0)
    if out_size + err_size <= budget:
        return budget - err_size, err_size
    err_room = min(err_size, max(budget // 3, budget - out_size))
    return budget - err_room, err_room


def partial_char(data: bytes) -> int:
    """How many bytes at the end of `data` begin a UTF-8 character that is not complete."""
    for k in range(1, min(3, len(data)) + 1):
        byte = data[-k]
        if byte >> 6 == 2:
            continue  # a continuation byte: look further back for the lead byte
        if byte >= 0xC0:
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return k if need > k else 0
        return 0
    return 0


def _continuations(data: bytes) -> int:
    """Leading UTF-8 continuation bytes (at most 3): the rest of a character cut off before."""
    skip = 0
    while skip < min(3, len(data)) and data[skip] >> 6 == 2:
        skip += 1
    return skip


SHOWN_ROOM = 20_000  # characters of a stream kept for the terminal to show (Ctrl-O: all of it)


class Stream(Protocol):
    def excerpt(self, room: int) -> Excerpt: ...


def shown_output(out: Stream, err: Stream, failed: bool) -> str:
    """What the terminal shows under a command's line: its output, and its stderr when it
    failed (the start and end of each when long)."""
    parts = [out.excerpt(SHOWN_ROOM).text.rstrip("\n")]
    if failed:
        parts.append("[stderr]\n" + err.excerpt(SHOWN_ROOM).text.rstrip("\n"))
    return "\n".join(p for p in parts if p.strip() and p != "[stderr]\n")


def excerpt(head: bytes, tail: bytes, total: int, room: int) -> Excerpt:
    """Text of `total` bytes of which `head` (the first) and `tail` (the last) were kept, within
    `room` characters: the start and the end, and a marker counting the bytes left out.

    The tail is empty or follows the head directly when len(head) + len(tail) == total."""
    _, encoding = decode_output(head + tail)
    codec = encoding or "utf-8"
    contiguous = len(head) + len(tail) >= total
    if contiguous:
        head, tail = head + tail, b""
    elif encoding is None:  # do not show the halves of a character cut where bytes were lost
        head = head[: len(head) - partial_char(head)]
        tail = tail[_continuations(tail) :]
    head_text = head.decode(codec, errors="surrogateescape")
    tail_text = tail.decode(codec, errors="surrogateescape")
    room = max(room, 0)
    if contiguous and len(head_text) <= room:
        first, last = head_text, ""
    else:
        if contiguous:
            tail_text = head_text
        tail_room = min(len(tail_text), room - min(len(head_text), (room * 2) // 3))
        first = _start(head_text, room - tail_room)
        last = _end(tail_text, tail_room)
    shown = len(first.encode(codec, errors="surrogateescape"))
    shown += len(last.encode(codec, errors="surrogateescape"))
    invalid = 0 if encoding else sum(1 for ch in first + last if "\udc80" <= ch <= "\udcff")
    text = printable(first)
    if shown < total:
        text += f"\n[... {total - shown} bytes not shown ...]\n" + printable(last)
    return Excerpt(text, encoding, total, shown, invalid)


def _start(text: str, room: int) -> str:
    """The first `room` characters, ending after a line break when one is near the cut."""
    if len(text) <= room:
        return text
    piece = text[: max(room, 0)]
    cut = piece.rfind("\n")
    return piece[: cut + 1] if cut >= len(piece) * 3 // 4 else piece


def _end(text: str, room: int) -> str:
    """The last `room` characters, starting after a line break when one is near the cut."""
    if room <= 0:
        return ""
    if len(text) <= room:
        return text
    piece = text[len(text) - room :]
    cut = piece.find("\n")
    return piece[cut + 1 :] if 0 <= cut < len(piece) // 4 else piece


def child_env() -> dict[str, str]:
    """The environment for commands: ours without the model API keys (a prompt injection must
    not print them), with Python forced to write UTF-8."""
    hidden = model_key_names()
    env = process_env()
    return {**{k: v for k, v in env.items() if k not in hidden}, "PYTHONIOENCODING": "utf-8"}


def headline(command: str) -> str:
    """A command's first line, short enough for a one-line summary."""
    first = command.strip().splitlines()[0] if command.strip() else ""
    return first if len(first) <= 60 else first[:59] + "…"


TIMED_OUT = (
    "[timed out after {:g} s — exit 124; the process group was killed. Do not retry blindly: "
    "use a longer timeout (max 600), run_in_background, or a faster command]"
)


def terminal_result(
    command: str, ran: TerminalRun, timeout: float, box: Sandbox | None, room: int = RESULT_CAP
) -> ToolResult:
    """A command an editor's terminal ran, as the tool's result (within `room`: more when the
    loop saves long results to the session folder)."""
    if ran.code is None:
        status, closing = f"timed out after {timeout:g} s · exit 124", TIMED_OUT.format(timeout)
    else:
        status = f"exit {ran.code}"
        closing = f"[exit code {ran.code} · {ran.seconds:.1f} s]"
    body = ran.output.rstrip("\n") or "(no output)"
    if ran.truncated:
        body = "[the terminal kept only the end of the output]\n" + body
    text = cap(f"{body}\n{closing}", room, how_to_see_more=MORE)
    failed = ran.code != 0
    note = box.blocked_note(text, failed) if box is not None else ""
    display = f"bash {headline(command)} · {status}"
    return ToolResult(f"{text}\n{note}" if note else text, is_error=failed, display=display)
