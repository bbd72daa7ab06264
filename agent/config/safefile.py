"""Writing the agent's own state (sessions, audit log, `.agent/.gitignore`, logs, settings it
saves) without following symbolic links.

A repository is someone else's code: a committed `.agent/audit.jsonl` linking to `~/.bashrc`, or
a `.agent/sessions` linking to another folder, would otherwise have the agent append to, create
or delete files far from the project. Every path here is given with the directory it must stay
in (`root`, the project or `~/.agent`): `root` itself may be reached through links (that is the
user's own choice), but each directory below it is opened with O_NOFOLLOW, one at a time through
directory descriptors (no window between a check and the open), and so is the file itself. A
link anywhere below `root` raises SymlinkRefused, an OSError naming the link.

`open_beneath` is the same walk for other writers (the file tools, checkpoint restores): it
hands back the directory's descriptor, for creating, renaming and removing names in it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC
# A directory only named through (Linux O_PATH): no read permission needed on the way, as for
# any path the kernel resolves; the descriptor serves *at calls, not reading.
_O_PATH = getattr(os, "O_PATH", 0)
_NAMING = _O_PATH | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC if _O_PATH else _DIR
# What opening a link with O_NOFOLLOW fails with: ELOOP (Linux, macOS), EMLINK (FreeBSD),
# ENOTDIR (O_DIRECTORY on a link to a file), EEXIST (O_EXCL on any link, dangling too).
_LINK_ERRORS = (errno.ELOOP, errno.EMLINK, errno.ENOTDIR, errno.EEXIST)


class SymlinkRefused(OSError):
    """A state path that is, or lies under, a symbolic link: the agent does not write there."""

    def __init__(self, path: Path, link: Path) -> None:
        what = "is a symbolic link" if path == link else f"lies under a symbolic link ({link})"
        message = f"{path} {what}; the agent does not write its own state through links"
        super().__init__(errno.ELOOP, message)
        self.path, self.link = path, link

    def __str__(self) -> str:
        return str(self.strerror)


def _parts(root: Path, path: Path) -> tuple[str, ...]:
    """The components of `path` below `root` (lexically: `..` never climbs out)."""
    parts = Path(os.path.normpath(path)).relative_to(os.path.normpath(root)).parts
    if not parts or ".." in parts:
        raise ValueError(f"{path} is not inside {root}")
    return parts


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _open_at(dir_fd: int, name: str, flags: int, shown: Path, target: Path, mode: int) -> int:
    try:
        return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)
    except OSError as e:
        if e.errno in _LINK_ERRORS and _is_link(name, dir_fd):
            raise SymlinkRefused(target, shown) from None
        raise


def _walk(root: Path, path: Path, parts: tuple[str, ...], create: bool, flags: int = _DIR) -> int:
    """A descriptor of the directory `root/parts…`, made when `create`, links refused."""
    if create:
        root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root, flags)
    here = root
    try:
        for part in parts:
            here = here / part
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
            nxt = _open_at(fd, part, flags, here, path, 0)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_dir(root: Path, path: Path, create: bool = False) -> int:
    """A descriptor of directory `path` inside `root` (made when `create`); links refused."""
    return _walk(root, path, _parts(root, path), create)


def open_beneath(root: Path, path: Path, create: bool = False) -> int:
    """A descriptor of directory `path` — `root` itself, or below it — reached from `root` one
    component at a time without following a link (SymlinkRefused; NotADirectoryError for a
    file on the way), missing directories made when `create` (each new one opened without
    following a link too). For naming things in it (openat, renameat, unlinkat, fstatat):
    where the kernel has O_PATH it cannot be read, and needs no read permission on the way."""
    same = os.path.normpath(path) == os.path.normpath(root)
    return _walk(root, path, () if same else _parts(root, path), create, _NAMING)


def make_dirs(root: Path, path: Path) -> None:
    """`mkdir -p path` below `root` without passing through a link."""
    os.close(open_dir(root, path, create=True))


def open_fd(root: Path, path: Path, flags: int, mode: int = 0o600) -> int:
    """os.open of the file `path` inside `root` with O_NOFOLLOW; with O_CREAT its missing
    directories are made first."""
    parts = _parts(root, path)
    dir_fd = _walk(root, path, parts[:-1], bool(flags & os.O_CREAT))
    try:
        return _open_at(dir_fd, parts[-1], flags, path, path, mode)
    finally:
        os.close(dir_fd)


def is_linked(root: Path, path: Path) -> bool:
    """Whether `path`, or a directory between `root` and it, is a link (missing parts: no)."""
    here = root
    for part in _parts(root, path):
        here = here / part
        if here.is_symlink():
            return True
        if not here.exists():
            return False
    return False


def write_all(fd: int, data: bytes) -> None:
    """Write all of `data` (os.write may write less); ENOSPC when the disk takes nothing."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[n:]


def append_text(root: Path, path: Path, text: str, mode: int = 0o600) -> None:
    """Append `text` in one write (O_APPEND keeps concurrent lines whole)."""
    fd = open_fd(root, path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode)
    try:
        write_all(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


def open_append(root: Path, path: Path, mode: int = 0o600) -> TextIO:
    """A text file object appending to `path` (for logs written as they come)."""
    fd = open_fd(root, path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode)
    return os.fdopen(fd, "a", encoding="utf-8")


def create_new(root: Path, path: Path, data: bytes, mode: int = 0o644) -> bool:
    """Write `path` only if nothing is there yet; False when it exists (a link: refused)."""
    try:
        fd = open_fd(root, path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        return False
    try:
        write_all(fd, data)
    finally:
        os.close(fd)
    return True


def read_bytes(root: Path, path: Path) -> bytes:
    """The content of `path`, refusing links (what the agent stored, not what a link shows)."""
    fd = open_fd(root, path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as f:
        return f.read()


def write_atomic(root: Path, path: Path, data: bytes, mode: int = 0o644, sync: bool = True) -> None:
    """Replace `path` whole (a fresh temp file, then rename); a link at `path` is refused rather
    than replaced, so the user sees why their linked file was not updated."""
    parts = _parts(root, path)
    dir_fd = _walk(root, path, parts[:-1], True)
    try:
        name = parts[-1]
        if _is_link(name, dir_fd):
            raise SymlinkRefused(path, path)
        tmp = f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        fd = _open_at(dir_fd, tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, path, path, mode)
        with _removed_on_error(tmp, dir_fd):
            try:
                write_all(fd, data)
                if sync:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)  # POSIX: replaces
        if sync:  # the rename itself survives a crash
            with contextlib.suppress(OSError):
                os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


@contextlib.contextmanager
def _removed_on_error(name: str, dir_fd: int) -> Iterator[None]:
    try:
        yield
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=dir_fd)
        raise
