"""write_file and edit_file: atomic writes that keep a file's encoding, BOM and line endings,
verified by reading back, reported as a unified diff.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent.tools import Run, Tool, ToolContext, ToolResult, cap, textio
from agent.tools.common import ToolError, bool_arg, did_you_mean, guard, resolve, shown, str_arg
from agent.tools.textio import unified_diff  # also used by agent.asking's previews

DIFF_CAP_MODEL = 4000  # diff characters sent to the model; the terminal gets more
DIFF_CAP_DISPLAY = 60_000


@dataclass
class Current:
    """A file as it is on disk before a write."""

    path: Path  # the real path (symlinks resolved) that will be replaced
    exists: bool
    raw: bytes = b""
    text: str = ""
    fmt: textio.TextFormat = field(default_factory=textio.TextFormat)
    mode: int | None = None
    stray: int = 0  # undecodable bytes of UTF-8 text, kept as surrogate escapes

    @property
    def errors(self) -> str:
        return "surrogateescape" if self.stray else "strict"


def load(path: Path) -> Current:
    """The current file, refusing what must not be rewritten as text."""
    real = Path(os.path.realpath(path))
    if real.is_dir():
        raise ToolError(f"{path} is a directory", can_retry=False)
    if not real.exists():
        return Current(real, exists=False)
    st = real.stat()
    if not stat.S_ISREG(st.st_mode):
        raise ToolError(f"{path} is not a regular file", can_retry=False)
    raw = real.read_bytes()
    if textio.looks_binary(raw[: textio.SNIFF_BYTES]):
        raise ToolError(
            f"{path.name} is a binary file; refusing to rewrite it as text",
            can_retry=False,
            hint="change binary files with bash",
        )
    text, fmt, bad = textio.decode(raw)
    stray = 0
    if bad and fmt.encoding == "utf-8" and not fmt.fallback:
        # UTF-8 with a few stray bytes (a Latin-1 é in a comment): keep them as surrogate
        # escapes, written back byte-for-byte; only the edited region changes.
        text = textio.decode_escaped(raw, fmt)
        stray = sum(1 for ch in text if "\udc80" <= ch <= "\udcff")
    if textio.encode(text, fmt, "surrogateescape" if stray else "strict") != raw:
        # Bytes that do not survive decode+encode would be silently corrupted by a rewrite.
        raise ToolError(
            f"{path.name} is not cleanly decodable as {fmt.describe()}; a rewrite would corrupt it",
            can_retry=False,
            hint="fix or convert the file with bash (e.g. iconv) first",
        )
    return Current(real, True, raw, text, fmt, stat.S_IMODE(st.st_mode), stray)


def encoded(cur: Current, new_text: str) -> bytes:
    """The new text in the file's own encoding, BOM and stray bytes."""
    fmt = cur.fmt if cur.exists else textio.TextFormat()
    try:
        return textio.encode(new_text, fmt, cur.errors)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise ToolError(
            f"the new text has characters that {fmt.encoding} cannot store: {bad!r}",
            hint="use characters the file's encoding supports, or convert the file to UTF-8 "
            "with bash (iconv) first",
        ) from None


def commit(ctx: ToolContext, path: Path, cur: Current, new_text: str, verb: str) -> ToolResult:
    """Encode like the original, write atomically, read back, and report a diff."""
    fmt = cur.fmt if cur.exists else textio.TextFormat()
    data = encoded(cur, new_text)
    name = shown(ctx, path)
    if cur.exists and data == cur.raw:
        unchanged = f"No changes: {name} already has this content."
        return ToolResult(unchanged, display=f"{name}: unchanged")
    cur.path.parent.mkdir(parents=True, exist_ok=True)
    textio.atomic_write(cur.path, data, cur.mode)
    if cur.path.read_bytes() != data:
        raise ToolError(
            f"verification failed: {name} on disk differs from what was written", can_retry=False
        )
    diff, added, removed = unified_diff(cur.text, new_text, name)
    lines = new_text.count("\n") + (0 if new_text.endswith("\n") or not new_text else 1)
    if not cur.exists:
        summary = f"Created {name} ({lines} lines)"
    else:
        summary = f"{verb} {name}: +{added} -{removed}"
        if fmt.encoding != "utf-8" or fmt.bom or fmt.newline != "\n":
            summary += f" (kept {fmt.label()})"
        if cur.stray:
            summary += f" (kept {cur.stray} non-UTF-8 byte{'s' * (cur.stray > 1)} as they were)"
    model_diff = cap(diff, DIFF_CAP_MODEL, how_to_see_more="read the file to see the result")
    return ToolResult(
        f"{summary}\n{model_diff}".rstrip("\n"),
        display=f"{summary}\n{cap(diff, DIFF_CAP_DISPLAY)}".rstrip("\n"),
    )


def printable(fn: Run) -> Run:
    """No lone surrogates in a result (a file's stray bytes in a diff or a near-miss snippet,
    an odd file name): they cannot be encoded as UTF-8 or JSON. They show as U+FFFD."""

    @functools.wraps(fn)
    async def run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        result = await fn(args, ctx)
        display = None if result.display is None else textio.printable(result.display)
        return replace(result, output=textio.printable(result.output), display=display)

    return run


def _text_arg(args: dict[str, Any], name: str) -> str:
    """A text argument without lone surrogates: written with surrogateescape, one would
    become a raw byte in the file."""
    value = str_arg(args, name)
    if textio.has_surrogates(value):
        raise ToolError(f"{name} contains a lone surrogate (\\ud800-\\udfff), which is not text")
    return value


def plan(
    name: str, args: dict[str, Any], path: Path, ctx: ToolContext | None = None
) -> tuple[Current, str]:
    """What write_file or edit_file would do to `path`: the file as it is and its new text.
    Raises the ToolError the tool would return. The permission prompt's diff comes from here,
    so it shows exactly what the tool will write (`encoded` is the last check)."""
    if name == "write_file":
        content = _text_arg(args, "content")
        cur = load(path)
        return cur, textio.with_newlines(content, cur.fmt.newline) if cur.exists else content
    old, new = _text_arg(args, "old_string"), _text_arg(args, "new_string")
    if old == new:
        raise ToolError("old_string and new_string are identical; there is nothing to change")
    cur = load(path)
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
    return cur, _plan_edit(path, old, new, bool_arg(args, "replace_all"), cur)


@printable
@guard
async def _write(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    path = resolve(ctx, str_arg(args, "path"))

    def work() -> ToolResult:
        return commit(ctx, path, *plan("write_file", args, path), "Wrote")

    return await asyncio.to_thread(work)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _adapt(text: str, old: str, new: str, newline: str) -> tuple[str, str]:
    """old/new in the file's line endings (the model usually sends LF for a CRLF file).

    `new` keeps its own endings only when `old` matched a line break as the model wrote it
    (a region of a mixed-ending file); otherwise it takes the file's."""
    for candidate in (textio.with_newlines(old, newline), old):
        if candidate in text:
            as_written = candidate == old and "\n" in old
            return candidate, new if as_written else textio.with_newlines(new, newline)
    return old, new


def near_miss(text: str, old: str) -> str:
    """Where old_string almost matches: ignoring whitespace, else the most similar line."""
    squash = re.compile(r"\s+")
    target = squash.sub("", old)
    if target and len(text) <= 20 << 20:
        where = squash.sub("", text).find(target)
        if where >= 0:
            # Walk non-space runs to map the squashed offset back to a real position.
            seen = 0
            for run in re.finditer(r"\S+", text):
                if seen + len(run.group()) > where:
                    line = _line_of(text, run.start() + where - seen)
                    span = old.count("\n") + 1
                    snippet = "\n".join(text.splitlines()[line - 1 : line - 1 + span])
                    return (
                        f"a whitespace-insensitive match exists at line {line} (the whitespace or "
                        f"indentation differs):\n{snippet[:1500]}"
                    )
                seen += len(run.group())
    import difflib

    first = next((ln.strip() for ln in old.splitlines() if ln.strip()), "")
    lines = [ln.strip() for ln in text.splitlines()[:50_000]]
    close = difflib.get_close_matches(first, lines, n=1, cutoff=0.6) if first else []
    if close:
        line = lines.index(close[0]) + 1
        return f"the most similar line is line {line}: {close[0][:300]}"
    return "nothing similar found"


def _plan_edit(path: Path, old: str, new: str, replace_all: bool, cur: Current) -> str:
    """The file's new text, or a ToolError saying exactly why the edit cannot apply."""
    name = path.name
    old, new = _adapt(cur.text, old, new, cur.fmt.newline)
    count = cur.text.count(old)
    if count == 0:
        hint = "read the file again and copy old_string exactly (indentation, line breaks)"
        if cur.stray and "\ufffd" in old:
            hint = (
                f"{name} has non-UTF-8 bytes, shown as \ufffd, that old_string cannot match: "
                "choose old_string around them, or fix them with bash"
            )
        raise ToolError(f"old_string not found in {name}; {near_miss(cur.text, old)}", hint=hint)
    if count > 1 and not replace_all:
        spots, pos = [], -1
        for _ in range(min(count, 10)):
            pos = cur.text.find(old, pos + 1)
            spots.append(str(_line_of(cur.text, pos)))
        raise ToolError(
            f"old_string matches {count} times in {name} (lines {', '.join(spots)})",
            hint="add surrounding lines to old_string to make it unique, or set replace_all=true",
        )
    # str.replace is literal: no regex, no `$&`/backreference expansion in new_string.
    return cur.text.replace(old, new) if replace_all else cur.text.replace(old, new, 1)


@printable
@guard
async def _edit(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    path = resolve(ctx, str_arg(args, "path"))

    def work() -> ToolResult:
        return commit(ctx, path, *plan("edit_file", args, path, ctx), "Edited")

    return await asyncio.to_thread(work)


_PATH = {"type": "string", "description": "File path, relative to the workspace"}

WRITE_FILE = Tool(
    name="write_file",
    description=(
        "Write a whole file (created with its parent directories if missing). An existing file "
        "keeps its encoding, BOM and line endings. The result shows a diff. Prefer edit_file for "
        "changes to existing files."
    ),
    parameters={
        "type": "object",
        "properties": {"path": _PATH, "content": {"type": "string", "description": "Full text"}},
        "required": ["path", "content"],
        "additionalProperties": False,
    },
    run=_write,
)

EDIT_FILE = Tool(
    name="edit_file",
    description=(
        "Replace exact text in a file: old_string must match literally (whitespace and "
        "indentation included) and be unique unless replace_all is true. new_string is inserted "
        "literally. Keeps encoding and line endings; the result shows a diff. An empty "
        "old_string creates a missing file with new_string."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": _PATH,
            "old_string": {"type": "string", "description": "Exact text to replace"},
            "new_string": {"type": "string", "description": "Replacement text"},
            "replace_all": {"type": "boolean", "description": "Replace every occurrence"},
        },
        "required": ["path", "old_string", "new_string"],
        "additionalProperties": False,
    },
    run=_edit,
)
