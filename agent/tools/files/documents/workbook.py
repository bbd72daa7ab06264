"""What an Excel workbook's package must be before openpyxl opens it: a zip (an OLE2 file is
a workbook locked with a password, or an old .xls), whose parts openpyxl loads whole — every
part but the worksheets it streams, whatever their names — fit in LOADED_CAP bytes unpacked,
each holding no more than its zip header says (agent.tools.files.documents.zipparts)."""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as ET

from agent.tools.files.documents.zipparts import inflate, local, package, read_part
from agent.tools.shared.common import ToolError

# Bytes unpacked of the parts loaded whole (shared strings, styles, chart sheets...): openpyxl
# holds ~6 bytes of memory per byte of shared strings and loads them twice when formulas are
# shown; 16 MB is ~600,000 distinct strings of ten characters
LOADED_CAP = 16 << 20
MEDIA_CAP = 128 << 20  # bytes of pictures (a chart sheet's are loaded, never decoded)
SMALL_CAP = 1 << 20  # bytes of [Content_Types].xml or the workbook's relationships parsed
_RELS = "xl/_rels/workbook.xml.rels"


@dataclass
class Types:
    """[Content_Types].xml: a part's own type, else its extension's."""

    parts: dict[str, str] = field(default_factory=dict)
    exts: dict[str, str] = field(default_factory=dict)

    def of(self, part: str) -> str:
        return self.parts.get(part) or self.exts.get(posixpath.splitext(part)[1][1:].lower(), "")


def _types(path: Path, z: zipfile.ZipFile, name: str) -> Types:
    types = Types()
    raw = read_part(path, z, "[Content_Types].xml", SMALL_CAP, name)
    for el in ET.fromstring(raw) if raw is not None else ():
        kind = str(el.get("ContentType", ""))
        if local(el.tag) == "Override":
            types.parts[str(el.get("PartName", "")).lstrip("/")] = kind
        elif local(el.tag) == "Default":
            types.exts[str(el.get("Extension", "")).lower()] = kind
    return types


def _related_sheets(path: Path, z: zipfile.ZipFile, name: str) -> set[str]:
    """Parts the workbook's relationships name as worksheets, resolved as openpyxl does."""
    raw = read_part(path, z, _RELS, SMALL_CAP, name)
    if raw is None:
        return set()
    out = set()
    for el in ET.fromstring(raw):
        target, kind = str(el.get("Target", "")), str(el.get("Type", ""))
        if local(el.tag) != "Relationship" or not kind.endswith("/worksheet"):
            continue
        if el.get("TargetMode") == "External":
            continue
        out.add(target[1:] if target.startswith("/") else posixpath.normpath("xl/" + target))
    return out


def kinds(path: Path, z: zipfile.ZipFile, name: str) -> tuple[set[str], set[str]]:
    """(the parts openpyxl streams, the pictures): worksheets by both their content type and
    the workbook's relationship (a part the two disagree on counts as loaded whole, as a chart
    sheet is), pictures by their content type; every other part is loaded whole."""
    try:
        types = _types(path, z, name)
        related = _related_sheets(path, z, name)
    except ET.ParseError:
        return set(), set()  # nothing streamed: every part counts against the cap
    sheets = {p for p in related if types.of(p).endswith("worksheet+xml")}
    media = {i.filename for i in z.infolist() if types.of(i.filename).startswith("image/")}
    return sheets, media - sheets


def _too_big(name: str, what: str, size: int, cap: int) -> ToolError:
    return ToolError(
        f"{name} holds {size / (1 << 20):.1f} MB of {what} (unpacked), more than can be loaded "
        f"here (at most {cap >> 20} MB)",
        can_retry=False,
        hint="export the sheet you need to CSV (e.g. `libreoffice --convert-to csv`) and "
        "read that, or query it with a short Python script",
    )


def check(path: Path, name: str) -> None:
    """A zip with a workbook in it whose parts loaded whole fit the caps; ToolError else."""
    with package(path, name, "Excel workbook", ".xls") as z:
        infos = [i for i in z.infolist() if not i.is_dir()]
        if "xl/workbook.xml" not in {i.filename for i in infos}:
            raise ToolError(f"{name} is a zip archive but not an Excel workbook", can_retry=False)
        sheets, media = kinds(path, z, name)
        pictures = [i for i in infos if i.filename in media]
        whole = [i for i in infos if i.filename not in sheets and i.filename not in media]
        for what, parts, cap in (
            ("text cells, styles and other parts loaded whole", whole, LOADED_CAP),
            ("pictures", pictures, MEDIA_CAP),
        ):
            size = sum(i.file_size for i in parts)
            if size > cap:
                raise _too_big(name, what, size, cap)
        for info in whole + pictures:  # each holds what its header says, no more
            inflate(path, info, name, keep=False)
