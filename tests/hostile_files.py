"""Hostile files a repository can ship, each built on the spot, and a child process that reads
one the way the agent does and reports its own peak memory (issue 38).

Shared by the tests (tests/code, tests/tools) and bench/hostile.py: each one cost the agent
minutes or gigabytes before its parser had a budget."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import time
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_MB = 512  # the peak memory one hostile file may cost
BUDGET_S = 10.0  # and the time


# Source code (tree-sitter)


def nested_calls_js(path: Path, size: int = 480_000) -> Path:
    """`f(f(f(…x…)))`: 160,000 nested calls hung a tags query for minutes, SIGTERM ignored."""
    n = (size - 3) // 3
    path.write_text("f(" * n + "x" + ")" * n + ";\n")
    return path


def member_chain_js(path: Path, size: int = 480_000) -> Path:
    """`x.a().a()…`: a chain is deep without a single nested bracket."""
    path.write_text("x" + ".a()" * (size // 4) + ";\n")
    return path


def parse_bomb_py(path: Path, n: int = 100_000) -> Path:
    """Brackets that never close (300 KB): tree-sitter's error recovery makes a tree each query
    takes minutes over."""
    path.write_text("(" * n + "[" * n + "{" * n)
    return path


def memory_bomb_cpp(path: Path, size: int = 500_000) -> Path:
    """`a<b<a<b<…>>`: the C++ grammar keeps every reading of the ambiguity, over 1.5 GB."""
    n = (size - 10) // 8
    path.write_text("int x = " + "a<b<" * n + "c" + ">>" * n + ";\n")
    return path


# Documents


_STRINGS_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def xlsx_strings_bomb(path: Path, unpacked: int = 1_330_000_000) -> Path:
    """A workbook whose shared strings part is not named .xml: `unpacked` bytes of XML (ten
    distinct characters a string) deflated to about a thousandth of that."""
    import openpyxl

    wb = openpyxl.Workbook()
    wb.active["A1"] = "placeholder"
    wb.save(path)
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i.filename) for i in z.infolist()}
    sheet = parts["xl/worksheets/sheet1.xml"].decode()
    cell = '<c r="A1" t="inlineStr"><is><t>placeholder</t></is></c>'
    parts["xl/worksheets/sheet1.xml"] = sheet.replace(cell, '<c r="A1" t="s"><v>0</v></c>').encode()
    override = f'<Override PartName="/xl/strings.bin" ContentType="{_STRINGS_TYPE}"/></Types>'
    parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
        b"</Types>", override.encode()
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
        item = b"<si><t>0123456789</t></si>"
        chunk = item * ((1 << 20) // len(item))
        with z.open("xl/strings.bin", "w", force_zip64=True) as out:
            out.write(f'<sst xmlns="{_MAIN}">'.encode())
            for _ in range(unpacked // len(chunk)):
                out.write(chunk)
            out.write(b"</sst>")
    return path


def ole2(path: Path, streams: dict[str, bytes]) -> Path:
    """A Compound File (OLE2) container holding `streams` (each padded to 4 KB, so that it
    lives in regular sectors): how Office stores an encrypted .xlsx or .docx, and a .xls."""
    sector = 512
    # at least 4 KB each: a smaller stream would belong in the mini stream, not built here
    datas = [d.ljust(max(4096, len(d) + -len(d) % 4096), b"\0") for d in streams.values()]
    chains: list[tuple[int, int]] = []  # (first sector, count) per stream
    next_free = 0
    for d in datas:
        chains.append((next_free, len(d) // sector))
        next_free += len(d) // sector
    dir_first = next_free
    entries = 1 + len(streams)
    dir_sectors = (entries * 128 + sector - 1) // sector
    fat_first = dir_first + dir_sectors
    total = fat_first + 1  # one FAT sector holds 128 entries: enough for these sizes
    assert total <= 128
    fat = [0xFFFFFFFF] * 128
    for first, count in chains:
        for s in range(first, first + count):
            fat[s] = s + 1 if s < first + count - 1 else 0xFFFFFFFE
    for s in range(dir_first, fat_first):
        fat[s] = s + 1 if s < fat_first - 1 else 0xFFFFFFFE
    fat[fat_first] = 0xFFFFFFFD  # the FAT's own sector

    def entry(name: str, kind: int, start: int, size: int, child: int, right: int) -> bytes:
        raw = (name + "\0").encode("utf-16-le")
        return (
            raw.ljust(64, b"\0")
            + struct.pack("<HBB", len(raw), kind, 1)
            + struct.pack("<III", 0xFFFFFFFF, right, child)
            + b"\0" * 16  # CLSID
            + b"\0" * 4  # state bits
            + b"\0" * 16  # times
            + struct.pack("<IQ", start, size)
        )

    names = list(streams)
    dir_bytes = entry("Root Entry", 5, 0xFFFFFFFE, 0, 1 if names else 0xFFFFFFFF, 0xFFFFFFFF)
    for i, (name, (first, _), data) in enumerate(zip(names, chains, datas, strict=True)):
        right = i + 2 if i + 1 < len(names) else 0xFFFFFFFF  # a right-leaning list
        dir_bytes += entry(name, 2, first, len(data), 0xFFFFFFFF, right)
    dir_bytes = dir_bytes.ljust(dir_sectors * sector, b"\0")
    header = (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
        + b"\0" * 16
        + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6)
        + b"\0" * 6
        + struct.pack("<IIIIIIIII", 0, 1, dir_first, 0, 4096, 0xFFFFFFFE, 0, 0xFFFFFFFE, 0)
    )
    difat = struct.pack("<I", fat_first) + b"\xff\xff\xff\xff" * 108
    header = (header + difat).ljust(sector, b"\0")
    fat_bytes = struct.pack("<128I", *fat)
    path.write_bytes(header + b"".join(datas) + dir_bytes + fat_bytes)
    return path


def encrypted_office(path: Path) -> Path:
    """What Excel or Word writes for a file with a password to open: an OLE2 container with
    the EncryptionInfo and EncryptedPackage streams (agile encryption, contents random)."""
    info = struct.pack("<HHI", 4, 4, 0x40) + b'<?xml version="1.0"?><encryption/>'
    package = struct.pack("<Q", 6000) + bytes(range(256)) * 24
    return ole2(path, {"EncryptionInfo": info, "EncryptedPackage": package})


def lying_part(path: Path, member: str, says: int = 1000) -> Path:
    """Rewrite zip `path` so that `member`'s headers state `says` bytes (and the CRC of its
    first `says` bytes) while its data still inflates to all of it: zipfile stops at the
    stated size, but reading the part whole inflates everything first."""
    with zipfile.ZipFile(path) as z, z.open(member) as part:
        info = z.getinfo(member)
        crc = zlib.crc32(part.read(says))
    data = bytearray(path.read_bytes())
    name = member.encode()
    for sig, at_crc in ((b"PK\x03\x04", 14), (b"PK\x01\x02", 16)):  # local, central header
        start = 0
        while (start := data.find(sig, start)) >= 0:
            size = 30 if sig == b"PK\x03\x04" else 46
            length = struct.unpack_from("<H", data, start + (26 if size == 30 else 28))[0]
            if data[start + size : start + size + length] == name:
                struct.pack_into("<III", data, start + at_crc, crc, info.compress_size, says)
            start += 4
    path.write_bytes(bytes(data))
    return path


def csv_one_line(path: Path, size: int = 500 << 20) -> Path:
    """A CSV that is one line of `size` bytes (a header row of that length)."""
    chunk = b"abcdefgh," * (1 << 17)
    with open(path, "wb") as f:
        f.write(b"id,")
        for _ in range(size // len(chunk)):
            f.write(chunk)
        f.write(b"end\n1,2\n")
    return path


def png_bomb(path: Path, side: int = 13_000) -> Path:
    """An RGBA PNG of `side`² black pixels (169 million for 13,000: under Pillow's own bomb
    error, 676 MB decoded): a few hundred KB on disk."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    pack = zlib.compressobj(9)
    row = b"\0" * (1 + side * 4)
    idat = b"".join(pack.compress(row) for _ in range(side)) + pack.flush()
    head = struct.pack(">IIBBBBB", side, side, 8, 6, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    path.write_bytes(png)
    return path


def notebook_bomb(path: Path, size: int = 60 << 20) -> Path:
    """An nbformat 4 notebook whose one cell's metadata holds `size` bytes of `{}`, `{}`, …:
    a few bytes each on disk, a dictionary of ~64 bytes each once parsed."""
    head = json.dumps(
        {
            "cells": [{"cell_type": "markdown", "id": "a", "metadata": {"x": []}, "source": "hi"}],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )
    before, after = head.split('"x": []', 1)
    with open(path, "w") as f:
        f.write(before + '"x": [{}')
        piece = ",{}" * (1 << 16)
        for _ in range(size // len(piece)):
            f.write(piece)
        f.write("]" + after)
    return path


def docx_bomb(path: Path, elements: int = 3_000_000) -> Path:
    """A Word document whose one paragraph holds `elements` empty runs (deflated to ~1 KB per
    MB): all of them in memory at once unless the reader stops counting."""
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        with z.open("word/document.xml", "w", force_zip64=True) as out:
            out.write(f'<w:document xmlns:w="{w}"><w:body><w:p>'.encode())
            piece = b"<w:r/>" * 100_000
            for _ in range(elements // 100_000):
                out.write(piece)
            out.write(b"</w:p></w:body></w:document>")
    return path


def pdf_bomb(
    path: Path, unpacked: int = 400 << 20, pages: int = 1, op: bytes = b"BT /F1 9 Tf (a) Tj ET\n"
) -> Path:
    """A PDF whose content stream inflates to `unpacked` bytes of the operator `op` (text by
    default), drawn by each of its `pages` pages."""
    pack = zlib.compressobj(9)
    piece = op * 10_000
    body = b"".join(pack.compress(piece) for _ in range(unpacked // len(piece))) + pack.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % (4 + i) for i in range(pages)), pages),
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(body) + body + b"\nendstream",
    ]
    objects += [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources "
        b"<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>"
    ] * pages
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for i, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    path.write_bytes(bytes(out))
    return path


# Measuring

# The child's own peak is VmHWM where there is one: Linux carries the parent's peak at fork
# over into ru_maxrss across exec. Its children (a parsing process) are forked from it small.
_REPORT = """
import resource, sys, time
t = time.perf_counter()
{body}
t = time.perf_counter() - t
scale = 1 if sys.platform == "darwin" else 1024
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
try:
    status = open("/proc/self/status").read()
    own = int(status.split("VmHWM:")[1].split()[0]) * 1024
except (OSError, IndexError):
    pass
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = sum(resource.getrusage(resource.RUSAGE_SELF)[:2]) + kids.ru_utime + kids.ru_stime
print("\\nPEAK", max(own, kids.ru_maxrss * scale), t, cpu)
"""


def measured(body: str, *args: str, timeout: float = 120) -> tuple[float, float, str]:
    """Run `body` (Python; `sys.argv[1:]` are `args`) in a child process of its own: (seconds
    it took, its peak memory in MB counting its own children, what it printed before)."""
    wall, peak, _, out = measured_cpu(body, *args, timeout=timeout)
    return wall, peak, out


def measured_cpu(body: str, *args: str, timeout: float = 120) -> tuple[float, float, float, str]:
    """measured(), and the CPU seconds it and its children took (third)."""
    code = _REPORT.format(body=body)
    started = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    wall = time.perf_counter() - started
    assert run.returncode == 0, run.stderr[-3000:]
    out, _, tail = run.stdout.rpartition("\nPEAK ")
    peak, _, cpu = tail.split()
    return wall, int(peak) / (1 << 20), float(cpu), out


READ_FILE = """
import asyncio
from pathlib import Path
from agent.base.record import ToolContext
from agent.tools.files.read import READ_FILE
path = Path(sys.argv[1])
ctx = ToolContext(cwd=path.parent, images=len(sys.argv) > 2)
result = asyncio.run(READ_FILE.run({"path": path.name}, ctx))
print(result.output[:2000])
"""

TAGS = """
from pathlib import Path
from agent.code import bounded
from agent.code.cache import TagCache
from agent.code.index import tags_for
root = Path(sys.argv[1])
found = tags_for(root, sorted(sys.argv[2:]), TagCache(None))
bounded.close_idle()  # the parsing process is reaped: its peak counts
print(sorted(found.files), found.refused)
"""
