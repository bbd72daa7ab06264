"""Replacing a file's content so that a crash leaves the old text or the new, never a torn file."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def atomic_write(path: Path, data: bytes, mode: int | None) -> None:
    """Write via a temp file in the same directory and os.replace, keeping `mode`.

    A crash mid-write leaves either the old file or the new one, never a torn file. A file
    with other hard links is rewritten in place instead: replacing it would cut the links, and
    the other names would keep the old text. So is a writable file in a directory where no
    temp file can be created.
    """
    try:
        linked = path.stat().st_nlink > 1 and path.is_file()
    except OSError:
        linked = False
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        # 0o666 lets the umask decide a new file's mode, like an ordinary open() would.
        fd = -1 if linked else os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except PermissionError:  # a writable file in a directory we may not add names to
        if not path.is_file():
            raise
        fd = -1
    if fd < 0:
        with open(path, "r+b") as handle:
            handle.write(data)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
        return  # written in place: the file keeps its mode
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
