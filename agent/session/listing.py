"""Listing the JSONL sessions of a project cheaply: the picker's summaries, and pruning.

Pruning looks at file times only; a summary reads its file but parses only the few kinds of
record it needs (meta, checkpoint, rewind, usage), recognised by their written prefix.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.config import safefile
from agent.config.statedir import project_state, state_home
from agent.session.records import is_int


def sessions_dir(root: Path) -> Path:
    """Where the sessions of the project at `root` are kept (agent.config.statedir)."""
    return project_state(root) / "sessions"


@dataclass
class Summary:
    id: str
    path: Path
    mtime: float
    turns: int
    first_prompt: str
    cost: float | None  # None: some request's price was unknown
    cwd: str
    started: bool = True  # a prompt was ever sent (an agent opened and closed unused is not)


# What the picker needs. Other kinds (messages above all) are skipped unparsed when the line
# starts the way SessionFile.append writes it: `{"t":"KIND"`; a raw newline or an unescaped
# quote never occurs inside a record, so such a prefix is always a record's own kind.
_SUMMARY_KINDS = {b"meta", b"checkpoint", b"rewind", b"usage"}
_PREFIX = b'{"t":"'
_COST = b'"cost":'


def _summary_records(data: bytes) -> Iterator[dict[str, Any]]:
    """The records `summarize` needs, line by line without copying the skipped lines."""
    start, size, k = 0, len(data), len(_PREFIX)
    while start < size:
        end = data.find(b"\n", start)
        end = size if end < 0 else end
        i, start = start, end + 1
        if data.startswith(_PREFIX, i):
            kind = data[i + k : data.find(b'"', i + k, end)]
            if kind not in _SUMMARY_KINDS:
                continue
            if kind == b"usage":  # the most frequent: its cost is the last field
                c = data.rfind(_COST, i, end)
                with contextlib.suppress(ValueError):
                    if c > 0 and data[end - 1] == ord("}"):
                        yield {"t": "usage", "cost": float(data[c + len(_COST) : end - 1])}
                        continue
        try:
            rec = json.loads(data[i:end])
        except ValueError:  # garbage, a torn line, invalid UTF-8, an empty line
            continue
        if isinstance(rec, dict):
            yield rec


def summarize(path: Path) -> Summary | None:
    """Date, turns, first prompt and cost for the picker (None for an unreadable file)."""
    try:
        data = path.read_bytes()
        mtime = path.stat().st_mtime
    except OSError:
        return None
    live: list[int] = []  # the checkpoints (user turns) still in the conversation
    first, cost, cwd, started = "", 0.0, "", False
    priced = True  # every usage record had a known price
    for rec in _summary_records(data):
        kind = rec.get("t")
        if kind == "meta":  # fields of another type (a file edited by hand) are ignored
            cwd = _text(rec.get("cwd"))
        elif kind == "checkpoint" and is_int(rec.get("n")):
            live.append(rec["n"])
            started = True
            first = first or _text(rec.get("prompt"))
        elif kind == "rewind" and rec.get("reason") != "repair":
            at = rec.get("checkpoint")  # /rewind to #n drops n and later; /clear drops all
            live = [n for n in live if isinstance(at, int) and n < at]
        elif kind == "usage":
            value = rec.get("cost", 0.0)
            priced = priced and isinstance(value, (int, float))
            cost += float(value) if isinstance(value, (int, float)) else 0.0
    total = cost if priced else None
    return Summary(path.stem, path, mtime, len(live), first, total, cwd, started)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def list_sessions(root: Path, cwd: Path | None = None) -> list[Summary]:
    """Sessions of this project, newest first; only those started in `cwd` when given.
    Never through a link: a linked file or folder holds someone else's files, not sessions."""
    d = sessions_dir(root)
    if not d.is_dir() or safefile.is_linked(state_home(), d):
        return []
    found = [s for p in d.glob("*.jsonl") if not p.is_symlink() and (s := summarize(p)) is not None]
    if cwd is not None:
        found = [s for s in found if s.cwd == str(cwd)]
    return sorted(found, key=lambda s: s.mtime, reverse=True)


def resumable(root: Path, cwd: Path) -> list[Summary]:
    """This directory's sessions worth offering to continue (a prompt was sent), newest first."""
    return [s for s in list_sessions(root, cwd) if s.started]


def in_use(root: Path, session_id: str) -> bool:
    """True while another agent holds this session open for writing."""
    return _held(str(sessions_dir(root) / f"{session_id}.jsonl"))


def _held(name: str, dir_fd: int | None = None) -> bool:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing releases the probe's lock
    return False


# What the agent itself names in its sessions folder (session.new_id, SessionFile.put_blob and
# safefile.write_atomic's temp files): pruning touches nothing else.
SESSION_NAME = re.compile(r"\d{8}-\d{6}-[0-9a-f]{8}\.jsonl")
_TEMP = r"(?:\.tmp\d+|\.\d+\.[0-9a-f]+\.tmp)?"
# checkpoint blobs, and long tool outputs (agent.context.spill): `out-0007-bash.txt`
_BLOB = re.compile(rf"\.?(?:[0-9a-f]{{64}}|out-\d{{4,}}-[a-z0-9_]{{1,40}}\.txt){_TEMP}")
BLOB_NAME = _BLOB  # what a session's `.files` folder holds (migrate moves only these)


def prune(root: Path, keep: int = 100, max_age_days: float = 30.0, protect: str = "") -> list[str]:
    """Delete sessions beyond the newest `keep` or older than `max_age_days`; returns the ids
    removed. Only the files' times are looked at: start-up never reads old sessions.

    Only what the agent made is deleted: files named like its sessions, regular files in the
    real sessions folder (a link there, or to it, is someone else's folder), and in their
    `.files` only the blobs and spilled outputs; a folder holding anything else stays."""
    try:
        d = safefile.open_dir(state_home(), sessions_dir(root))
    except OSError:  # none yet, or a link: nothing of ours to prune
        return []
    try:
        found = own_sessions(d)
        now, removed = time.time(), []
        for n, (mtime, name) in enumerate(found):
            sid = name.removesuffix(".jsonl")
            if sid == protect or (n < keep and now - mtime < max_age_days * 86400):
                continue
            if _held(name, d):  # another agent is still writing it
                continue
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=d)
                removed.append(sid)
                _remove_blobs(d, f"{sid}.files")
        return removed
    finally:
        os.close(d)


def own_sessions(dir_fd: int) -> list[tuple[float, str]]:
    """(mtime, name) of the session files the agent made, newest first."""
    found: list[tuple[float, str]] = []
    with os.scandir(dir_fd) as it:
        for e in it:
            if SESSION_NAME.fullmatch(e.name) and e.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    found.append((e.stat(follow_symlinks=False).st_mtime, e.name))
    return sorted(found, reverse=True)


def _remove_blobs(dir_fd: int, name: str) -> None:
    """Delete the blobs in `name` (a real folder, not a link), then the folder if now empty."""
    try:
        fd = os.open(
            name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd
        )
    except OSError:
        return
    try:
        with os.scandir(fd) as it:
            blobs = [
                e.name for e in it if _BLOB.fullmatch(e.name) and e.is_file(follow_symlinks=False)
            ]
        for blob in blobs:
            with contextlib.suppress(OSError):
                os.unlink(blob, dir_fd=fd)
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):  # not empty: something there is not ours
        os.rmdir(name, dir_fd=dir_fd)


def prune_notice(removed: list[str], keep: int, max_age_days: float) -> str:
    """What pruning removed, for the user: the count, the rule, and the ids."""
    n = len(removed)
    ids = ", ".join(sorted(removed)[:10]) + (f" and {n - 10} more" if n > 10 else "")
    return (
        f"removed {n} old session{'s' if n != 1 else ''} from .agent/sessions "
        f"(sessions.keep {keep}, sessions.maxAgeDays {max_age_days:g}): {ids}"
    )
