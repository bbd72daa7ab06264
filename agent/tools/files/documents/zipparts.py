"""The parts of an Office zip package (.xlsx, .docx), read within a budget whatever they are
named: each part's unpacked size comes from its header (ZipInfo.file_size) and is capped, and
since a header can lie it is also counted while the part is inflated, in bounded steps. (The
zipfile module stops a part at the size its header states, but reading a part whole inflates
all of its compressed data first: a part whose header says 1 KB can hold a stream that
inflates to gigabytes.)"""

from __future__ import annotations

import contextlib
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from agent.tools.files.documents import ole
from agent.tools.shared.common import ToolError

STEP = 1 << 16  # bytes inflated at a time
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # a zip entry's local file header
_NAME_LENGTH, _EXTRA_LENGTH = 10, 11  # its fields holding the lengths that follow it


def local(tag: str) -> str:
    """An XML tag or attribute name without its `{namespace}`."""
    return tag.rsplit("}", 1)[-1]


@contextlib.contextmanager
def package(path: Path, name: str, kind: str, old: str) -> Iterator[zipfile.ZipFile]:
    """`path` opened as the zip package of a `kind` ("Word document"): the older binary format
    (`old`, ".doc") refused as such, and a corrupt or truncated zip met anywhere while the
    block reads it (its parts too) a ToolError that says so."""
    if ole.is_ole(path):
        raise ole.refusal(path, name, kind, old)
    try:
        with zipfile.ZipFile(path) as z:
            yield z
    except zipfile.BadZipFile:
        raise ToolError(
            f"{name} is not a readable {kind}: not a zip archive (corrupt or truncated)",
            can_retry=False,
            hint="check it with bash (`file`, `unzip -t`)",
        ) from None


class Lying(ToolError):
    """A part holds more than its header says (a hostile or a corrupt package)."""


def _lying(name: str, member: str) -> Lying:
    return Lying(
        f"{name} is not a readable package: its part {member} unpacks to more than its zip "
        "header states (corrupt, or built to exhaust memory)",
        can_retry=False,
        hint="check it with bash (`unzip -l`, `unzip -t`)",
    )


def inflate(path: Path, info: zipfile.ZipInfo, name: str, keep: bool = True) -> bytes:
    """The part's bytes, inflated STEP at a time and never beyond info.file_size: Lying when
    its data holds more than that (or another compression than Office writes). `keep` False
    only counts (b"" back)."""
    if info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise _lying(name, info.filename)  # encrypted, bzip2, lzma…: not from Office
    out: list[bytes] = []
    count = 0
    with open(path, "rb") as f:
        f.seek(info.header_offset)
        head = f.read(_LOCAL_HEADER.size)
        if len(head) != _LOCAL_HEADER.size:
            raise zipfile.BadZipFile(f"truncated header of {info.filename}")
        fields = _LOCAL_HEADER.unpack(head)
        f.seek(fields[_NAME_LENGTH] + fields[_EXTRA_LENGTH], 1)
        unzip = zlib.decompressobj(-15) if info.compress_type == zipfile.ZIP_DEFLATED else None
        left = info.compress_size
        while left > 0:
            data = f.read(min(STEP, left))
            if not data:
                break
            left -= len(data)
            while data:
                piece = unzip.decompress(data, STEP) if unzip is not None else data
                data = unzip.unconsumed_tail if unzip is not None else b""
                count += len(piece)
                if count > info.file_size:
                    raise _lying(name, info.filename)
                if keep:
                    out.append(piece)
            if unzip is not None and unzip.eof:
                break
    return b"".join(out)


def read_part(path: Path, z: zipfile.ZipFile, member: str, cap: int, name: str) -> bytes | None:
    """A small part read whole (None: absent, or over `cap` bytes unpacked)."""
    try:
        info = z.getinfo(member)
    except KeyError:
        return None
    if info.file_size > cap:
        return None
    return inflate(path, info, name)
