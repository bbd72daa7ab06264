"""apply_patch: one patch (agent.tools.patch.parse's format), many files, atomically. Every hunk of
every file is checked, and every new text encoded, before the first file is written; a write
that fails midway puts back what was already written. Files keep their encoding, BOM and line
endings (a mixed-ending file takes its main ending); an existing file must have been read in
this session, as for edit_file."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.base.args import ArgError, Args, arg
from agent.base.record import Preview, Target, Tool, ToolContext, ToolResult, cap
from agent.base.words import plural
from agent.permissions.paths import lexical
from agent.tools.patch.parse import FileOp, apply_hunks, parse
from agent.tools.shared import atomic, textio
from agent.tools.shared.common import ToolError, guard, resolve
from agent.tools.shared.current import (
    DIFF_CAP_DISPLAY,
    DIFF_CAP_MODEL,
    Current,
    encoded,
    load,
    printable,
)
from agent.tools.shared.difftext import unified_diff
from agent.tools.shared.stamps import fresh, stamps_of

Place = Callable[[str], Path]  # a path in the patch → where it is


@dataclass
class Change:
    """One file's part of the patch, worked out: where it lands, and what it becomes."""

    shown: str
    path: Path  # where the new text goes (the destination of a move)
    cur: Current  # the file as it is (of the source, for an update or a move)
    new: str | None  # None: deleted
    source: Path | None = None  # a moved file's old place, removed after the write
    moved_from: str = ""  # as the patch names it


def _update(op: FileOp, place: Place) -> Change:
    src = place(op.path)
    if op.move_to and src.is_symlink():
        raise ToolError(f"{op.path} is a symbolic link: move it with bash (git mv)")
    cur = load(src)
    if not cur.exists:
        raise ToolError(
            f"{op.path}: no such file to update", hint="use '*** Add File:' for a new one"
        )
    lf = cur.text.replace("\r\n", "\n")
    new = apply_hunks(op.path, lf, op.hunks) if op.hunks else lf
    new = textio.with_newlines(new, cur.fmt.newline)
    if not op.move_to:
        return Change(op.path, src, cur, new)
    dest = place(op.move_to)
    if dest.exists() and dest != src:
        raise ToolError(f"{op.path}: cannot move to {op.move_to}: it exists")
    return Change(op.move_to, dest, cur, new, source=src, moved_from=op.path)


def _change(op: FileOp, place: Place) -> Change:
    if op.kind == "update":
        return _update(op, place)
    path = place(op.path)
    cur = load(path)
    if op.kind == "add":
        if cur.exists:
            raise ToolError(
                f"{op.path} exists: add creates new files", hint="use '*** Update File:'"
            )
        return Change(op.path, path, cur, op.text)
    if not cur.exists:
        raise ToolError(f"{op.path}: no such file to delete")
    return Change(op.path, path, cur, None)


def plan(patch: str, place: Place) -> list[Change]:
    """Every file's change, all checked (hunks found, texts encodable), or the first problem."""
    changes: list[Change] = []
    touched: set[Path] = set()
    for op in parse(patch):
        change = _change(op, place)
        for p in (change.path, change.source):
            if p in touched:
                raise ToolError(f"the patch changes {change.shown} twice: one section per file")
            if p is not None:
                touched.add(p)
        if change.new is not None:
            encoded(change.cur, change.new)  # a character the file's encoding cannot store
        changes.append(change)
    return changes


def patch_files(patch: str) -> tuple[str, ...]:
    """The paths a patch touches (a move: both), for permissions and checkpoints."""
    try:
        return tuple(p for op in parse(patch) for p in op.paths)
    except ToolError:
        return ()


def _diff(changes: list[Change]) -> str:
    return "".join(unified_diff(c.cur.text, c.new or "", c.shown)[0] for c in changes)


def _entry(path: Path) -> Path:
    """Where the name `path` really is: its folder's real path and its own name (a link there
    is that link, not its target)."""
    return Path(os.path.realpath(path.parent)) / path.name


def _undo(done: list[tuple[Change, str, Path]]) -> None:
    """Put back what `_write_all` did, newest first, every step tried."""
    for c, step, where in reversed(done):
        try:
            if step == "wrote" and (not c.cur.exists or c.source is not None):
                atomic.remove(where)  # an added file, or a move's new place
            else:  # an updated file, or a removed one (deleted, or a move's old place)
                atomic.atomic_write(c.cur.path, c.cur.raw, c.cur.mode)
        except OSError:
            continue


def _write_all(changes: list[Change]) -> None:
    """Write every change; on a failure put back what was written, then re-raise. An update
    writes through a symbolic link to the real file, as edit_file does; every write and
    removal lands on the path the permission gate judged (agent.tools.shared.atomic)."""
    done: list[tuple[Change, str, Path]] = []
    try:
        for c in changes:
            if c.new is not None:
                new_name = c.source is not None or not c.cur.exists
                where = _entry(c.path) if new_name else c.cur.path
                atomic.atomic_write(where, encoded(c.cur, c.new), c.cur.mode)
                done.append((c, "wrote", where))
            gone = c.source if c.new is not None else c.path
            if gone is not None:
                atomic.remove(_entry(gone))
                done.append((c, "removed", gone))
    except OSError:
        _undo(done)
        raise


def _summary(changes: list[Change]) -> str:
    verbs = []
    for c in changes:
        verb = "deleted" if c.new is None else "added" if not c.cur.exists else "updated"
        verbs.append(f"moved {c.moved_from} to {c.shown}" if c.moved_from else f"{verb} {c.shown}")
    return f"Applied the patch to {plural(len(changes), 'file')}: {', '.join(verbs)}"


class PatchArgs(Args):
    patch: str = arg(doc="The whole patch")


@printable
@guard
async def _apply(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    text = PatchArgs.parse(args).patch

    def work() -> ToolResult:
        changes = plan(text, lambda raw: resolve(ctx, raw))
        for c in changes:
            if c.cur.exists:
                fresh(ctx, c.source or c.path)
        _write_all(changes)
        record = stamps_of(ctx)
        for c in changes:
            if c.new is not None and record is not None:
                record.saw(c.path)  # its own write: the next edit needs no read
        summary, diff = _summary(changes), _diff(changes)
        model_diff = cap(diff, DIFF_CAP_MODEL, how_to_see_more="read the files to see them")
        return ToolResult(
            f"{summary}\n{model_diff}".rstrip("\n"),
            display=f"{summary}\n{cap(diff, DIFF_CAP_DISPLAY)}".rstrip("\n"),
        )

    return await asyncio.to_thread(work)


def preview(args: dict[str, Any], root: Path) -> Preview | None:
    """The combined diff of the whole patch, or the error it will end with."""
    try:
        changes = plan(PatchArgs.parse(args).patch, lambda raw: lexical(raw, root))
    except (ToolError, ArgError) as exc:
        why = textio.printable(exc.what.splitlines()[0])
        return Preview(failure=exc.result(), note=f"({why}; the patch will fail)")
    except (OSError, ValueError):
        return None
    return Preview(textio.printable(_diff(changes)))


APPLY_PATCH = Tool(
    name="apply_patch",
    description=(
        "Change several files in one call, atomically: nothing is written unless every part "
        "applies. Format:\n*** Begin Patch\n*** Update File: path\n@@ optional line to find "
        "first\n context line\n-removed line\n+added line\n*** Add File: path\n+new line\n"
        "*** Delete File: path\n*** End Patch\n'*** Move to: new/path' right after an Update "
        "line renames. Copy context and removed lines exactly (when no exact match exists, "
        "whitespace around a line and typographic dashes, quotes and spaces are forgiven); "
        "give 3 lines of context around each change. Existing files must have been read "
        "first; Add File never replaces one."
    ),
    parameters=PatchArgs.schema(),
    run=_apply,
    kind="edit",
    target=Target("files", "patch", files=patch_files),
    preview=preview,
)
