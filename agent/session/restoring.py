"""Putting files back from checkpoints (/rewind): what to restore, then restoring it.

A session file is data from disk: one planted in a repository, or edited by hand, can say
anything — `../../x`, an absolute path elsewhere, a path through a link, a mode of 6777, a
blob name that climbs out of the blob folder, fields of the wrong type. So a restore writes
only below the project root, reached from it one component at a time without following a link
(agent.tools.shared.atomic: a temp file renamed through the folder's descriptor), sets only a file's
permission bits (mode & 0o777: never setuid, setgid or sticky), and takes content only from
blobs named as the store names them. The files it compares are read the same way, so a record
naming a FIFO or a device never blocks it. What it will not restore is listed with why.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.config import safefile
from agent.permissions.later import runs_later_in
from agent.permissions.paths import Workspace, protected, within
from agent.session.records import Snap, snap_of, written_of
from agent.session.store import SessionFile
from agent.tools.shared import atomic

PERMS = 0o777  # what a restore may set of a mode: the permission bits, nothing else
OTHER = "other"  # the state of what is not a regular file (a folder, a link): never a hash
_BLOB = re.compile(r"[0-9a-f]{64}")  # SessionFile.put_blob's names
_NOFOLLOW = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass
class FilePlan:
    path: str
    restore_to: str | None  # blob hash of the content before the checkpoint; None = absent
    conflict: bool  # changed outside the agent since the agent last wrote it
    mode: int | None = None  # permission bits before the checkpoint, when recorded
    missing: bool = False  # absent now (deleted): restoring brings it back
    refused: str = ""  # why it is never restored (outside the project, a forged record)


def refusal(path: str, blob: str | None, root: str) -> str:
    """Why the record's file must not be restored ("" when it may): only normalized absolute
    paths strictly below `root` (a real path), and content from the store's own blobs."""
    if "\0" in path or not os.path.isabs(path) or os.path.normpath(path) != path:
        return "not a plain absolute path"
    if path == root or not within(path, (root,)):
        return "outside the project"
    try:
        real = os.path.realpath(path)  # reads links only, never a file
    except OSError:  # a link swapped while it was resolved
        return "its path is changing"
    if real == root or not within(real, (root,)):
        return "outside the project"  # through a link
    if blob is not None and not _BLOB.fullmatch(blob):
        return "its snapshot is not a blob of this session"
    why = runs_later_in(real, (root,)) or protected(real, Workspace.make(Path(root)))
    if why:  # git hooks, settings, .env: what a forged record would plant
        return f"{why}: restore it by hand if you mean to"
    return ""


def plan_restore(
    records: list[dict[str, Any]], n: int, root: Path | str | None = None
) -> list[FilePlan]:
    """For each file this session changed at or after checkpoint n: what to restore (files
    already as they were, content and mode, need nothing). Files outside `root` (the project;
    None: checked when restoring) are listed as refused and never read."""
    first_before: dict[str, Snap] = {}
    last_written: dict[str, str | None] = {}
    for rec in records:
        kind = rec.get("t")
        if kind == "snapshot" and (s := snap_of(rec)) is not None:
            if s.n >= n and s.path not in first_before:
                first_before[s.path] = s
        elif kind == "written" and (w := written_of(rec)) is not None:
            last_written[w[0]] = w[1]
    real = os.path.realpath(root) if root is not None else os.sep
    plans = []
    for path, snap in first_before.items():
        why = refusal(path, snap.blob, real)
        if not why:
            try:
                now, now_mode = state(Path(real), Path(path))
            except OSError as e:  # unreadable: "absent" would have /rewind delete it
                why = f"cannot be read: {e.strerror or e}"
        if why:
            plans.append(FilePlan(path, snap.blob, False, refused=why))
            continue
        mode = snap.mode
        same_mode = mode is None or (now_mode is not None and now_mode & PERMS == mode & PERMS)
        if now == snap.blob and (snap.blob is None or same_mode):
            continue
        conflict = now != last_written.get(path)  # OTHER (a folder there, a link) is never
        plans.append(FilePlan(path, snap.blob, conflict, mode, missing=now is None))
    return plans


def state(root: Path, path: Path) -> tuple[str | None, int | None]:
    """(hash of the content, mode) of the regular file `path` below `root`, reached without
    following a link; (None, None) when nothing is there; (OTHER, None) for anything else (a
    folder, a link, a FIFO, a link or a file on the way)."""
    try:
        dir_fd = safefile.open_beneath(root, path.parent)
    except FileNotFoundError:
        return None, None
    except (safefile.SymlinkRefused, NotADirectoryError):
        return OTHER, None
    try:
        try:
            st = os.stat(path.name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None, None
        if not stat.S_ISREG(st.st_mode):
            return OTHER, None
        try:
            fd = os.open(path.name, _NOFOLLOW, dir_fd=dir_fd)
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.EMLINK, errno.ENOENT):  # swapped just now
                return OTHER, None
            raise
    finally:
        os.close(dir_fd)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            return OTHER, None
        return hashlib.sha256(f.read()).hexdigest(), stat.S_IMODE(st.st_mode)


def restore(
    store: SessionFile, plans: list[FilePlan], force: bool = False, root: Path | None = None
) -> list[str]:
    """Put files back (content, and permission bits) below `root` (default: the session's
    project); skips conflicts unless forced, refused plans, and files that cannot be written.
    Returns the paths restored."""
    real = Path(os.path.realpath(root if root is not None else store.root))
    done = []
    for plan in plans:
        if plan.refused or (plan.conflict and not force):
            continue
        if refusal(plan.path, plan.restore_to, str(real)):  # a plan made without the root
            continue
        path = Path(plan.path)
        try:
            if plan.restore_to is None:
                atomic.remove_beneath(real, path)
            else:
                data = store.get_blob(plan.restore_to)
                mode = None if plan.mode is None else plan.mode & PERMS
                atomic.write_beneath(real, path, data, mode)
            now, _ = state(real, path)
        except (OSError, ValueError):
            continue  # the caller reports it as not restored
        store.append({"t": "written", "path": plan.path, "hash": now})
        done.append(plan.path)
    return done
