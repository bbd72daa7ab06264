"""One page of a text file's lines, read without loading the file whole: the raw lines of a
byte-oriented file (skipping to the offset, counting the rest up to SIZE_CAP), their decoding
(BOMs, legacy encodings, a line cut inside a character), UTF-16/32 read as a stream, and the
same page of an editor's buffer (ACP). read_file (files.py) renders them."""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field
from typing import BinaryIO

from agent.tools.shared import textio

CHUNK = 1 << 20
COLLECT_CAP = 1 << 20  # raw bytes gathered for one page; the result cap is far smaller anyway
SIZE_CAP = 10 << 20  # above this a file is read only in part (no total line count)


@dataclass
class Page:
    """Raw lines of one read: the lines, where they start, and what is known about the rest."""

    lines: list[bytes] = field(default_factory=list)
    first: int = 1  # line number of lines[0]
    total: int | None = None  # None when the file was too big to count
    size: int = 0
    last_cut: bool = False  # the final line was not read to its end


Read = tuple[list[str], Page, list[str]]  # decoded lines, where they sit, notes for the model


def _skip_lines(f: BinaryIO, data: bytes, count: int) -> tuple[bytes, int]:
    """Drop `count` lines from the stream starting with `data`; returns (rest, lines dropped)."""
    dropped = 0
    while True:
        newlines = data.count(b"\n")
        if dropped + newlines >= count:
            rest = data.split(b"\n", count - dropped)[-1]
            return rest, count
        dropped += newlines
        data = f.read(CHUNK)
        if not data:
            return b"", dropped


def collect(f: BinaryIO, data: bytes, size: int, offset: int, limit: int) -> Page:
    """Lines offset..offset+limit-1 of a byte-oriented file, reading only what is needed."""
    data, dropped = _skip_lines(f, data, offset - 1)
    acc, eof = bytearray(data), False
    newlines = acc.count(b"\n")
    while newlines < limit and len(acc) < COLLECT_CAP:
        chunk = f.read(CHUNK)
        if not chunk:
            eof = True
            break
        acc += chunk
        newlines += chunk.count(b"\n")
    blob = bytes(acc)
    parts = blob.split(b"\n", limit)
    page = Page(lines=parts, first=dropped + 1)
    if len(parts) > limit:
        parts.pop()  # the unread rest
    elif parts[-1] == b"":
        parts.pop()  # nothing after the last newline
    else:
        page.last_cut = not eof  # stopped at COLLECT_CAP inside a line
    if size <= SIZE_CAP:
        total = dropped + blob.count(b"\n")
        while chunk := f.read(CHUNK):
            total += chunk.count(b"\n")
        f.seek(max(size - 1, 0))
        page.total = total + (1 if size and f.read(1) != b"\n" else 0)
    return page


def decode_page(page: Page, fmt_bom: tuple[str, bytes] | None) -> tuple[list[str], str, int]:
    """Decode the page's lines; returns (lines, encoding note, undecodable count)."""
    raw = b"\n".join(page.lines)
    if fmt_bom:
        encoding, bom = fmt_bom
        if page.first == 1 and raw.startswith(bom):
            raw = raw[len(bom) :]
            if page.size == len(bom):  # nothing but the BOM: an empty file
                page.lines, page.total = [], 0
        note = f"{encoding} with BOM"
        fallback = False
    else:
        encoding, note = textio.legacy_file(raw) or "utf-8", ""
        fallback = encoding != "utf-8"
    if page.last_cut:  # the read stopped inside a line, maybe inside a character: drop its start
        decoder = codecs.getincrementaldecoder(encoding)("replace")
        decoder.decode(raw, final=False)
        raw = raw[: len(raw) - len(decoder.getstate()[0])]
    text, _, bad = textio.decode(raw, textio.TextFormat(encoding, b"", "\n", fallback))
    if fallback:
        note = f"{encoding} (not valid UTF-8; decoded with a fallback guess)"
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return (lines if page.lines else []), note, bad


def read_wide(f: BinaryIO, size: int, offset: int, limit: int, encoding: str) -> Read:
    """UTF-16/32 text (its newlines are not single bytes), decoded as a stream: lines past
    the 10 MB mark can be read too; the total is counted for files up to that size."""
    head = f.read(4)
    found = textio.sniff_bom(head)
    bom = found[1] if found else b""
    f.seek(len(bom))
    decoder = codecs.getincrementaldecoder(encoding)("replace")
    lines: list[str] = []
    seen, bad, rest, counting = 0, 0, "", size <= SIZE_CAP
    while chunk := f.read(CHUNK):
        text = rest + decoder.decode(chunk)
        bad += text.count("\ufffd") - rest.count("\ufffd")
        *done, rest = text.split("\n")
        for line in done:
            seen += 1
            if offset <= seen < offset + limit:
                lines.append(line.removesuffix("\r"))
        if seen >= offset + limit - 1 and not counting:
            break
    else:
        rest += decoder.decode(b"", final=True)
        if rest:
            seen += 1
            if offset <= seen < offset + limit:
                lines.append(rest.removesuffix("\r"))
    page = Page(first=offset, total=seen if counting else None)
    notes = [f"encoding: {encoding}" + (" with BOM" if bom else " (no BOM; detected)")]
    if bad:
        notes.append(f"{bad} undecodable sequence(s) shown as U+FFFD")
    return lines, page, notes


def lines_of(text: str, offset: int, limit: int) -> Read:
    """A page of an editor buffer, as _read gives one of a file."""
    every = text.split("\n")
    if every and every[-1] == "":
        every.pop()
    lines = [line.removesuffix("\r") for line in every[offset - 1 : offset - 1 + limit]]
    page = Page(first=offset, total=len(every), size=len(text.encode("utf-8", "replace")))
    return lines, page, ["read from the editor's buffer"] if text else []
