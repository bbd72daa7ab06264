"""Append-only JSONL session store (SPEC §8): `<state dir>/projects/<slug>/sessions/<id>.jsonl`.

One JSON record per line, written on an O_APPEND descriptor as it happens (all of its bytes,
however many writes that takes), so a crash loses at most the record being written. `load`
repairs a torn last line in place (truncate, or add the missing newline) and skips garbage
lines without losing the complete records around them. A writer holds an exclusive lock on its
file for as long as it is open: two agents never append to one session (the second is told it
is in use). A write that fails (full disk, file size limit) never breaks the session: the torn
start of that record is cut off, recording stops, and `take_warning` says so once.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.base.messages import Message
from agent.config import safefile
from agent.config.safefile import SymlinkRefused
from agent.config.statedir import ensure_home, state_home
from agent.session.listing import (
    Summary,
    in_use,
    list_sessions,
    prune,
    resumable,
    sessions_dir,
    summarize,
)

__all__ = [  # the listing side lives in session_list; these names stay importable from here
    "Summary",
    "in_use",
    "list_sessions",
    "prune",
    "resumable",
    "sessions_dir",
    "summarize",
]


class SessionBusy(Exception):
    """Another agent is writing this session."""


_OUTPUT = re.compile(r"out-(\d{4,})-")


def new_id() -> str:
    """Sortable by creation time, unique across concurrent agents."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:8]


class SessionFile:
    """The writer of one session: append records, flushed to the kernel per record."""

    def __init__(self, root: Path, session_id: str) -> None:
        self.id, self.root = session_id, root
        self.base = state_home()  # writes stay below it, never through a link
        d = sessions_dir(root)
        self.path = d / f"{session_id}.jsonl"
        self.blob_dir = d / f"{session_id}.files"
        self.error = ""  # why recording stopped (a write failed); "" while it works
        self._warned = False
        self._fd = -1
        self._outputs = -1  # the last spilled output's number (-1: not looked up yet)
        try:
            ensure_home()
            flags = os.O_RDWR | os.O_APPEND | os.O_CREAT  # read too: `_heal` looks at the end
            self._fd = safefile.open_fd(self.base, self.path, flags, 0o600)
        except SymlinkRefused as e:  # a repository's link: run, but write nothing through it
            self.error = f"{e}; this session is not saved"
            return
        except OSError as e:  # a read-only or full state directory: run, say it once
            self.error = f"cannot save this session in {d}: {e.strerror or e}"
            return
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.close()
            raise SessionBusy(
                f"session {session_id} is in use by another agent; "
                "finish that one first, or start a new session"
            ) from None
        if os.fstat(self._fd).st_size:
            self._heal()

    def _heal(self) -> None:
        """A file resumed after a crash may end mid-line: start the next record on a new line.
        Read through the open descriptor: the path could have been swapped for a link."""
        size = os.fstat(self._fd).st_size
        if size and os.pread(self._fd, 1, size - 1) != b"\n":
            self._write(b"\n")

    def append(self, record: dict[str, Any]) -> None:
        """Write one record (`"t"` first: `summarize` relies on the compact `{"t":"` prefix).
        After a failed write this does nothing: the session is no longer saved."""
        if not self.error:
            line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
            try:
                data = line.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate (model-sent \udc80): keep it escaped
                data = (json.dumps(record, separators=(",", ":")) + "\n").encode("ascii")
            self._write(data)

    def _write(self, data: bytes) -> None:
        """All of `data`, looping on short writes; on an error, cut off what got written."""
        done = 0
        try:
            while done < len(data):
                n = os.write(self._fd, data[done:])
                if n <= 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                done += n
        except OSError as e:
            if done:  # the torn start of this record must not glue onto a later one
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, os.fstat(self._fd).st_size - done)
            self._fail(e)

    def _fail(self, e: OSError) -> None:
        self.error = (
            f"cannot write the session file {self.path}: {e.strerror or e}; "
            "this session is no longer saved"
        )

    def take_warning(self) -> str:
        """Why recording stopped, the first time it is asked after a failure; else ""."""
        if self.error and not self._warned:
            self._warned = True
            return self.error
        return ""

    def put_blob(self, data: bytes) -> str:
        """Store bytes content-addressed (deduplicated); returns the hash."""
        import hashlib

        digest = hashlib.sha256(data).hexdigest()
        path = self.blob_dir / digest
        if not self.error and not os.path.lexists(path):
            try:  # no fsync: a lost blob only costs a rewind, a sync per file costs every call
                safefile.write_atomic(self.base, path, data, 0o600, sync=False)
            except OSError as e:
                self._fail(e)
        return digest

    def put_output(self, stem: str, text: str) -> Path | None:
        """Keep a long tool output (agent.context.spill) beside the blobs as
        `out-NNNN-<stem>.txt`, numbered on from any a resumed session left; None when it could
        not be written (the model then gets the result cut instead)."""
        if self.error:
            return None
        if self._outputs < 0:
            names = os.listdir(self.blob_dir) if self.blob_dir.is_dir() else []
            found = [int(m.group(1)) for n in names if (m := _OUTPUT.match(n))]
            self._outputs = max(found, default=0)
        self._outputs += 1
        path = self.blob_dir / f"out-{self._outputs:04d}-{stem}.txt"
        data = text.encode("utf-8", "replace")
        try:
            safefile.write_atomic(self.base, path, data, 0o600, sync=False)
        except OSError:
            return None
        return path

    def get_blob(self, digest: str) -> bytes:
        return safefile.read_bytes(self.base, self.blob_dir / digest)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


@dataclass
class Loaded:
    """A session read back: its records in order, and what had to be repaired."""

    id: str
    path: Path
    records: list[dict[str, Any]] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)


def _repair(path: Path, keep: int, newline: bool) -> None:
    """Cut the file to `keep` bytes (and end it with a newline) in place: a rename would leave
    the session's writer, and its lock, on the old file."""
    fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)  # a link is never cut
    with open(fd, "r+b") as f:
        f.truncate(keep)
        if newline:
            f.seek(0, os.SEEK_END)
            f.write(b"\n")
        f.flush()
        os.fsync(f.fileno())


def load(path: Path) -> Loaded:
    """Read every complete record; drop a torn last line (repairing the file) and garbage."""
    data = path.read_bytes()
    out = Loaded(path.stem, path)
    lines = data.split(b"\n")
    torn = lines.pop() if lines else b""  # after the last newline: empty, or a torn record
    good = 0
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
            if not isinstance(rec, dict):
                raise ValueError("not an object")
        except ValueError:
            out.repaired.append(f"line {n}: unreadable record skipped")
            continue
        out.records.append(rec)
        good += 1
    if torn.strip():
        try:
            rec = json.loads(torn)
            out.records.append(rec)  # complete but missing its newline: keep it
            _repair(path, len(data), newline=True)
        except ValueError:
            out.repaired.append(f"line {len(lines) + 1}: torn last record removed")
            _repair(path, len(data) - len(torn), newline=False)
    return out


def messages_of(records: list[dict[str, Any]]) -> list[Message]:
    """The conversation as the loop keeps it, honouring compactions and rewinds. A record of
    the wrong shape (edited by hand, written by another program) is skipped, not a crash; the
    history is repaired into a valid request afterwards (recorder.repair_history)."""
    msgs: list[Message] = []
    for rec in records:
        kind = rec.get("t") if isinstance(rec, dict) else None
        if kind == "message" and _is_message(rec.get("message")):
            msgs.append(rec["message"])
        elif kind in ("compact", "rewind") and isinstance(rec.get("messages"), list):
            msgs = [m for m in rec["messages"] if _is_message(m)]
        elif kind == "truncate" and isinstance(rec.get("keep"), int):
            msgs = msgs[: rec["keep"]]
    return msgs


def _is_message(m: object) -> bool:
    return isinstance(m, dict) and isinstance(m.get("role"), str)
