"""A file as it is before a write: its bytes, its text and the format to write it back in
(encoding, BOM, line endings, stray bytes, mode); what must not be rewritten as text refused."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from agent.tools import atomic, textio
from agent.tools.common import ToolError


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
    (agent.tools.atomic), so its text comes from where the write will go."""
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
