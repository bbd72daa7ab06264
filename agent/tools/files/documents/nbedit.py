"""notebook_edit: replace, insert or delete one cell of a Jupyter notebook, by index or id.

The rest of the file stays as it was: metadata, nbformat version, key order, the JSON
indentation (nbformat's is one space), escaping and the trailing newline are found in the file
and kept; the edited cell's outputs and execution count are cleared. Like edit_file it is an
edit (permission gate, checkpoints for /rewind, a diff of the cell in the prompt), refuses a
notebook not read in this session or changed since, and writes atomically. A file that is not
valid JSON is refused, never "repaired"."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agent.base.args import ArgError, Args, arg, needed
from agent.base.record import Preview, Target, Tool, ToolContext, ToolResult, cap
from agent.permissions.paths import lexical
from agent.tools.files.documents import notebook
from agent.tools.files.documents.nbstyle import Style, json_style
from agent.tools.files.documents.notebook import SOURCE_SHOWN, parse, source_of, whole_source
from agent.tools.shared import atomic, textio
from agent.tools.shared.common import ToolError, guard, resolve, shown
from agent.tools.shared.current import (
    DIFF_CAP_DISPLAY,
    DIFF_CAP_MODEL,
    PREVIEW_BYTES,
    Current,
    encoded,
    load,
    printable,
)
from agent.tools.shared.difftext import unified_diff
from agent.tools.shared.stamps import fresh, seen


class NotebookArgs(Args):
    path: str
    cell_id: str = ""
    index: int | None = arg(None, minimum=0)
    new_source: str | None = None  # required to insert or replace
    cell_type: Literal["code", "markdown", "raw"] | None = None
    edit_mode: Literal["replace", "insert", "delete"] = "replace"


@dataclass
class Change:
    """One cell edit, worked out: the file as it is, its new text, and the cell's two sources."""

    cur: Current
    new_text: str
    index: int
    kind: str  # the cell type after the edit (before it, for a delete)
    verb: str
    old_source: str
    new_source: str
    note: str = ""  # formatting the file had that could not be kept


def _cell_at(cells: list[Any], a: NotebookArgs) -> int | None:
    """The index `cell_id` or `index` names (None: neither given)."""
    cell_id, index, mode = a.cell_id, a.index, a.edit_mode
    if cell_id:
        ids = [c.get("id") if isinstance(c, dict) else None for c in cells]
        if cell_id not in ids:
            known = ", ".join(str(i) for i in ids[:20] if i) or "none (use index)"
            raise ToolError(f"no cell has id {cell_id!r}", hint=f"cell ids: {known}")
        at = ids.index(cell_id)
        if index is not None and index != at + (mode == "insert"):
            raise ToolError(f"cell_id {cell_id!r} is cell {at}, not {index}: give one of the two")
        return at + 1 if mode == "insert" else at
    if index is None:
        return None
    top = len(cells) if mode == "insert" else len(cells) - 1
    if index > top:
        raise ToolError(f"index {index} is out of range: the notebook has {len(cells)} cells")
    return index


def _new_cell(kind: str, source: str, like: Any, nb: dict[str, Any], cells: list[Any]) -> Any:
    """A cell of `kind` as the notebook stores them (list or string source, an id when its
    version has them), with no outputs."""
    as_list = isinstance(like.get("source"), list) if isinstance(like, dict) else True
    cell: dict[str, Any] = {"cell_type": kind}
    if kind == "code":
        cell["execution_count"] = None
    minor = nb.get("nbformat_minor")
    wants_id = (isinstance(minor, int) and minor >= 5) or any(
        isinstance(c, dict) and "id" in c for c in cells
    )
    if wants_id:
        taken = {c.get("id") for c in cells if isinstance(c, dict)}
        cell["id"] = next(h for h in iter(lambda: secrets.token_hex(4), "") if h not in taken)
    cell["metadata"] = {}
    if kind == "code":
        cell["outputs"] = []
    cell["source"] = source.splitlines(keepends=True) if as_list else source
    return cell


def _replaced(old: dict[str, Any], kind: str, new: dict[str, Any]) -> dict[str, Any]:
    """`old` with a new source (and type): other keys kept in place, outputs cleared."""
    if kind == old.get("cell_type"):
        cell = dict(old)
        cell["source"] = new["source"]
        if kind == "code":
            cell["outputs"], cell["execution_count"] = [], None
        return cell
    for key in ("id", "metadata", "attachments"):
        if key in old and (key != "attachments" or kind != "code"):
            new[key] = old[key]
    return {k: new[k] for k in sorted(new)}


def plan(a: NotebookArgs, path: Path) -> Change:
    """What the call will do to the notebook at `path`; ToolError for what it must refuse."""
    notebook.check_size(path.stat().st_size if path.is_file() else 0, path.name)  # not read yet
    cur = load(path)
    if not cur.exists:
        raise ToolError(f"notebook not found: {path}", hint="create a notebook with write_file")
    text = cur.text.replace("\r\n", "\n")
    notebook.check_values(text, path.name)
    try:
        nb = parse(text, path.name)
    except ToolError as exc:
        raise ToolError(
            f"{exc.what}; notebook_edit will not rewrite a broken notebook",
            can_retry=False,
            hint="repair the JSON with edit_file first (read_file shows it as text)",
        ) from None
    if nb.get("nbformat") != 4 or not isinstance(nb.get("cells"), list):
        raise ToolError(
            f"{path.name} is nbformat {nb.get('nbformat')}: notebook_edit edits nbformat 4",
            can_retry=False,
            hint="upgrade it with bash: jupyter nbconvert --to notebook --inplace FILE",
        )
    style, note = json_style(text, nb)
    cells: list[Any] = nb["cells"]
    at = _cell_at(cells, a)
    if a.edit_mode == "replace" and at is not None and isinstance(cells[at], dict):
        _seen_whole(at, source_of(cells[at]), path.name)
    return _apply(a, cur, nb, cells, at, style, note)


def _seen_whole(at: int, source: str, name: str) -> None:
    """Refuse to replace a cell read_file shows only in part: a rewrite from a partial view
    would lose what was not seen."""
    if len(source.rstrip("\n")) <= SOURCE_SHOWN:
        return
    raise ToolError(
        f"cell {at}'s source is {len(source):,} characters, more than read_file shows whole "
        f"({SOURCE_SHOWN:,}): it was seen only in part, so notebook_edit will not replace it",
        can_retry=False,
        hint=f"see all of it {whole_source(at, name)}; then change it with a short Python script "
        "in bash (json.load the notebook, set cells[N]['source'], json.dump with indent=1), "
        "or, to rewrite it whole, delete the cell and insert the new source at the same index",
    )


def _apply(
    a: NotebookArgs,
    cur: Current,
    nb: dict[str, Any],
    cells: list[Any],
    at: int | None,
    style: Style,
    note: str,
) -> Change:
    kind: str = a.cell_type or ""
    if a.edit_mode == "insert":
        at = len(cells) if at is None else at
        source = needed(a.new_source, "new_source")
        like = cells[min(at, len(cells) - 1)] if cells else None
        cells.insert(at, _new_cell(kind or "code", source, like, nb, cells))
        old_source, verb = "", "Inserted"
    else:
        if at is None:
            raise ToolError(f"{a.edit_mode} needs cell_id or index to say which cell")
        old = cells[at] if isinstance(cells[at], dict) else {}
        old_source = source_of(old)
        if a.edit_mode == "delete":
            del cells[at]
            source, verb, kind = "", "Deleted", str(old.get("cell_type", "?"))
        else:
            source = needed(a.new_source, "new_source")
            kind = kind or str(old.get("cell_type", "code"))
            cells[at] = _replaced(old, kind, _new_cell(kind, source, old, nb, []))
            verb = "Replaced"
    new_text = textio.with_newlines(style.dump(nb), cur.fmt.newline)  # encoded() adds a BOM
    return Change(cur, new_text, at, kind or "code", verb, old_source, source, note)


def _diff(change: Change, name: str) -> tuple[str, int, int]:
    """The cell's source before and after (a source's missing last newline is no change)."""

    def ended(text: str) -> str:
        return text if not text or text.endswith("\n") else text + "\n"

    label = f"{name} cell {change.index}"
    return unified_diff(ended(change.old_source), ended(change.new_source), label)


@printable
@guard
async def _run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    a = NotebookArgs.parse(args)
    path = resolve(ctx, a.path)

    def work() -> ToolResult:
        fresh(ctx, path)
        change = plan(a, path)
        data = encoded(change.cur, change.new_text)
        name = shown(ctx, path)
        if data == change.cur.raw:
            return ToolResult(
                f"No changes: {name} already has this cell.", display=f"{name}: unchanged"
            )
        atomic.atomic_write(change.cur.path, data, change.cur.mode)
        if atomic.read_back(change.cur.path) != data:  # as written: no link followed
            raise ToolError(f"verification failed: {name} on disk differs from what was written")
        diff, added, removed = _diff(change, name)
        kind = change.kind + ("; outputs cleared" if change.kind == "code" else "")
        kind = change.kind if change.verb == "Deleted" else kind
        summary = f"{change.verb} cell {change.index} ({kind}) in {name}: "
        summary += f"+{added} -{removed}" + (f"\n[{change.note}]" if change.note else "")
        model = cap(diff, DIFF_CAP_MODEL, how_to_see_more="read the notebook to see the result")
        result = ToolResult(
            f"{summary}\n{model}".rstrip("\n"),
            display=f"{summary}\n{cap(diff, DIFF_CAP_DISPLAY)}".rstrip("\n"),
        )
        return seen(ctx, path, result)

    return await asyncio.to_thread(work)


def preview(args: dict[str, Any], root: Path) -> Preview | None:
    """The cell's diff for the permission prompt, or the error the call will end with."""
    try:
        a = NotebookArgs.parse(args)
        path = lexical(a.path, root)
        if path.is_file() and path.stat().st_size > PREVIEW_BYTES * 8:
            return Preview(note=f"({path.name} is too large to preview)")
        change = plan(a, path)
        encoded(change.cur, change.new_text)
    except (ToolError, ArgError) as exc:
        why = textio.printable(exc.what.splitlines()[0])
        return Preview(failure=exc.result(), note=f"({why}; the edit will fail)")
    except (OSError, ValueError):
        return None
    name = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
    return Preview(textio.printable(_diff(change, name)[0]))


NOTEBOOK_EDIT = Tool(
    name="notebook_edit",
    description=(
        "Replace, insert or delete a Jupyter notebook cell, by cell_id or 0-based index "
        "(insert: at index, or after cell_id; default: at the end). Clears the cell's outputs."
    ),
    parameters=NotebookArgs.schema(),
    run=_run,
    kind="edit",
    target=Target("file", "path"),
    aliases=("NotebookEdit",),
    preview=preview,
    rare=True,  # few projects have notebooks: it waits behind tool_search
)
