"""Real document files for the read_file and notebook_edit tests, built on the spot: PDFs
with a text layer (pypdf writes the page content streams), Word documents (a zip of
WordprocessingML parts, as Word lays them out), workbooks (openpyxl) and nbformat-valid
notebooks (JSON as nbformat writes it: one-space indent, sorted keys, a final newline)."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

PNG_B64 = (  # a 1×1 PNG, 70 bytes
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def make_pdf(
    path: Path,
    pages: list[str | None],
    *,
    password: str = "",
    owner_only: bool = False,
    title: str = "",
) -> Path:
    """A PDF whose pages carry `pages` as text in Helvetica (None: a page with no text, as a
    scanned page has none); `password` encrypts it (RC4, no extra library needed)."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    w = PdfWriter()
    font = w._add_object(  # the standard font every reader has
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )
    for text in pages:
        page = w.add_blank_page(612, 792)
        if text is None:
            continue
        ops = []
        for i, line in enumerate(text.split("\n")):
            escaped = re.sub(r"([\\()])", r"\\\1", line)
            ops.append(f"BT /F1 12 Tf 72 {720 - 16 * i} Td ({escaped}) Tj ET")
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops).encode("latin-1"))
        page[NameObject("/Contents")] = w._add_object(stream)
        fonts = DictionaryObject({NameObject("/F1"): font})
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): fonts})
    if title:
        w.add_metadata({"/Title": title})
    if password:
        user = "" if owner_only else password
        w.encrypt(user_password=user, owner_password=password + "-owner", algorithm="RC4-128")
    with open(path, "wb") as f:
        w.write(f)
    return path


W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_OOXML = "http://schemas.openxmlformats.org"
_WML = "application/vnd.openxmlformats-officedocument.wordprocessingml"
_PARTS = {"document": "document.main", "styles": "styles", "numbering": "numbering"}
_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    f'<Types xmlns="{_OOXML}/package/2006/content-types">'
    '<Default Extension="rels" '
    'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    + "".join(
        f'<Override PartName="/word/{part}.xml" ContentType="{_WML}.{kind}+xml"/>'
        for part, kind in _PARTS.items()
    )
    + "</Types>"
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    f'<Relationships xmlns="{_OOXML}/package/2006/relationships">'
    f'<Relationship Id="rId1" Type="{_OOXML}/officeDocument/2006/relationships/officeDocument" '
    'Target="word/document.xml"/></Relationships>'
)
_DOC_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    f'<Relationships xmlns="{_OOXML}/package/2006/relationships">'
    + "".join(
        f'<Relationship Id="rId{i}" Type="{_OOXML}/officeDocument/2006/relationships/{part}" '
        f'Target="{part}.xml"/>'
        for i, part in enumerate(("styles", "numbering"), start=1)
    )
    + "</Relationships>"
)
_STYLES = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="{W}">
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>
</w:styles>"""
_NUMBERING = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering xmlns:w="{W}">
<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl>
<w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="1">
<w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
</w:numbering>"""


def para(text: str, style: str = "", num: tuple[int, int] | None = None) -> str:
    """One w:p: a style (Heading1…), a list (numId, level), runs split at `*` for variety."""
    ppr = f'<w:pStyle w:val="{style}"/>' if style else ""
    if num:
        ppr += f'<w:numPr><w:ilvl w:val="{num[1]}"/><w:numId w:val="{num[0]}"/></w:numPr>'
    runs = "".join(f'<w:r><w:t xml:space="preserve">{t}</w:t></w:r>' for t in text.split("*"))
    return f"<w:p>{f'<w:pPr>{ppr}</w:pPr>' if ppr else ''}{runs}</w:p>"


def docx_table(rows: list[list[str]]) -> str:
    cells = ("<w:tr>" + "".join(f"<w:tc>{para(c)}</w:tc>" for c in row) + "</w:tr>" for row in rows)
    return "<w:tbl>" + "".join(cells) + "</w:tbl>"


def make_docx(path: Path, body: str) -> Path:
    """A .docx whose body is `body` (w:p and w:tbl elements, see `para` and `docx_table`)."""
    document = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="{W}">'
        f"<w:body>{body}<w:sectPr/></w:body></w:document>"
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _TYPES)
        z.writestr("_rels/.rels", _RELS)
        z.writestr("word/_rels/document.xml.rels", _DOC_RELS)
        z.writestr("word/document.xml", document)
        z.writestr("word/styles.xml", _STYLES)
        z.writestr("word/numbering.xml", _NUMBERING)
    return path


def with_cached_values(path: Path, values: dict[str, str]) -> None:
    """Give formula cells the computed values Excel would have stored (openpyxl writes none):
    `{"B4": "3"}` fills `<c r="B4"><f>…</f><v/></c>` in the first sheet."""
    member = "xl/worksheets/sheet1.xml"
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i.filename) for i in z.infolist()}
    xml = parts[member].decode()
    for ref, value in values.items():
        xml = re.sub(rf'(<c r="{ref}"[^>]*>\s*<f>[^<]*</f>)\s*<v\s*/>', rf"\1<v>{value}</v>", xml)
    parts[member] = xml.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)


def code(source: str, *, count: int | None = None, outputs: list[Any] | None = None,
         cell_id: str = "") -> dict[str, Any]:  # fmt: skip
    cell: dict[str, Any] = {
        "cell_type": "code",
        "execution_count": count,
        "metadata": {},
        "outputs": outputs or [],
        "source": source.splitlines(keepends=True),
    }
    if cell_id:
        cell["id"] = cell_id
    return cell


def markdown(source: str, *, cell_id: str = "") -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": "markdown", "metadata": {}}
    cell["source"] = source.splitlines(keepends=True)
    if cell_id:
        cell["id"] = cell_id
    return cell


def stream(text: str, name: str = "stdout") -> dict[str, Any]:
    return {"name": name, "output_type": "stream", "text": text.splitlines(keepends=True)}


def notebook(cells: list[dict[str, Any]], minor: int = 5) -> dict[str, Any]:
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python", "version": "3.11.4"},
        },
        "nbformat": 4,
        "nbformat_minor": minor,
    }


def write_notebook(path: Path, nb: dict[str, Any]) -> Path:
    """As nbformat writes it: sorted keys, one-space indent, UTF-8 unescaped, final newline."""
    path.write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n")
    return path
