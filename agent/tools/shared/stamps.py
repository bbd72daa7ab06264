"""Stale-read protection: what the session's file tools last saw of each file.

read_file, write_file and edit_file note a file's size and mtime when they read or write it;
an edit or overwrite of an existing file is refused when the file was never read in this
session, or changed on disk since (a command, an editor, a formatter). A file modified in the
last two seconds before it was noted also gets a content hash, as git does for "racy" files:
on a filesystem with coarse timestamps a change in the same tick keeps size and mtime.
Subagents share the session's record. Creating a file needs no read.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from agent.base.record import ToolContext, ToolResult
from agent.tools.shared.common import ToolError, shown

RACY = 2.0  # seconds: an mtime this close to the noting may hide a change in the same tick
HASH_LIMIT = 64 << 20  # larger files are judged by size and mtime alone


@dataclass(frozen=True)
class Stamp:
    size: int
    mtime_ns: int
    digest: str = ""  # only for a racily clean file


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _stamp(path: Path) -> Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    racy = time.time() - st.st_mtime < RACY and st.st_size <= HASH_LIMIT
    return Stamp(st.st_size, st.st_mtime_ns, _digest(path) if racy else "")


@dataclass
class FileStamps:
    """The session's record, by real path."""

    seen: dict[str, Stamp] = field(default_factory=dict)

    def saw(self, path: Path, stamp: Stamp | None = None) -> None:
        """The file as it is now (or as `stamp`, taken before a read) was read or written by
        a tool of this session."""
        real = os.path.realpath(path)
        stamp = stamp or _stamp(Path(real))
        if stamp is not None:
            self.seen[real] = stamp

    @staticmethod
    def take(path: Path) -> Stamp | None:
        """The file's stamp now: taken before a read, so a change during it is not missed."""
        return _stamp(Path(os.path.realpath(path)))

    def problem(self, path: Path) -> str:
        """Why an edit of the existing file `path` must wait for a read ("" when it need not)."""
        real = os.path.realpath(path)
        last = self.seen.get(real)
        if last is None:
            return f"{path.name} has not been read in this session; read it before changing it"
        now = _stamp(Path(real))
        if now is None:
            return ""
        same = (now.size, now.mtime_ns) == (last.size, last.mtime_ns)
        if same and last.digest and (now.digest or _digest(Path(real))) != last.digest:
            same = False
        if not same:
            return (
                f"{path.name} changed on disk since this session last read or wrote it "
                "(a command, an editor or another program); read it again before changing it"
            )
        return ""


def stamps_of(ctx: ToolContext) -> FileStamps | None:
    """The session's record (None outside a session: the tools then check nothing)."""
    return ctx.files if isinstance(ctx.files, FileStamps) else None


def fresh(ctx: ToolContext, path: Path) -> None:
    """Refuse to change an existing file this session never read, or that changed since."""
    stamps = stamps_of(ctx)
    if stamps is None or not path.is_file():
        return
    why = stamps.problem(path)
    if why:
        raise ToolError(why, hint=f"read_file {shown(ctx, path)} (any range), then change it")


def stamped(ctx: ToolContext, path: Path, before: Stamp | None, result: ToolResult) -> ToolResult:
    """A read by this session's tools (`before`: the file's stamp taken before it): the file
    may be edited now."""
    stamps = stamps_of(ctx)
    if stamps is not None and not result.is_error:
        stamps.saw(path, before)
    return result


def seen(ctx: ToolContext, path: Path, result: ToolResult) -> ToolResult:
    """A write by this session's tools: the next edit needs no read."""
    stamps = stamps_of(ctx)
    if stamps is not None and not result.is_error:
        stamps.saw(path)
    return result
