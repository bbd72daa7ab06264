"""Replacing a file's content so that a crash leaves the old text or the new, never a torn file,
on the path that was judged and nowhere else.

A tool decides a file's real path (links resolved), the permission gate judged the call on its
paths (agent.permissions.judged), and a background command may swap a folder on the way for a
link to `~` in between. So every write here walks to the file's directory one component at a
time from the workspace directory that holds it (from `/` for a file outside the workspace the
user approved), never following a link (agent.config.safefile: missing directories are made on
the way), then creates the temp file and renames it through that directory's descriptor. It is
refused, nothing written, when what is on disk is not what was decided: a real path the gate
did not judge, a link or a file where a directory was, a link or a folder where the file was.
A link the user's project has (`alias.sh` → `run.sh`) is written through: the tool's path is
the target's real path, judged by the gate alongside the link's own.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from agent.config import safefile
from agent.permissions.judged import JUDGED
from agent.permissions.paths import within

_OPEN = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK  # O_NONBLOCK: a FIFO never blocks an open


class Swapped(OSError):
    """What is on disk is not what was decided; nothing was written."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(
            errno.ESTALE,
            f"{path} {why}, not what was checked before this write; nothing was written "
            "(a command may be changing it: look at it again before retrying)",
        )

    def __str__(self) -> str:
        return str(self.strerror)


def start(path: Path) -> Path:
    """Where a walk to the real path `path` starts: the workspace directory holding it, else
    `/`. Swapped when the gate judged the running call on other paths (a link changed since)."""
    judged = JUDGED.get()
    if judged is None:  # no gate around this call (a direct run): nothing to compare with
        return Path("/")
    if str(path) not in judged.paths:
        raise Swapped(path, "is where a link on the way leads now")
    return Path(max((d for d in judged.dirs if within(path, (d,))), key=len, default="/"))


def atomic_write(path: Path, data: bytes, mode: int | None) -> None:
    """Replace the file at the real path `path` (keeping `mode`, or the file's own mode when
    None) as judged for the running call; see the module docstring."""
    write_beneath(start(path), path, data, mode)


def read_back(path: Path) -> bytes:
    """What the file at `path` now holds, reached the same way as the write (for verifying)."""
    return read_beneath(start(path), path)


def remove(path: Path) -> None:
    """Remove the directory entry at `path` (a file, or a link itself) as judged."""
    remove_beneath(start(path), path)


def make_parents(path: Path) -> None:
    """Make the missing folders above `path` (as judged), following no link."""
    os.close(_parent(start(path), path, create=True))


def write_beneath(root: Path, path: Path, data: bytes, mode: int | None) -> None:
    """Replace `path`, which lies in `root`, through a walk from `root` that follows no link.

    A temp file renamed over the old one: a crash leaves either. A file with other hard links
    is rewritten in place instead (replacing it would cut the links, and the other names
    would keep the old text); so is a writable file in a directory where no temp file can be
    created."""
    dir_fd = _parent(root, path, create=True)
    try:
        name = path.name
        st = _lstat(dir_fd, path)
        if mode is None and st is not None:
            mode = stat.S_IMODE(st.st_mode)  # as it was
        if st is not None and st.st_nlink > 1:
            _in_place(dir_fd, path, data)
            return
        tmp = f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            # 0o666 lets the umask decide a new file's mode, like an ordinary open() would.
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _OPEN, 0o666, dir_fd=dir_fd)
        except PermissionError:  # a writable file in a directory we may not add names to
            if st is None:
                raise
            _in_place(dir_fd, path, data)
            return
        try:
            try:
                safefile.write_all(fd, data)
                os.fsync(fd)
                if mode is not None:
                    os.fchmod(fd, mode)
            finally:
                os.close(fd)
            os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)  # replaces, never follows
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)
            raise
    finally:
        os.close(dir_fd)


def read_beneath(root: Path, path: Path) -> bytes:
    """The bytes of the regular file `path` in `root`, reached without following a link."""
    dir_fd = _parent(root, path, create=False)
    try:
        fd = _open_file(dir_fd, path, os.O_RDONLY)
    finally:
        os.close(dir_fd)
    with os.fdopen(fd, "rb") as f:
        return f.read()


def remove_beneath(root: Path, path: Path) -> None:
    """Remove the file or link `path` in `root` (already gone: nothing to do); never a folder,
    never through a link."""
    try:
        dir_fd = _parent(root, path, create=False)
    except FileNotFoundError:
        return
    try:
        st = _lstat(dir_fd, path, links=True)
        if st is not None:
            os.unlink(path.name, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def _parent(root: Path, path: Path, create: bool) -> int:
    try:
        return safefile.open_beneath(root, path.parent, create)
    except safefile.SymlinkRefused as e:
        raise Swapped(path, f"lies under {e.link}, which is a symbolic link") from None
    except NotADirectoryError as e:
        where = e.filename or "a folder on its way"
        raise NotADirectoryError(
            errno.ENOTDIR, f"cannot reach {path}: {where} is not a directory"
        ) from None


def _lstat(dir_fd: int, path: Path, links: bool = False) -> os.stat_result | None:
    """The entry as it is (None: absent); Swapped unless a regular file (or, with `links`,
    a link itself)."""
    try:
        st = os.stat(path.name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISREG(st.st_mode) or (links and stat.S_ISLNK(st.st_mode)):
        return st
    kind = (
        "a symbolic link"
        if stat.S_ISLNK(st.st_mode)
        else "a directory"
        if stat.S_ISDIR(st.st_mode)
        else "not a regular file"
    )
    raise Swapped(path, f"is {kind}")


def _open_file(dir_fd: int, path: Path, flags: int) -> int:
    """The regular file `path.name` in `dir_fd`, opened without following a link."""
    try:
        fd = os.open(path.name, flags | _OPEN, dir_fd=dir_fd)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EMLINK):
            raise Swapped(path, "is a symbolic link") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise Swapped(path, "is not a regular file")
    return fd


def _in_place(dir_fd: int, path: Path, data: bytes) -> None:
    """Rewrite the existing file itself: it keeps its inode, links and mode."""
    fd = _open_file(dir_fd, path, os.O_WRONLY)
    try:
        safefile.write_all(fd, data)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)
