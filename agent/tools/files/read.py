"""read_file (here) plus write_file and edit_file (edits.py): the file tools the model sees."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path
from typing import Any

from agent.base.args import Args, arg
from agent.base.record import RESULT_CAP, Target, Tool, ToolContext, ToolResult, cap, error
from agent.base.words import plural
from agent.tools.files import documents, images
from agent.tools.files.documents.nbedit import NOTEBOOK_EDIT
from agent.tools.files.edits import EDIT_FILE, WRITE_FILE
from agent.tools.files.pages import (
    COLLECT_CAP,
    SIZE_CAP,
    Page,
    Read,
    collect,
    decode_page,
    lines_of,
    read_wide,
)
from agent.tools.shared import agentignore, links, textio, walk
from agent.tools.shared.binkinds import ADVICE, BINARY_EXTENSIONS
from agent.tools.shared.common import ToolError, did_you_mean, guard, resolve, shown
from agent.tools.shared.editor_io import buffer_text
from agent.tools.shared.stamps import stamped, stamps_of

DEFAULT_LIMIT = 2000
MAX_LINE = 2000  # characters kept of one line


def _sniff(path: Path, ctx: ToolContext) -> None:
    """Refuse what cannot be read as text: missing, devices, binary by name (a directory is
    listed before this)."""
    if not path.exists():
        if path.is_symlink():
            raise ToolError(f"{path} is a broken symbolic link", can_retry=False)
        raise ToolError(f"file not found: {path}", can_retry=True, hint=did_you_mean(path, ctx))
    if not stat.S_ISREG(path.stat().st_mode):
        raise ToolError(f"{path} is not a regular file (device, pipe or socket)", can_retry=False)
    kind = BINARY_EXTENSIONS.get(path.suffix.lower().lstrip("."))
    if kind:
        what = f"{path.name} is a binary file ({kind})"
        raise ToolError(what, can_retry=False, hint=ADVICE[kind])


def _cut(line: str) -> str:
    if len(line) <= MAX_LINE:
        return line
    return f"{line[:MAX_LINE]}… [line cut: {len(line)} characters]"


def _read(path: Path, offset: int, limit: int, ctx: ToolContext) -> Read:
    """Read one page of `path` as text lines; returns (lines, page, notes)."""
    _sniff(path, ctx)
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(textio.SNIFF_BYTES)
        bom = textio.sniff_bom(head)
        wide = bom[0] if bom and not bom[0].startswith("utf-8") else textio.sniff_utf16(head)
        if not wide and textio.looks_binary(head):
            raise ToolError(
                f"{path.name} looks binary (NUL bytes in its first 8 KB)",
                can_retry=False,
                hint="inspect it with bash (`file`, `xxd | head`, `strings`) instead",
            )
        if wide:
            f.seek(0)
            lines, page, notes = read_wide(f, size, offset, limit, wide)
            page.size = size
            return lines, page, notes
        page = collect(f, head, size, offset, limit)
    page.size = size
    lines, note, bad = decode_page(page, bom)
    notes = [f"encoding: {note}"] if note else []
    if bad:
        notes.append(f"{bad} undecodable byte sequence(s) shown as U+FFFD")
    return lines, page, notes


def _render(lines: list[str], page: Page, notes: list[str], size: int) -> tuple[str, int]:
    """`cat -n` style output that stops before the result cap, with notes on what is left."""
    budget = RESULT_CAP - 800
    out: list[str] = []
    used = 0
    for i, line in enumerate(lines):
        partial = page.last_cut and i == len(lines) - 1 and len(line) > MAX_LINE
        text = (
            f"{line[:MAX_LINE]}… [line cut: over {len(line)} characters]" if partial else _cut(line)
        )
        row = f"{page.first + i:>6}\t{text}"
        if used + len(row) + 1 > budget and out:
            break
        out.append(row)
        used += len(row) + 1
    shown_to = page.first + len(out) - 1
    cut_short = page.last_cut and len(out) == len(lines)
    if cut_short:
        notes.append(
            f"line {shown_to} goes on beyond the {COLLECT_CAP >> 20} MB read; read_file cannot "
            "show more of one line: use bash (e.g. `head -c`, `cut -c`) for the rest"
        )
    total = page.total
    if total is None:
        notes.append(
            f"file is {size / (1 << 20):.1f} MB, over the {SIZE_CAP >> 20} MB cap: read in part, "
            "total line count unknown; use offset/limit to read further"
        )
    if out and (total is None or shown_to < total):
        left = f" of {total}" if total is not None else ""
        more = f"use offset={shown_to + 1} to read on"
        notes.append(f"showed lines {page.first}-{shown_to}{left}; {more}")
    body = "\n".join(out)
    if notes:
        body += "\n\n" + "\n".join(f"[{n}]" for n in notes)
    return cap(body, how_to_see_more="use offset/limit to read a smaller range"), len(out)


def _directory(path: Path, ctx: ToolContext) -> tuple[str, int]:
    """A directory read: its entries as a search sees them (ignore files honoured); never
    through a symbolic link out of the workspace (links.enter)."""
    links.enter(ctx, path, "read_file")
    hide = agentignore.for_search(Path(ctx.cwd), path)
    return agentignore.listing(walk.Walker(path, []).children(), hide, shown(ctx, path))


class ReadArgs(Args):
    path: str
    offset: int = arg(1, "First line to read (1-based)", minimum=0)  # 0 reads from line 1
    limit: int | None = arg(None, "Number of lines to read", minimum=1)
    sheet: str = arg("", "xlsx sheet")


@guard
async def _run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    a = ReadArgs.parse(args)
    path, offset, given = resolve(ctx, a.path), max(a.offset, 1), a.limit
    limit = given or DEFAULT_LIMIT
    name = shown(ctx, path)
    if await asyncio.to_thread(path.is_dir):  # its entries, one level (offset/limit unused)
        text, count = await asyncio.to_thread(_directory, path, ctx)
        return ToolResult(text, display=f"read_file {name} · {plural(count, 'entry')}")
    if path.suffix.lower() in images.TYPES and await asyncio.to_thread(path.is_file):
        return await asyncio.to_thread(images.read_image, path, ctx, name)
    stamps = stamps_of(ctx)
    before = await asyncio.to_thread(stamps.take, path) if stamps is not None else None
    doc: ToolResult | str = ""  # a document's text, or why it is read as plain text after all
    if documents.handles(path):  # notebooks, PDF, spreadsheets, CSV, Word: in their own units
        await asyncio.to_thread(_sniff, path, ctx)
        ask = documents.Ask(name, offset, given, a.sheet)
        doc = await asyncio.to_thread(documents.read, path, ask)
        if isinstance(doc, ToolResult):
            return stamped(ctx, path, before, doc)
    buffer = await buffer_text(path, ctx) if not doc else None
    if buffer is not None:  # the editor's text: unsaved changes included
        lines, page, notes = lines_of(buffer, offset, limit)
    else:
        lines, page, notes = await asyncio.to_thread(_read, path, offset, limit, ctx)
    notes[:0] = [doc] if isinstance(doc, str) and doc else []
    if stamps is not None:
        stamps.saw(path, before)  # read: it may be edited now (agent.tools.shared.stamps)
    size = page.size
    if not lines:
        if offset == 1 and (size == 0 or page.total == 0):  # or nothing but a BOM
            return ToolResult("[the file is empty]", display=f"read_file {name} · empty")
        known = f" ({page.total} lines)" if page.total is not None else ""
        return error(
            f"offset {offset} is past the end of {name}{known}",
            can_retry=True,
            hint="use a smaller offset",
        )
    text, count = _render(lines, page, notes, size)
    last = page.first + count - 1
    whole = page.first == 1 and page.total is not None and last >= page.total
    span = plural(count, "line") if whole else f"lines {page.first}-{last}"
    return ToolResult(text, display=f"read_file {name} · {span}")


READ_FILE = Tool(
    name="read_file",
    description=(
        f"Read a file: numbered lines (cat -n), up to {DEFAULT_LIMIT} from offset (1-based; limit "
        "for fewer or more). Long lines are cut; encodings detected. Images, PDF, notebooks, "
        "xlsx, csv and docx are read too (offset/limit count pages, cells, rows). A directory "
        "lists its entries."
    ),
    parameters=ReadArgs.schema(),
    run=_run,
    read_only=True,
    kind="read",
    target=Target("file", "path"),
    aliases=("Read",),
)


TOOLS: tuple[Tool, ...] = (READ_FILE, WRITE_FILE, EDIT_FILE, NOTEBOOK_EDIT)
