"""Word documents (.docx: a zip of XML, read with the standard library): headings,
paragraphs, bulleted and numbered lists and tables as Markdown; offset/limit count lines of
that Markdown. Tracked deletions are left out, tracked insertions kept."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from agent.base.record import ToolResult
from agent.base.words import plural
from agent.tools.common import ToolError
from agent.tools.documents.paging import Ask, finish, fit, more, span, table

XML_CAP = 64 << 20  # bytes of an XML part (unpacked) parsed at most
_HEADING = re.compile(r"^(?:heading|überschrift|titre|título|titolo)\s*([1-9])$", re.I)


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1]


def _attr(el: Any, name: str) -> str:
    for key, value in el.attrib.items():
        if _local(key) == name:
            return str(value)
    return ""


def _child(el: Any, *path: str) -> Any:
    """The first descendant along `path` (local names), or None."""
    for name in path:
        el = next((c for c in el if _local(c.tag) == name), None) if el is not None else None
    return el


def _xml(z: zipfile.ZipFile, member: str) -> Any:
    try:
        info = z.getinfo(member)
    except KeyError:
        return None
    if info.file_size > XML_CAP:
        raise ToolError(
            f"{member} in this file is {info.file_size >> 20} MB unpacked: too large to parse",
            can_retry=False,
            hint="convert it with bash (`pandoc FILE -t markdown`) and read the result",
        )
    return ET.fromstring(z.read(member))


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
            if _local(el.tag) == "abstractNum":
                abstract[_attr(el, "abstractNumId")] = {
                    _attr(lvl, "ilvl"): _attr(_child(lvl, "numFmt"), "val")
                    for lvl in el
                    if _local(lvl.tag) == "lvl" and _child(lvl, "numFmt") is not None
                }
            elif _local(el.tag) == "num" and _child(el, "abstractNumId") is not None:
                nums[_attr(el, "numId")] = _attr(_child(el, "abstractNumId"), "val")
        self.lists = {n: abstract.get(a, {}) for n, a in nums.items()}

    def marker(self, num_id: str, level: str) -> str:
        kind = self.lists.get(num_id, {}).get(level, "bullet")
        return "-" if kind in ("bullet", "none", "") else "1."


def _text(p: Any) -> str:
    """A paragraph's text: runs, tabs and breaks, insertions kept, deletions left out."""
    parts: list[str] = []
    for el in p.iter():
        tag = _local(el.tag)
        if tag == "t" and el.text:
            parts.append(el.text)
        elif tag == "tab":
            parts.append("\t")
        elif tag in ("br", "cr"):
            parts.append("\n")
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
    level = styles.headings.get(style) or (int(outline) + 1 if outline.isdigit() else 0)
    if 1 <= level <= 6:
        return "#" * level + " " + " ".join(text.split())
    num = _child(ppr, "numPr")
    if num is not None and _child(num, "numId") is not None:
        num_id = _attr(_child(num, "numId"), "val")
        ilvl = _attr(_child(num, "ilvl"), "val") if _child(num, "ilvl") is not None else "0"
        if num_id != "0":
            depth = int(ilvl) if ilvl.isdigit() else 0
            return "  " * depth + styles.marker(num_id, ilvl) + " " + text.replace("\n", " ")
    return text


def _table(tbl: Any) -> list[str]:
    rows = []
    for tr in (r for r in tbl if _local(r.tag) == "tr"):
        cells = [c for c in tr if _local(c.tag) == "tc"]
        rows.append([" ".join(_text(c).split()) for c in cells])
    if not rows:
        return []
    width = max(len(r) for r in rows)
    return list(table(rows[0] + [""] * (width - len(rows[0])), rows[1:]))


def _blocks(body: Any, styles: Styles) -> Iterator[str]:
    """The body's paragraphs and tables as Markdown blocks, in order."""
    for el in body:
        tag = _local(el.tag)
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


def _markdown(path: Path, name: str) -> list[str]:
    try:
        with zipfile.ZipFile(path) as z:
            doc = _xml(z, "word/document.xml")
            styles = Styles(_xml(z, "word/styles.xml"), _xml(z, "word/numbering.xml"))
    except zipfile.BadZipFile:
        raise ToolError(
            f"{name} is not a readable Word document: not a zip archive (corrupt, truncated, or "
            "an old binary .doc under a new name)",
            can_retry=False,
            hint="check it with bash (`file`); convert a .doc with `libreoffice --convert-to docx`",
        ) from None
    if doc is None or _child(doc, "body") is None:
        raise ToolError(f"{name} is a zip archive but not a Word document", can_retry=False)
    lines: list[str] = []
    previous_list = False
    for block in _blocks(_child(doc, "body"), styles):
        is_list = block.lstrip().startswith(("- ", "1. "))
        if lines and not (is_list and previous_list):
            lines.append("")  # blank line between blocks, not between list items
        lines += block.split("\n")
        previous_list = is_list
    return lines


def read(path: Path, ask: Ask) -> ToolResult:
    lines = _markdown(path, ask.name)
    total = len(lines)
    if total == 0:
        return ToolResult("[the document has no text]", display=f"read_file {ask.name} · empty")
    start = ask.offset - 1
    if start >= total:
        raise ToolError(
            f"offset {ask.offset} is past the end of {ask.name} ({total} lines of Markdown)",
            hint="offset counts lines of the Markdown shown, from 1",
        )
    stop = total if ask.limit is None else min(total, start + ask.limit)
    shown, _ = fit(lines[start:stop])
    last = start + len(shown)
    note = more("lines", start + 1, last, total, last + 1)
    head = f"[Word document as Markdown: {plural(total, 'line')}]"
    where = span(ask.name, "line", start + 1, last, (start, last) == (0, total))
    return finish(head + "\n" + "\n".join(shown), [note], where)
