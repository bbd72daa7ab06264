"""Submodule paths (gitlinks), and every tracked path, from a git index file read without
running git.

`git status` and `git diff` run git again inside every populated submodule the index lists,
with that repository's own config — listed in `.gitmodules` or not — so agent.gitsafe has to
look there too. Format: git's Documentation/gitformat-index.txt (versions 2, 3 and 4, and the
`link` extension of a split index, whose entries live in a `sharedindex.<hash>` file).
"""

from __future__ import annotations

import struct

GITLINK = 0o160000
_MODE_BYTES = struct.pack(">I", GITLINK)
_HEADER = struct.Struct(">4sII")


class BadIndex(Exception):
    """The index is not one this reader understands (git would refuse it too)."""


def gitlinks(data: bytes, hash_size: int = 20) -> tuple[list[str], str]:
    """(gitlink paths, hex name of the shared index or "") from an index file's bytes."""
    if len(data) < _HEADER.size:
        raise BadIndex("index too short")
    sig, version, count = _HEADER.unpack_from(data)
    if sig != b"DIRC" or version not in (2, 3, 4):
        raise BadIndex("not a git index")
    if _MODE_BYTES not in data and b"link" not in data:
        return [], ""  # the common case, without walking every entry in Python
    try:
        links, pos = _entries(data, version, count, hash_size)
        return links, _shared(data, pos, len(data) - hash_size, hash_size)
    except (ValueError, IndexError, struct.error):  # a missing NUL, reading past the end
        raise BadIndex("index entries cut short") from None


def tracked(data: bytes, hash_size: int = 20) -> list[str] | None:
    """Every path the index lists; None when this index alone cannot say (a split index keeps
    entries in a shared file) or cannot be read."""
    try:
        if len(data) < _HEADER.size:
            return None
        sig, version, count = _HEADER.unpack_from(data)
        if sig != b"DIRC" or version not in (2, 3, 4):
            return None
        found, pos = _entries(data, version, count, hash_size, every=True)
        if _shared(data, pos, len(data) - hash_size, hash_size):
            return None
        return found
    except (BadIndex, ValueError, IndexError, struct.error):
        return None


def _entries(
    data: bytes, version: int, count: int, hash_size: int, every: bool = False
) -> tuple[list[str], int]:
    links: list[str] = []
    pos, previous = _HEADER.size, b""
    fixed = 40 + hash_size + 2  # stat data and mode, object name, flags
    for _ in range(count):
        if pos + fixed > len(data):
            raise BadIndex("index entry cut short")
        (mode,) = struct.unpack_from(">I", data, pos + 24)
        (flags,) = struct.unpack_from(">H", data, pos + 40 + hash_size)
        start = pos + fixed + (2 if version >= 3 and flags & 0x4000 else 0)
        if version == 4:
            strip, start = _varint(data, start)
            end = data.index(b"\0", start)
            if strip > len(previous):
                raise BadIndex("bad path compression")
            path = previous[: len(previous) - strip] + data[start:end]
            pos = end + 1
        else:
            end = data.index(b"\0", start)
            path = data[start:end]
            pos += (end - pos + 8) & ~7  # NUL-padded to a multiple of eight bytes
        previous = path
        if every or mode == GITLINK:
            links.append(path.decode("utf-8", "surrogateescape"))
    return links, pos


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's offset varint (varint.c): each continuation byte adds one before shifting."""
    c = data[pos]
    value = c & 0x7F
    while c & 0x80:
        pos += 1
        c = data[pos]
        value = ((value + 1) << 7) | (c & 0x7F)
    return value, pos + 1


def _shared(data: bytes, pos: int, end: int, hash_size: int) -> str:
    """The `link` extension names the shared index a split index builds on."""
    while pos + 8 <= end:
        sig, size = struct.unpack_from(">4sI", data, pos)
        if sig == b"link" and size >= hash_size:
            return data[pos + 8 : pos + 8 + hash_size].hex()
        pos += 8 + size
    return ""


def entry_count(path: str) -> int | None:
    """How many paths the index at `path` tracks, from its 12-byte header (None: no index, or
    not one this reader understands)."""
    try:
        with open(path, "rb") as f:
            head = f.read(_HEADER.size)
    except OSError:
        return None
    if len(head) < _HEADER.size:
        return None
    sig, version, count = _HEADER.unpack(head)
    return int(count) if sig == b"DIRC" and version in (2, 3, 4) else None
