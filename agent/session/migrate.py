"""Moving what earlier versions kept in the project (`.agent/sessions/`, `.agent/audit.jsonl`)
to the state directory, once, on the first run that finds them.

Moved, never deleted: each session file with its `.files` folder goes to the new sessions
folder (one already there is left where it was), the audit log joins the new one's folder (as
`audit-moved-<time>.jsonl` when a new log exists already). Only what the agent itself writes
is moved: regular files named as it names them (sessions, checkpoint blobs, spilled outputs),
in its own folders, every name moved through the descriptors of folders opened without
following a link. A repository can carry planted "sessions" for `--continue` to pick up, and
restoring a planted session's checkpoints writes what it says: so nothing is moved out of a
folder that is another repository (a `.git` inside, or a gitlink — a submodule — in the
index), nor when git tracks any of them (or its index cannot say): the agent never commits
its sessions, so such files came with the repository, trusted or not. Either way the user is
told once.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from pathlib import Path

from agent.config import safefile
from agent.config.statedir import ensure_home, project_state
from agent.git.index import BadIndex, gitlinks, tracked
from agent.session.listing import BLOB_NAME, own_sessions, sessions_dir

OLD = Path(".agent") / "sessions"
OLD_AUDIT = Path(".agent") / "audit.jsonl"
LEFT_MARK = "legacy-left"  # in the project's state folder: the "left there" note was said
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def migrate(root: Path) -> str:
    """Move old in-project state; what to tell the user ("" when there was nothing)."""
    old = root / OLD
    sessions = _own_sessions(root)
    has_audit = _regular(root, OLD_AUDIT)
    if not sessions and not has_audit:
        return ""
    state = project_state(root)
    index = _index(root)
    links = _links(index)
    foreign = _foreign(root, links)
    if foreign:
        return _left_note(state, old, f"{foreign}: they came with the code, not from this agent")
    if not _untracked(index, [*(f"{OLD}/{n}" for n in sessions)]):
        why = (
            "git tracks them (or cannot say): they came with the repository, not from this "
            "agent, which never commits its sessions"
        )
        return _left_note(state, old, why)
    try:
        base = ensure_home()
        new = safefile.open_dir(base, sessions_dir(root), create=True)
    except OSError as e:
        return f"cannot move earlier sessions from {old} to the state directory: {e}"
    try:
        moved = _move_sessions(root, new, sessions, links)
    finally:
        os.close(new)
    if has_audit:
        has_audit = _move_audit(root, base, state)
    _remove_if_empty(root)
    what = [f"{moved} earlier session(s)"] if moved else []
    what += ["the audit log"] if has_audit else []
    if not what:
        return ""
    return f"moved {' and '.join(what)} from {root / '.agent'} to {state} (where they live now)"


def _remove_if_empty(root: Path) -> None:
    """Remove the old sessions folder when the move emptied it (through `.agent`'s own
    descriptor: never a folder a link leads to)."""
    with contextlib.suppress(OSError):
        fd = safefile.open_dir(root, root / OLD.parent)
        try:
            os.rmdir(OLD.name, dir_fd=fd)
        finally:
            os.close(fd)


def _own_sessions(root: Path) -> list[str]:
    """Names of the session files the agent made in the project's old sessions folder (reached
    without following a link, like every state write)."""
    try:
        fd = safefile.open_dir(root, root / OLD)
    except OSError:  # none, or a link: nothing of ours
        return []
    try:
        return sorted(name for _, name in own_sessions(fd))
    finally:
        os.close(fd)


def _regular(root: Path, rel: Path) -> bool:
    """A regular file at `root/rel`, reached without following a link."""
    try:
        fd = safefile.open_dir(root, root / rel.parent)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.stat(rel.name, dir_fd=fd, follow_symlinks=False).st_mode)
    except OSError:
        return False
    finally:
        os.close(fd)


def _index(root: Path) -> bytes | None:
    try:
        return (root / ".git" / "index").read_bytes()
    except OSError:
        return None


def _links(index: bytes | None) -> frozenset[str]:
    """The gitlinks (submodules) git's index records (none when it cannot be read)."""
    if index is not None:
        with contextlib.suppress(BadIndex):
            return frozenset(gitlinks(index)[0])
    return frozenset()


def _foreign(root: Path, links: frozenset[str]) -> str:
    """Why `.agent` or `.agent/sessions` is another repository's folder ("" when it is not):
    a `.git` in it (a submodule's checkout, a nested clone) or a gitlink in the index."""
    for rel in (OLD.parent, OLD):
        if str(rel) in links:
            return f"{rel} is a git submodule"
        if _has_git(root, rel):
            return f"{rel} is another git repository"
    return ""


def _has_git(root: Path, rel: Path) -> bool:
    """Whether `root/rel` holds a `.git` entry of any kind (a folder, a file, a link)."""
    try:
        fd = safefile.open_dir(root, root / rel)
    except OSError:
        return False
    try:
        return _exists(fd, ".git")
    except OSError:
        return False
    finally:
        os.close(fd)


def _untracked(index: bytes | None, names: list[str]) -> bool:
    """Whether git's index shows none of `names` (and no audit log) as tracked; False when it
    cannot tell (no repository: a download could carry them too)."""
    paths = tracked(index) if index is not None else None
    if paths is None:
        return False
    return not set(paths).intersection([*names, str(OLD_AUDIT)])


def _left_note(state: Path, old: Path, why: str) -> str:
    mark = state / LEFT_MARK
    if mark.exists():
        return ""
    with contextlib.suppress(OSError):
        ensure_home()
        state.mkdir(parents=True, exist_ok=True)
        mark.write_text(f"{old}\n", encoding="utf-8")
    return f"earlier sessions in {old} were left there: {why}"


def _move_sessions(root: Path, new: int, names: list[str], links: frozenset[str]) -> int:
    """Move each session file, then its blobs (not a submodule: `links`); how many moved."""
    try:
        old = safefile.open_dir(root, root / OLD)
    except OSError:
        return 0
    moved = 0
    try:
        for name in names:
            if not _move(old, new, name, name):
                continue
            moved += 1
            files = name.removesuffix(".jsonl") + ".files"
            if f"{OLD}/{files}" not in links:
                _move_blobs(old, new, files)
    finally:
        os.close(old)
    return moved


def _move_blobs(old: int, new: int, files: str) -> None:
    """The blobs and spilled outputs of a session's `.files` folder, one by one: a folder that
    is a link, or another repository, is left alone; so is anything not named as they are."""
    try:
        src = os.open(files, _FOLDER, dir_fd=old)
    except OSError:
        return
    try:
        if _exists(src, ".git"):
            return
        with contextlib.suppress(FileExistsError):
            os.mkdir(files, 0o700, dir_fd=new)
        try:
            dst = os.open(files, _FOLDER, dir_fd=new)
        except OSError:
            return
        try:
            for name in sorted(os.listdir(src)):
                if BLOB_NAME.fullmatch(name):
                    _move(src, dst, name, name)
        finally:
            os.close(dst)
    finally:
        os.close(src)
    with contextlib.suppress(OSError):
        os.rmdir(files, dir_fd=old)  # only when emptied


def _move_audit(root: Path, base: Path, state: Path) -> bool:
    try:
        src = safefile.open_dir(root, root / OLD_AUDIT.parent)
    except OSError:
        return False
    try:
        dst = safefile.open_dir(base, state, create=True)
    except OSError:
        os.close(src)
        return False
    try:
        target = OLD_AUDIT.name
        if _exists(dst, target):
            target = f"audit-moved-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
        return _move(src, dst, OLD_AUDIT.name, target)
    finally:
        os.close(src)
        os.close(dst)


def _exists(dir_fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        return True
    except FileNotFoundError:
        return False


def _move(src: int, dst: int, name: str, target: str) -> bool:
    """Move the regular file `name` (never a link) from folder `src` to `dst` as `target`
    (none there yet): a rename, or a copy then removal across file systems. False when it
    was not moved."""
    try:
        if not stat.S_ISREG(os.stat(name, dir_fd=src, follow_symlinks=False).st_mode):
            return False
        if _exists(dst, target):
            return False
    except OSError:
        return False
    try:
        os.rename(name, target, src_dir_fd=src, dst_dir_fd=dst)
        return True
    except OSError:
        pass
    return _copy(src, dst, name, target)


def _copy(src: int, dst: int, name: str, target: str) -> bool:
    try:
        fd = os.open(name, _READ, dir_fd=src)
    except OSError:
        return False
    made = False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        out = os.open(target, _NEW, 0o600, dir_fd=dst)
        made = True
        with os.fdopen(out, "wb") as f:
            while chunk := os.read(fd, 1 << 20):
                f.write(chunk)
        os.unlink(name, dir_fd=src)
        return True
    except OSError:
        if made:
            with contextlib.suppress(OSError):
                os.unlink(target, dir_fd=dst)
        return False
    finally:
        os.close(fd)
