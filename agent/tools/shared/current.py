"""A file as it is before a write: its bytes, its text and the format to write it back in
(encoding, BOM, line endings, stray bytes, mode); what must not be rewritten as text refused."""

from __future__ import annotations

import functools
import os
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent.base.record import Execute, ToolContext, ToolResult
from agent.tools.shared import atomic, textio
from agent.tools.shared.common import ToolError
from agent.tools.shared.editor_io import BUFFER_MAX, editor_of

PREVIEW_BYTES = 2 << 20  # files larger than this get no diff in the permission prompt
DIFF_CAP_MODEL = 4000  # diff characters sent to the model; the terminal gets more
DIFF_CAP_DISPLAY = 60_000


@dataclass
class Current:
    """A file as it is on disk before a write."""

    path: Path  # the real path (symlinks resolved) that will be replaced
    exists: bool
    raw: bytes = b""
    text: str = ""
    fmt: textio.TextFormat = field(default_factory=textio.TextFormat)
    mode: int | None = None
    stray: int = 0  # undecodable bytes of UTF-8 text, kept as surrogate escapes

    @property
    def errors(self) -> str:
        return "surrogateescape" if self.stray else "strict"


def load_disk(path: Path) -> Current:
    """The file at `path` as it is (its real path, links resolved): refused when that is not a
    path the permission gate judged for the running call, and read without following a link
    (agent.tools.shared.atomic), so its text comes from where the write will go."""
    real = Path(os.path.realpath(path))
    atomic.start(real)
    if real.is_dir():
        raise ToolError(f"{path} is a directory", can_retry=False)
    if not real.exists():
        return Current(real, exists=False)
    st = real.stat()
    if not stat.S_ISREG(st.st_mode):
        raise ToolError(f"{path} is not a regular file", can_retry=False)
    # A rename would replace it regardless of its mode; and a file no one may write is meant
    # to stay as it is, even for root.
    if not os.access(real, os.W_OK) or not st.st_mode & 0o222:
        raise ToolError(
            f"{path.name} is read-only (mode {stat.S_IMODE(st.st_mode):o})",
            can_retry=False,
            hint="if it is meant to change, make it writable with bash (chmod u+w) first",
        )
    raw = atomic.read_back(real)
    if textio.looks_binary(raw[: textio.SNIFF_BYTES]):
        raise ToolError(
            f"{path.name} is a binary file; refusing to rewrite it as text",
            can_retry=False,
            hint="change binary files with bash",
        )
    text, fmt, bad = textio.decode(raw)
    stray = 0
    if bad and fmt.encoding == "utf-8" and not fmt.fallback:
        # UTF-8 with a few stray bytes (a Latin-1 é in a comment): keep them as surrogate
        # escapes, written back byte-for-byte; only the edited region changes.
        text = textio.decode_escaped(raw, fmt)
        stray = sum(1 for ch in text if "\udc80" <= ch <= "\udcff")
    if textio.encode(text, fmt, "surrogateescape" if stray else "strict") != raw:
        # Bytes that do not survive decode+encode would be silently corrupted by a rewrite.
        raise ToolError(
            f"{path.name} is not cleanly decodable as {fmt.describe()}; a rewrite would corrupt it",
            can_retry=False,
            hint="fix or convert the file with bash (e.g. iconv) first",
        )
    return Current(real, True, raw, text, fmt, stat.S_IMODE(st.st_mode), stray)


def encoded(cur: Current, new_text: str) -> bytes:
    """The new text in the file's own encoding, BOM and stray bytes."""
    fmt = cur.fmt if cur.exists else textio.TextFormat()
    try:
        return textio.encode(new_text, fmt, cur.errors)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise ToolError(
            f"the new text has characters that {fmt.encoding} cannot store: {bad!r}",
            hint="use characters the file's encoding supports, or convert the file to UTF-8 "
            "with bash (iconv) first",
        ) from None


def plain(cur: Current) -> bool:
    """UTF-8 without a BOM or stray bytes: what an editor's buffer holds as it is."""
    return cur.fmt.encoding == "utf-8" and not cur.fmt.bom and not cur.stray


def load(path: Path, ctx: ToolContext | None = None) -> Current:
    """The current file, refusing what must not be rewritten as text; in an editor (ACP), its
    buffer's text when that differs from the disk (unsaved changes are edited, not lost)."""
    cur = load_disk(path)
    editor = editor_of(ctx)
    if editor is None or not cur.exists or not plain(cur) or len(cur.raw) > BUFFER_MAX:
        return cur
    text = editor.read(cur.path)
    if text is None or _lf(text) == _lf(cur.text):  # the same text: keep the disk's line ends
        return cur
    if editor.changed(cur.path, text):
        raise ToolError(
            f"{path.name} was changed in the editor since you last read it (unsaved edits)",
            hint="read it again with read_file, then make the change",
        )
    if cur.fmt.newline != "\n" and cur.fmt.newline not in text:
        text = textio.with_newlines(text, cur.fmt.newline)  # editors hold "\n" lines
    return replace(cur, text=text, raw=text.encode("utf-8"))


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def printable(fn: Execute) -> Execute:
    """No lone surrogates in a result (a file's stray bytes in a diff or a near-miss snippet,
    an odd file name): they cannot be encoded as UTF-8 or JSON. They show as U+FFFD."""

    @functools.wraps(fn)
    async def run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        result = await fn(args, ctx)
        display = None if result.display is None else textio.printable(result.display)
        return replace(result, output=textio.printable(result.output), display=display)

    return run
