"""Office files that are not zip packages: an OLE2 Compound File (starts D0 CF 11 E0). Excel
and Word save a file with a password to open that way, the package encrypted inside it (the
EncryptionInfo and EncryptedPackage streams), and the old binary .xls and .doc are one too.
Only the container's directory is read, within bounds, to tell them apart."""

from __future__ import annotations

import struct
from pathlib import Path

from agent.tools.shared.common import ToolError

MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
MAX_ENTRIES = 4096  # directory entries looked at (an encrypted package has four or five)
_END = 0xFFFFFFFE  # the end of a sector chain
_ENCRYPTED = {"encryptedpackage", "encryptioninfo"}


def is_ole(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(8) == MAGIC
    except OSError:
        return False


def _sector(data: bytes, size: int, n: int) -> bytes:
    start = (n + 1) * size  # sector 0 follows the header, which takes one sector
    return data[start : start + size]


def _fat(data: bytes, size: int) -> list[int]:
    """The sector chains' table, from the FAT sectors the header lists (the first 109: files
    over ~7 MB list more elsewhere; their directory is still found in the first ones)."""
    count = struct.unpack_from("<I", data, 0x2C)[0]
    ids = struct.unpack_from("<109I", data, 0x4C)[: min(count, 109)]
    fat: list[int] = []
    for n in ids:
        raw = _sector(data, size, n)
        fat += struct.unpack(f"<{len(raw) // 4}I", raw[: len(raw) // 4 * 4])
    return fat


def streams(path: Path, limit: int = 64 << 20) -> set[str]:
    """The names in the container's directory, lowercased (an empty set when it cannot be
    read: not an OLE2 file, or damaged)."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit)
        if data[:8] != MAGIC:
            return set()
        size = 1 << struct.unpack_from("<H", data, 0x1E)[0]
        if size not in (512, 4096):
            return set()
        fat = _fat(data, size)
        names: set[str] = set()
        n, seen = struct.unpack_from("<I", data, 0x30)[0], 0
        while n < len(fat) and n != _END and seen < MAX_ENTRIES:
            raw = _sector(data, size, n)
            for at in range(0, len(raw) - 127, 128):
                length = struct.unpack_from("<H", raw, at + 64)[0]
                if 2 <= length <= 64:
                    names.add(raw[at : at + length - 2].decode("utf-16-le", "replace").lower())
                seen += 1
            n = fat[n]
        return names
    except (struct.error, ValueError, OSError):
        return set()


def refusal(path: Path, name: str, kind: str, old: str) -> ToolError:
    """Why an Office file in an OLE2 container cannot be read: locked with a password, or
    the old binary format (`old`: .xls or .doc)."""
    if streams(path) & _ENCRYPTED:
        return ToolError(
            f"{name} is a password-protected {kind}: its contents cannot be read without the "
            "password",
            can_retry=False,
            hint="ask the user for the password or an unprotected copy (with the password: "
            "`msoffcrypto-tool -p PASSWORD in out`, or save it again without one)",
        )
    new = "xlsx" if old == ".xls" else "docx"
    return ToolError(
        f"{name} is not a readable {kind}: an old binary {old} file (OLE2), not the zip "
        f"format read_file reads",
        can_retry=False,
        hint=f"convert it with bash: `libreoffice --headless --convert-to {new} FILE`",
    )
