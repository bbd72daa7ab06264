"""write_file and edit_file: atomic writes that keep a file's encoding, BOM and line endings,
verified by reading back, reported as a unified diff.
"""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Any

from agent.base.args import ArgError, Args, arg
from agent.base.record import Execute, Preview, Target, Tool, ToolContext, ToolResult, cap
from agent.base.words import plural
from agent.permissions.paths import lexical
from agent.tools.files.matching import replaced
from agent.tools.files.multiedit import Edit, apply_edits, edit_list, text_of
from agent.tools.shared import atomic, textio
from agent.tools.shared.common import ToolError, did_you_mean, guard, resolve, shown
from agent.tools.shared.current import (
    DIFF_CAP_DISPLAY,
    DIFF_CAP_MODEL,
    PREVIEW_BYTES,
    Current,
    encoded,
    load,
    plain,
    printable,
)
from agent.tools.shared.difftext import unified_diff
from agent.tools.shared.editor_io import editor_of
from agent.tools.shared.stamps import fresh, seen


def commit(ctx: ToolContext, path: Path, cur: Current, new_text: str, verb: str) -> ToolResult:
    """Encode like the original, write atomically, read back, and report a diff."""
    fmt = cur.fmt if cur.exists else textio.TextFormat()
    data = encoded(cur, new_text)
    name = shown(ctx, path)
    if cur.exists and data == cur.raw:
        unchanged = f"No changes: {name} already has this content."
        return ToolResult(unchanged, display=f"{name}: unchanged")
    editor = editor_of(ctx)
    if editor is not None:  # an editor saves the file itself: its folder must be there
        atomic.make_parents(cur.path)
    through = (
        editor is not None and (not cur.exists or plain(cur)) and editor.write(cur.path, new_text)
    )
    if not through:
        atomic.atomic_write(cur.path, data, cur.mode)
    if not through and atomic.read_back(cur.path) != data:
        raise ToolError(
            f"verification failed: {name} on disk differs from what was written", can_retry=False
        )
    diff, added, removed = unified_diff(cur.text, new_text, name)
    lines = new_text.count("\n") + (0 if new_text.endswith("\n") or not new_text else 1)
    if not cur.exists:
        summary = f"Created {name} ({plural(lines, 'line')})"
    else:
        summary = f"{verb} {name}: +{added} -{removed}"
        if fmt.encoding != "utf-8" or fmt.bom or fmt.newline != "\n":
            summary += f" (kept {fmt.label()})"
        if cur.stray:
            kept = sum(1 for ch in new_text if "\udc80" <= ch <= "\udcff")
            if kept:
                summary += f" (kept {kept} non-UTF-8 byte{'s' * (kept > 1)} as they were)"
            if kept < cur.stray:
                gone = cur.stray - kept
                summary += f" ({gone} non-UTF-8 byte{'s' * (gone > 1)} removed with the text)"
    model_diff = cap(diff, DIFF_CAP_MODEL, how_to_see_more="read the file to see the result")
    return ToolResult(
        f"{summary}\n{model_diff}".rstrip("\n"),
        display=f"{summary}\n{cap(diff, DIFF_CAP_DISPLAY)}".rstrip("\n"),
    )


class WriteArgs(Args):
    path: str
    content: str


class EditArgs(Args):
    path: str
    old_string: str | None = None  # required unless `edits` are given
    new_string: str | None = None
    replace_all: bool = False
    edits: tuple[Edit, ...] | None = arg(
        None, "Instead of old_string: several, in order", minimum=1, each="edit"
    )


def plan(
    a: WriteArgs | EditArgs, path: Path, ctx: ToolContext | None = None
) -> tuple[Current, str]:
    """What write_file or edit_file would do to `path`: the file as it is and its new text.
    Raises the ToolError the tool would return. The permission prompt's diff comes from here,
    so it shows exactly what the tool will write (`encoded` is the last check)."""
    if isinstance(a, WriteArgs):
        content = text_of(a.content, "content")
        cur = load(path, ctx)
        if cur.stray and "\ufffd" in content:
            raise ToolError(
                f"{path.name} has {cur.stray} non-UTF-8 byte(s), which read_file shows as "
                "\ufffd; writing this content would replace them with \ufffd characters",
                hint="change the file with edit_file, which keeps those bytes, or fix them "
                "with bash first",
            )
        return cur, textio.with_newlines(content, cur.fmt.newline) if cur.exists else content
    if a.edits is not None:
        return _multi(a, path, ctx)
    old, new = text_of(a.old_string, "old_string"), text_of(a.new_string, "new_string")
    if old == new:
        raise ToolError("old_string and new_string are identical; there is nothing to change")
    cur = load(path, ctx)
    if old == "":
        # An empty old_string creates a missing file (or fills an empty one) with new_string.
        if cur.exists and cur.text:
            raise ToolError(
                f"old_string is empty but {path.name} is not",
                hint="give the exact text to replace, or use write_file to replace the file",
            )
        return cur, new
    if not cur.exists:
        raise ToolError(f"file not found: {path}", hint=did_you_mean(path, ctx) if ctx else "")
    return cur, replaced(path.name, cur.text, cur.fmt.newline, cur.stray, old, new, a.replace_all)


def _multi(a: EditArgs, path: Path, ctx: ToolContext | None) -> tuple[Current, str]:
    """edit_file with `edits`: in order, on one existing file, all or nothing."""
    single = a.old_string is not None or a.new_string is not None
    edits = edit_list(a.edits or (), single)
    cur = load(path, ctx)
    if not cur.exists:
        raise ToolError(f"file not found: {path}", hint=did_you_mean(path, ctx) if ctx else "")
    fmt = cur.fmt
    return cur, apply_edits(path.name, cur.text, fmt.newline, cur.stray, edits)


def _changing(declared: type[WriteArgs] | type[EditArgs], verb: str) -> Execute:
    """write_file or edit_file: the change planned and committed in a worker thread, the file's
    stamp checked before and taken after."""

    @printable
    @guard
    async def run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        a = declared.parse(args)
        path = resolve(ctx, a.path)

        def work() -> ToolResult:
            fresh(ctx, path)
            return seen(ctx, path, commit(ctx, path, *plan(a, path, ctx), verb))

        return await asyncio.to_thread(work)

    return run


_write, _edit = _changing(WriteArgs, "Wrote"), _changing(EditArgs, "Edited")


def preview(name: str, args: dict[str, Any], root: Path) -> Preview | None:
    """What a write_file/edit_file call will do, worked out before it runs the way the tool
    works it out (same decoding, line endings and matching): the diff, or the error it will
    end with; None when the file is too large to check cheaply."""
    try:
        a: WriteArgs | EditArgs = (WriteArgs if name == "write_file" else EditArgs).parse(args)
        path = lexical(a.path, root)
        if path.is_file() and path.stat().st_size > PREVIEW_BYTES:
            return Preview(note=f"({path.name} is too large to preview)")
        cur, new = plan(a, path)
        encoded(cur, new)
    except (ToolError, ArgError) as exc:
        why = textio.printable(exc.what.splitlines()[0])  # a near-miss may quote stray bytes
        note = f"({why}; the {name.removesuffix('_file')} will fail)"
        return Preview(failure=exc.result(), note=note)
    except (OSError, ValueError):
        return None
    shown_name = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
    return Preview(textio.printable(unified_diff(cur.text, new, shown_name)[0]))


WRITE_FILE = Tool(
    name="write_file",
    description=(
        "Write a whole file, creating missing parent directories; an existing file keeps its "
        "encoding, BOM and line endings. Shows a diff. Prefer edit_file to change a file."
    ),
    parameters=WriteArgs.schema(),
    run=_write,
    kind="edit",
    target=Target("file", "path"),
    aliases=("Write",),
    preview=functools.partial(preview, "write_file"),
)

EDIT_FILE = Tool(
    name="edit_file",
    description=(
        "Replace exact text in a file: old_string must match literally (whitespace and "
        "indentation included) and be unique unless replace_all is true. Several changes to one "
        "file: `edits` instead, applied in order, all or nothing. Keeps encoding and line "
        "endings; the result shows a diff. An empty old_string creates a missing file."
    ),
    parameters=EditArgs.schema(),
    run=_edit,
    kind="edit",
    target=Target("file", "path"),
    aliases=("Edit", "MultiEdit"),
    preview=functools.partial(preview, "edit_file"),
)
