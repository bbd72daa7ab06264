"""Word documents (.docx: a zip of XML, read with the standard library): headings,
paragraphs, bulleted and numbered lists and tables as Markdown; offset/limit count lines of
that Markdown. Tracked deletions are left out, tracked insertions kept. Each part read is
capped by its unpacked size and counted while inflated (agent.tools.files.documents.zipparts), the
body streamed; a document locked with a password says so."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any
from xml.etree import ElementTree as ET

from agent.base.record import ToolResult
from agent.base.words import plural
from agent.tools.files.documents.paging import Ask, finish, fit, more, span, table
from agent.tools.files.documents.zipparts import inflate, local, package
from agent.tools.shared.common import ToolError

XML_CAP = 64 << 20  # bytes of word/document.xml (unpacked) read at most
SIDE_CAP = 4 << 20  # bytes of styles.xml or numbering.xml (unpacked) parsed, else left out
MAX_ELEMENTS = 1_000_000  # XML elements of the body read (~100 bytes of memory each)
BLOCK_CAP = 16 << 20  # bytes of XML of one paragraph or table (its text builds up whole)
TEXT_CAP = 16 << 20  # characters of Markdown kept (one paragraph's text included)
MAX_LINES = 500_000  # lines of it (~60 bytes of memory each besides their text)
MAX_DEPTH = 8  # list levels 0-8: Word's own nine
_HEADING = re.compile(r"^(?:heading|überschrift|titre|título|titolo)\s*([1-9])$", re.I)


def _attr(el: Any, name: str) -> str:
    for key, value in el.attrib.items():
        if local(key) == name:
            return str(value)
    return ""


def _child(el: Any, *path: str) -> Any:
    """The first descendant along `path` (local names), or None."""
    for name in path:
        el = next((c for c in el if local(c.tag) == name), None) if el is not None else None
    return el


def _small(digits: str, top: int) -> int:
    """A number attribute ("3"), at most `top`: a huge one neither costs memory nor fails."""
    digits = digits.lstrip("0")[:6] or "0"
    return min(int(digits), top) if digits.isdigit() else 0


def _side(path: Path, z: zipfile.ZipFile, member: str, notes: list[str], name: str) -> Any:
    """styles.xml or numbering.xml parsed whole (None: absent, or too large and left out)."""
    try:
        info = z.getinfo(member)
    except KeyError:
        return None
    if info.file_size > SIDE_CAP:
        notes.append(
            f"{member} is {info.file_size >> 20} MB unpacked and was not read: headings and "
            "list kinds may not be recognised"
        )
        return None
    return ET.fromstring(inflate(path, info, name))


class _LongBlock(Exception):
    """One block of the body is longer than BLOCK_CAP bytes of XML."""


class _Metered:
    """The body's XML for the parser, counted since the last block ended: one long text
    builds up whole inside the parser (~8 bytes of memory a byte), so it stops there."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream, self.since = stream, 0

    def read(self, n: int = -1) -> bytes:
        if self.since > BLOCK_CAP:
            raise _LongBlock
        data = self.stream.read(n if n > 0 else 1 << 16)
        self.since += len(data)
        return data


def _cut_at(where: str) -> str:
    return (
        f"the document was read up to {where} (memory is bounded): the rest of it is left out "
        "here; convert it with bash (`pandoc FILE -t markdown`) and read the result"
    )


def _body(z: zipfile.ZipFile, styles: Styles, notes: list[str], name: str) -> Iterator[str] | None:
    """The body's blocks as Markdown, parsed as a stream: each block is dropped once turned to
    text, and reading stops after MAX_ELEMENTS elements with a note (None: no such part)."""
    try:
        info = z.getinfo("word/document.xml")
    except KeyError:
        return None
    if info.file_size > XML_CAP:
        raise ToolError(
            f"word/document.xml in this file is {info.file_size >> 20} MB unpacked: too large",
            can_retry=False,
            hint="convert it with bash (`pandoc FILE -t markdown`) and read the result",
        )

    def blocks() -> Iterator[str]:
        depth, count, body = 0, 0, None
        with z.open(info) as stream:
            metered = _Metered(stream)
            try:
                for event, el in ET.iterparse(metered, events=("start", "end")):
                    if event == "start":
                        depth, count = depth + 1, count + 1
                        if depth == 2 and local(el.tag) == "body":
                            body = el
                        if count > MAX_ELEMENTS:
                            notes.append(_cut_at(f"the first {MAX_ELEMENTS:,} XML elements"))
                            return
                        continue
                    depth -= 1
                    if depth == 2 and body is not None:  # a paragraph, table... of the body: done
                        yield from _blocks([el], styles)
                        body.clear()
                        metered.since = 0
                    elif depth == 1 and el is not body:
                        el.clear()  # what the document holds besides its body
            except _LongBlock:
                notes.append(_cut_at(f"a paragraph or table of over {BLOCK_CAP >> 20} MB of XML"))
                return
        if body is None:
            raise ToolError(f"{name} is a zip archive but not a Word document", can_retry=False)

    return blocks()


class Styles:
    """Heading levels by style id, and list kinds by numbering id and level."""

    def __init__(self, styles: Any, numbering: Any) -> None:
        self.headings: dict[str, int] = {}
        for style in styles if styles is not None else ():
            name = _attr(_child(style, "name"), "val") if _child(style, "name") is not None else ""
            m = _HEADING.match(name)
            level = int(m.group(1)) if m else (1 if name.lower() == "title" else 0)
            if level:
                self.headings[_attr(style, "styleId")] = level
        abstract: dict[str, dict[str, str]] = {}
        nums: dict[str, str] = {}
        for el in numbering if numbering is not None else ():
            if local(el.tag) == "abstractNum":
                abstract[_attr(el, "abstractNumId")] = {
                    _attr(lvl, "ilvl"): _attr(_child(lvl, "numFmt"), "val")
                    for lvl in el
                    if local(lvl.tag) == "lvl" and _child(lvl, "numFmt") is not None
                }
            elif local(el.tag) == "num" and _child(el, "abstractNumId") is not None:
                nums[_attr(el, "numId")] = _attr(_child(el, "abstractNumId"), "val")
        self.lists = {n: abstract.get(a, {}) for n, a in nums.items()}

    def marker(self, num_id: str, level: str) -> str:
        kind = self.lists.get(num_id, {}).get(level, "bullet")
        return "-" if kind in ("bullet", "none", "") else "1."


def _text(p: Any) -> str:
    """A paragraph's text: runs, tabs and breaks, insertions kept, deletions left out; at most
    TEXT_CAP characters of it (the caller notes the document as cut)."""
    parts: list[str] = []
    size = 0
    for el in p.iter():
        tag = local(el.tag)
        if tag == "t" and el.text:
            piece = el.text
        elif tag in ("tab", "br", "cr"):
            piece = "\t" if tag == "tab" else "\n"
        else:
            continue
        parts.append(piece[: TEXT_CAP - size])
        size += len(parts[-1])
        if size >= TEXT_CAP:
            break
    return "".join(parts)


def _paragraph(p: Any, styles: Styles) -> str:
    text = _text(p).strip()
    if not text:
        return ""
    ppr = _child(p, "pPr")
    style = _attr(_child(ppr, "pStyle"), "val") if _child(ppr, "pStyle") is not None else ""
    outline = (
        _attr(_child(ppr, "outlineLvl"), "val") if _child(ppr, "outlineLvl") is not None else ""
    )
    level = styles.headings.get(style) or (_small(outline, 9) + 1 if outline.isdigit() else 0)
    if 1 <= level <= 6:
        return "#" * level + " " + " ".join(text.split())
    num = _child(ppr, "numPr")
    if num is not None and _child(num, "numId") is not None:
        num_id = _attr(_child(num, "numId"), "val")
        ilvl = _attr(_child(num, "ilvl"), "val") if _child(num, "ilvl") is not None else "0"
        if num_id != "0":
            depth = _small(ilvl, MAX_DEPTH)
            return "  " * depth + styles.marker(num_id, ilvl) + " " + text.replace("\n", " ")
    return text


def _table(tbl: Any) -> list[str]:
    rows = []
    for tr in (r for r in tbl if local(r.tag) == "tr"):
        cells = [c for c in tr if local(c.tag) == "tc"]
        rows.append([" ".join(_text(c).split()) for c in cells])
    if not rows:
        return []
    width = max(len(r) for r in rows)
    return list(table(rows[0] + [""] * (width - len(rows[0])), rows[1:]))


def _blocks(body: Any, styles: Styles) -> Iterator[str]:
    """The body's paragraphs and tables as Markdown blocks, in order."""
    for el in body:
        tag = local(el.tag)
        if tag == "p":
            text = _paragraph(el, styles)
            if text:
                yield text
        elif tag == "tbl":
            yield "\n".join(_table(el))
        elif tag in ("sdt", "sdtContent", "customXml", "ins"):  # content controls and the like
            inner = _child(el, "sdtContent") if tag == "sdt" else el
            if inner is not None:
                yield from _blocks(inner, styles)


def _markdown(path: Path, name: str) -> tuple[list[str], list[str]]:
    """The document's Markdown lines, and notes on what was left out."""
    notes: list[str] = []
    lines: list[str] = []
    with package(path, name, "Word document", ".doc") as z:
        side = [_side(path, z, f"word/{p}.xml", notes, name) for p in ("styles", "numbering")]
        styles = Styles(*side)
        body = _body(z, styles, notes, name)
        if body is None:
            raise ToolError(f"{name} is a zip archive but not a Word document", can_retry=False)
        previous_list, chars = False, 0
        for block in body:
            is_list = block.lstrip().startswith(("- ", "1. "))
            if lines and not (is_list and previous_list):
                lines.append("")  # blank line between blocks, not between list items
            lines += block.split("\n", max(MAX_LINES - len(lines), 0))
            previous_list, chars = is_list, chars + len(block)
            if len(lines) >= MAX_LINES or chars >= TEXT_CAP:
                notes.append(_cut_at(f"{len(lines):,} lines ({chars:,} characters)"))
                break
    return lines, notes


def read(path: Path, ask: Ask) -> ToolResult:
    lines, cut = _markdown(path, ask.name)
    total = len(lines)
    if total == 0:
        text = "[the document has no text]" + "".join(f"\n[{n}]" for n in cut)
        return ToolResult(text, display=f"read_file {ask.name} · empty")
    start = ask.offset - 1
    if start >= total:
        raise ToolError(
            f"offset {ask.offset} is past the end of {ask.name} ({total} lines of Markdown)",
            hint="offset counts lines of the Markdown shown, from 1",
        )
    stop = total if ask.limit is None else min(total, start + ask.limit)
    out = f"{Path(ask.name).stem}.txt"
    whole = (
        f"(line {start + 1} is longer than one read shows; see all of it with bash: pandoc "
        f"{ask.name} -t plain -o {out} (it wraps long lines), then read_file {out})"
    )
    shown, _ = fit(lines[start:stop], whole=whole)
    last = start + len(shown)
    note = more("lines", start + 1, last, total, last + 1)
    head = f"[Word document as Markdown: {plural(total, 'line')}]"
    where = span(ask.name, "line", start + 1, last, (start, last) == (0, total))
    return finish(head + "\n" + "\n".join(shown), [note, *cut], where)
