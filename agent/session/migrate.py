"""Moving what earlier versions kept in the project (`.agent/sessions/`, `.agent/audit.jsonl`)
to the state directory, once, on the first run that finds them.

Moved, never deleted: each session file with its `.files` folder goes to the new sessions
folder (one already there is left where it was), the audit log joins the new one's folder (as
`audit-moved-<time>.jsonl` when a new log exists already). Only what the agent names its files
is moved, never through a link. A repository can carry planted "sessions" for `--continue` to
pick up: in a project the user has not trusted, files git tracks (or when the index cannot say)
stay where they are, and the user is told once how to move them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import time
from pathlib import Path

from agent.config import safefile
from agent.config.statedir import ensure_home, project_state
from agent.git.index import tracked
from agent.session.listing import own_sessions, sessions_dir

OLD = Path(".agent") / "sessions"
OLD_AUDIT = Path(".agent") / "audit.jsonl"
LEFT_MARK = "legacy-left"  # in the project's state folder: the "left there" note was said


def migrate(root: Path, trusted: bool) -> str:
    """Move old in-project state; what to tell the user ("" when there was nothing)."""
    old, audit = root / OLD, root / OLD_AUDIT
    sessions = _own_sessions(root)
    has_audit = _regular(audit)
    if not sessions and not has_audit:
        return ""
    state = project_state(root)
    if not trusted and not _untracked(root, [*(f".agent/sessions/{n}" for n in sessions)]):
        return _left_note(state, old)
    try:
        ensure_home()
        new = sessions_dir(root)
        new.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return f"cannot move earlier sessions from {old} to the state directory: {e}"
    moved = sum(_move_session(old, new, name) for name in sessions)
    if has_audit:
        target = state / "audit.jsonl"
        if target.exists():
            target = state / f"audit-moved-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
        has_audit = _move(audit, target)
    with contextlib.suppress(OSError):
        old.rmdir()  # only when we emptied it
    what = [f"{moved} earlier session(s)"] if moved else []
    what += ["the audit log"] if has_audit else []
    if not what:
        return ""
    return f"moved {' and '.join(what)} from {root / '.agent'} to {state} (where they live now)"


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


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode) and not os.path.islink(path.parent)
    except OSError:
        return False


def _untracked(root: Path, names: list[str]) -> bool:
    """Whether git's index shows none of `names` (and no audit log) as tracked; False when it
    cannot tell (no repository: a download could carry them too)."""
    try:
        data = (root / ".git" / "index").read_bytes()
    except OSError:
        return False
    paths = tracked(data)
    if paths is None:
        return False
    listed = set(paths)
    return not listed.intersection([*names, str(OLD_AUDIT)])


def _left_note(state: Path, old: Path) -> str:
    mark = state / LEFT_MARK
    if mark.exists():
        return ""
    with contextlib.suppress(OSError):
        ensure_home()
        state.mkdir(parents=True, exist_ok=True)
        mark.write_text(f"{old}\n", encoding="utf-8")
    return (
        f"earlier sessions in {old} were left there: this project is not trusted, and they may "
        "have come with it. Trust it (agent --trust-project) to move them to the state directory"
    )


def _move_session(old: Path, new: Path, name: str) -> bool:
    if (new / name).exists():
        return False
    if not _move(old / name, new / name):
        return False
    files = name.removesuffix(".jsonl") + ".files"
    src = old / files
    if src.is_dir() and not src.is_symlink() and not (new / files).exists():
        _move(src, new / files)
    return True


def _move(src: Path, dst: Path) -> bool:
    """rename, or copy then remove across file systems; False when it could not be moved."""
    try:
        os.rename(src, dst)
        return True
    except OSError:
        pass
    try:
        if src.is_dir():
            shutil.copytree(src, dst, symlinks=True)
            shutil.rmtree(src)
        else:
            shutil.copy2(src, dst, follow_symlinks=False)
            src.unlink()
        return True
    except OSError:
        return False
