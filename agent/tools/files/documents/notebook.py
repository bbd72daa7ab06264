"""Jupyter notebooks (.ipynb, JSON): read_file shows the cells in order — index, type,
execution count, id, source — with text outputs and error tracebacks (ANSI colours stripped)
and every image, widget or other rich output as one line naming its MIME type and size.
offset/limit count cells. A notebook that is not valid JSON is shown as plain text with a note
(so it can be repaired with edit_file). notebook_edit (nbedit.py) parses with `parse` too.
Both check the size and the count of JSON values first (`check`): a 60 MB notebook of empty
objects took 1.6 GB to parse."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent.base.record import ToolResult, cap
from agent.base.words import plural
from agent.tools.files.documents.paging import BUDGET, Ask, AsText, finish, fit, size_text, span
from agent.tools.shared.common import ToolError

READ_LIMIT = 64 << 20  # bytes: a larger notebook is not parsed (its images make the most)
# JSON objects, arrays and separators at most, counted in the text before it is parsed (a
# comma inside a string counts too): ~70 bytes of memory each once parsed, at worst
MAX_VALUES = 2_000_000
OUTPUT_CAP = 2_000  # characters of one output shown (its head and tail)
SOURCE_SHOWN = 10_000  # characters of a cell's source shown whole; a longer one only in part
LABEL_CAP = 100  # characters of a cell's type or id in its heading
# CSI sequences (colours, cursor moves) and OSC sequences (hyperlinks, titles)
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
TEXT_MIMES = ("text/plain", "text/markdown")


_HOW = "clear its outputs with bash (`jupyter nbconvert --clear-output`) or read it with jq"


def check_size(size: int, name: str) -> None:
    """ToolError for a notebook of more than READ_LIMIT bytes (before it is read whole)."""
    if size > READ_LIMIT:
        raise ToolError(
            f"{name} is a notebook of {size / (1 << 20):.0f} MB: too large to parse here "
            f"(at most {READ_LIMIT >> 20} MB)",
            can_retry=False,
            hint=_HOW,
        )


def check_values(text: str, name: str) -> None:
    """ToolError for a notebook's text holding more than MAX_VALUES JSON values."""
    values = text.count("{") + text.count("[") + text.count(",")
    if values > MAX_VALUES:
        raise ToolError(
            f"{name} holds over {values:,} JSON values (objects, arrays, items): too many to "
            f"parse here (at most {MAX_VALUES:,})",
            can_retry=False,
            hint=_HOW,
        )


def parse(text: str, name: str) -> dict[str, Any]:
    """The notebook's JSON object; ToolError saying where the JSON breaks."""
    try:
        nb = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ToolError(
            f"{name} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            can_retry=False,
        ) from None
    if not isinstance(nb, dict) or not isinstance(cells_of(nb), list):
        raise ToolError(f"{name} is JSON but not a notebook (no list of cells)", can_retry=False)
    return nb


def cells_of(nb: dict[str, Any]) -> list[Any] | None:
    """The cells (nbformat 4), or those of the first worksheet (nbformat 3)."""
    if "cells" in nb:
        return nb["cells"] if isinstance(nb["cells"], list) else None
    sheets = nb.get("worksheets")
    if isinstance(sheets, list) and sheets and isinstance(sheets[0], dict):
        return sheets[0].get("cells") if isinstance(sheets[0].get("cells"), list) else None
    return None


def joined(value: Any) -> str:
    """nbformat's multiline strings: a string, or a list of lines."""
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return "" if value is None else str(value)


def source_of(cell: dict[str, Any]) -> str:
    return joined(cell.get("source", cell.get("input")))


def plain(text: str) -> str:
    """Terminal output as text: ANSI sequences gone, carriage-return progress bars collapsed."""
    text = _ANSI.sub("", text).replace("\r\n", "\n")
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))


def _clip(text: str) -> str:
    if len(text) <= OUTPUT_CAP:
        return text
    head, tail = OUTPUT_CAP * 2 // 3, OUTPUT_CAP // 3
    return (
        f"{text[:head]}\n[… {len(text) - head - tail:,} characters of output cut …]\n{text[-tail:]}"
    )


def _size(mime: str, value: Any) -> int:
    if isinstance(value, (dict, list)) and mime.endswith("json"):
        return len(json.dumps(value))
    data = joined(value)
    if mime.startswith(("image/", "application/pdf")) and not mime.endswith("svg+xml"):
        b64 = "".join(data.split())
        return len(b64) * 3 // 4 - (len(b64) - len(b64.rstrip("=")))
    return len(data.encode())


def _rich(data: dict[str, Any]) -> list[str]:
    """A display's MIME bundle: its text as text, everything else as a placeholder line."""
    lines = []
    text_mime = next((m for m in TEXT_MIMES if m in data), None)
    for mime, value in data.items():
        if mime != text_mime:
            lines.append(f"[{mime}, {size_text(_size(mime, value))}]")
    if text_mime is not None:
        lines.append(_clip(plain(joined(data[text_mime]))).rstrip("\n"))
    return lines


def _output(out: Any) -> list[str]:
    if not isinstance(out, dict):
        return ["[an output that is not an object]"]
    kind = out.get("output_type", "?")
    if kind == "stream":
        name = out.get("name", "stdout")
        return [f"[{name}]", _clip(plain(joined(out.get("text")))).rstrip("\n")]
    if kind == "error":
        trace = plain("\n".join(joined(t) for t in out.get("traceback") or []))
        head = f"[error: {out.get('ename', '?')}: {plain(str(out.get('evalue', '')))}]"
        return [head, _clip(trace).rstrip("\n")] if trace.strip() else [head]
    data = out.get("data") if isinstance(out.get("data"), dict) else {}
    label = "result" if kind in ("execute_result", "pyout") else kind
    return [f"[{label}]", *_rich(data)] if data else [f"[{label}: no data]"]


def whole_source(index: int, name: str, cells_path: str = ".cells") -> str:
    """How to see cell `index`'s whole source when read_file shows only part of it."""
    field = "source" if cells_path == ".cells" else "input"
    jq = f'{cells_path}[{index}].{field} | if type == "array" then join("") else . end'
    return f"with bash: jq -r '{jq}' {name} > cell{index}.txt, then read_file cell{index}.txt"


def _source(index: int, source: str, name: str, cells_path: str) -> str:
    if len(source) <= SOURCE_SHOWN:
        return source
    head, tail = SOURCE_SHOWN * 2 // 3, SOURCE_SHOWN // 3
    how = whole_source(index, name, cells_path)
    return (
        f"{source[:head]}\n[… {len(source) - head - tail:,} characters of this cell's source "
        f"cut: it is longer than read_file shows; see all of it {how}; notebook_edit will not "
        f"replace this cell …]\n{source[-tail:]}"
    )


def render_cell(index: int, cell: Any, name: str = "FILE", cells_path: str = ".cells") -> str:
    """One cell within BUDGET characters: its source whole up to SOURCE_SHOWN characters (a
    longer one cut, saying how to see it), outputs cut to what room is left."""
    if not isinstance(cell, dict):
        return f"[cell {index} · not an object]"
    kind = str(cell.get("cell_type", "?"))
    head = [f"cell {index}", kind[:LABEL_CAP]]
    if kind == "code":
        count = cell.get("execution_count", cell.get("prompt_number"))
        head.append(f"execution_count {str(count)[:LABEL_CAP]}" if count is not None else "not run")
    if cell.get("id"):
        head.append(f"id {str(cell['id'])[:LABEL_CAP]}")
    source = _source(index, source_of(cell).rstrip("\n"), name, cells_path)
    top = f"[{' · '.join(head)}]\n{source}"
    lines = []
    outputs = cell.get("outputs")
    for out in outputs if isinstance(outputs, list) else []:
        lines += _output(out)
    if isinstance(cell.get("attachments"), dict):
        lines += [f"[attachment {str(k)[:LABEL_CAP]}]" for k in cell["attachments"]]
    if not lines:
        return top
    rest = "\n".join(lines)
    room = max(BUDGET - len(top) - 1, 300)
    return top + "\n" + cap(rest, room, how_to_see_more="(outputs only: the source above is whole)")


def _describe(nb: dict[str, Any], count: int) -> str:
    version = f"{nb.get('nbformat', '?')}.{nb.get('nbformat_minor', 0)}"
    meta = nb.get("metadata")
    spec = meta.get("kernelspec") if isinstance(meta, dict) else None
    spec = spec if isinstance(spec, dict) else {}
    kernel = f", kernel {spec.get('display_name') or spec.get('name')}" if spec else ""
    return f"[Jupyter notebook: {plural(count, 'cell')}, nbformat {version}{kernel}]"


def read(path: Path, ask: Ask) -> ToolResult:
    check_size(path.stat().st_size, ask.name)
    keep = "shown as text; notebook_edit will not change it"
    try:
        text = path.read_bytes().decode("utf-8-sig")  # the bytes go once decoded
    except UnicodeDecodeError:
        raise AsText(f"{ask.name} is not UTF-8: {keep}") from None
    check_values(text, ask.name)
    try:
        nb = parse(text, ask.name)
    except ToolError as exc:
        raise AsText(f"{exc.what}: {keep}") from None
    cells = cells_of(nb) or []
    total = len(cells)
    if total == 0:
        return ToolResult(_describe(nb, 0), display=f"read_file {ask.name} · empty notebook")
    start = ask.offset - 1
    if start >= total:
        raise ToolError(
            f"offset {ask.offset} is past the last cell of {ask.name} ({total} cells)",
            hint="offset counts cells from 1",
        )
    stop = total if ask.limit is None else min(total, start + ask.limit)
    where = ".cells" if "cells" in nb else ".worksheets[0].cells"
    blocks, _ = fit(render_cell(i, cells[i], ask.name, where) for i in range(start, stop))
    last = start + len(blocks) - 1
    note = ""
    if last < total - 1:
        note = (
            f"showed cells {start}-{last} of {total} (numbered from 0); use offset={last + 2} "
            f"to read on from cell {last + 1}"
        )
    body = _describe(nb, total) + "\n\n" + "\n\n".join(blocks)
    whole = start == 0 and last == total - 1
    return finish(body, [note], span(ask.name, "cell", start, last, whole))
