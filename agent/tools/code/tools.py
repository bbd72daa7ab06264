"""outline and symbols: code navigation from tree-sitter tags (agent.code), over the files a
search sees (gitignore and the agent's ignore files apply) less the files read_file asks
about first (secrets, protected paths)."""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

from agent.base.args import Args, arg
from agent.base.record import Target, Tool, ToolContext, ToolResult, cap
from agent.base.words import plural
from agent.code.cache import TagCache
from agent.code.index import Index, tags_for
from agent.code.languages import CONTAINERS_ONLY, grammar, lang_of, no_outline
from agent.code.outline import file_outline, folder_outline
from agent.code.tags import Def, FileTags
from agent.tools.code.served import may_show, served
from agent.tools.shared.common import ToolError, did_you_mean, guard, resolve, shown
from agent.tools.shared.listing import indexable_files

TIME_LIMIT = 20.0  # seconds of parsing one call may spend (a cold cache on a huge folder)
REF_LINES = 20  # references shown with their line of code; the rest by line numbers


def _where(ctx: ToolContext, path: Path) -> str:
    if not path.exists():
        raise ToolError(f"path not found: {path}", hint=did_you_mean(path, ctx))
    return shown(ctx, path) if path != Path(ctx.cwd) else "."


async def _index(ctx: ToolContext, folder: Path, needle: bytes = b"") -> Index:
    rels = await indexable_files(ctx, folder)  # never what read_file asks about (`.env.*`)
    deadline = time.monotonic() + TIME_LIMIT
    return await asyncio.to_thread(
        tags_for,
        folder,
        rels,
        TagCache.default(),
        stop=lambda: time.monotonic() > deadline,
        needle=needle,
    )


def _prefixed(where: str, files: dict[str, FileTags]) -> dict[str, FileTags]:
    """Paths as the workspace sees them, so the model can pass them straight to read_file."""
    return files if where == "." else {f"{where}/{rel}": t for rel, t in files.items()}


class OutlineArgs(Args, list_required=True):
    path: str = arg(".", "A file or folder (default: the workspace)")


@guard
async def _outline(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    path = resolve(ctx, OutlineArgs.parse(args).path)
    where = _where(ctx, path)
    if path.is_dir():
        index = await _index(ctx, path)
        files = _prefixed(where, index.files)
        text = folder_outline(where, files, index.no_grammar, index.left)
        if index.refused:  # hostile or huge files: each named with the limit it hit
            text += f"\n[{index.refused_note(where)}]"
        defs = sum(len(t.defs) for t in files.values())
        summary = f"{plural(len(files), 'file')}, {plural(defs, 'definition')}"
        return ToolResult(cap(text), display=f"outline {where} · {summary}")
    lang = lang_of(path.name)
    if lang is None or grammar(lang) is None:
        ext = os.path.splitext(path.name)[1]
        raise ToolError(no_outline(ext), can_retry=False, hint="read_file shows any text file")
    # the file itself, through a link the gate judged (the indexer reads regular files only)
    real = await asyncio.to_thread(path.resolve)
    index = await asyncio.to_thread(tags_for, real.parent, [real.name], TagCache.default())
    tags = index.files.get(real.name)
    if real.name in index.refused:
        raise ToolError(
            f"{where} was not outlined: {index.refused[real.name]}",
            can_retry=False,
            hint="use grep to find what you need in it, and read_file a range",
        )
    if tags is None:
        raise ToolError(
            f"{where} is not a source file outline can read (binary, or not readable)",
            can_retry=False,
            hint="use grep to find what you need in it",
        )
    display = f"outline {where} · {plural(len(tags.defs), 'definition')}"
    return ToolResult(cap(file_outline(where, tags)), display=display)


def _parent(tags: FileTags, i: int) -> Def | None:
    d = tags.defs[i]
    for j in range(i - 1, -1, -1):
        if tags.defs[j].depth < d.depth:
            return tags.defs[j]
    return None


def _definitions(files: dict[str, FileTags], name: str, owner: str) -> list[tuple[str, Def]]:
    """Where `name` is defined (in `owner`, a class or module, when given), top level first."""
    found = []
    for rel, tags in files.items():
        for i, d in enumerate(tags.defs):
            if d.name != name or d.kind in CONTAINERS_ONLY:
                continue
            parent = _parent(tags, i)
            if owner and (parent is None or parent.name != owner):
                continue
            found.append((rel, d))
    return sorted(found, key=lambda t: (t[1].depth, t[0], t[1].line))


def _line_texts(base: Path, rel: str, lines: tuple[int, ...]) -> dict[int, str]:
    wanted = set(lines)
    out: dict[int, str] = {}
    try:
        with open(base / rel, "rb") as f:
            for n, raw in enumerate(f, 1):
                if n in wanted:
                    out[n] = raw.decode("utf-8", "replace").strip()[:200]
                    if len(out) == len(wanted):
                        break
    except OSError:
        pass
    return out


def _references(base: Path, where: str, files: dict[str, FileTags], name: str) -> list[str]:
    """Files using `name`, the most uses first: lines with their code, then line numbers."""
    users = sorted(
        ((rel, t.refs[name]) for rel, t in files.items() if name in t.refs),
        key=lambda u: (-len(u[1]), u[0]),
    )
    rows: list[str] = []
    shown_lines = 0
    for rel, lines in users:
        label = rel if where == "." else f"{where}/{rel}"
        room = REF_LINES - shown_lines
        head, rest = lines[:room], lines[room:]
        if head:
            texts = _line_texts(base, rel, head)
            rows += [f"{label}:{n}: {texts.get(n, '')}" for n in head]
            shown_lines += len(head)
        if rest:
            more = ", ".join(map(str, rest[:30])) + (" …" if len(rest) > 30 else "")
            rows.append(f"{label}: {'also ' if head else ''}lines {more}")
    return rows


class SymbolsArgs(Args):
    name: str = arg(doc="A function, class, method or type name")
    path: str = arg(".", "Folder to search (default: workspace)")
    at: str = arg("", "file:line where name is used: what it resolves to there (types, imports)")


@guard
async def _symbols(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    a = SymbolsArgs.parse(args)
    query = a.name.strip()
    owner, _, name = query.rpartition(".")
    if not name or not name.replace("_", "a").replace("$", "a").isalnum():
        raise ToolError(
            f"name must be an identifier like parse_config or Config.load, not {query!r}",
            hint="for text or patterns use grep",
        )
    if a.at and (found := await _served_at(ctx, a.at, name)) is not None:
        return found
    folder = resolve(ctx, a.path)
    where = _where(ctx, folder)
    if not folder.is_dir():
        raise ToolError(f"{where} is not a folder", hint="give the folder to search, or omit path")
    index = await _index(ctx, folder, needle=name.encode())
    defs = _definitions(index.files, name, owner)
    server = await served(ctx, folder / defs[0][0], defs[0][1].line, name) if defs else None
    refs = server.rows() if server else _references(folder, where, index.files, name)
    uses = sum(len(t.refs[name]) for t in index.files.values() if name in t.refs)
    users = sum(1 for t in index.files.values() if name in t.refs)
    head = [f"Definitions of {query} ({len(defs)}):"]
    head += [f"{p if where == '.' else where + '/' + p}:{d.line}-{d.end}  {d.sig}" for p, d in defs]
    if not defs:
        head.append("(none found in files with a grammar)")
    others = len(_definitions(index.files, name, "")) - len(defs) if owner else 0
    by_name = (
        f"; by name: {plural(others, 'other definition')} of {name} share them" if others else ""
    )
    if server is None:
        head.append(
            f"References to {name} ({plural(uses, 'line')} in {plural(users, 'file')}{by_name}):"
        )
    notes = []
    if index.left:
        notes.append(f"[{plural(index.left, 'file')} not read in time: narrow path]")
    if index.refused:
        notes.append(f"[{index.refused_note(where)}; grep covers them]")
    langs = Counter({e: n for e, n in index.no_grammar.items() if e})
    if langs:
        kinds = ", ".join(f"{e} {n}" for e, n in langs.most_common(5))
        notes.append(f"[not searched, no grammar: {kinds}; grep covers them]")
    text = "\n".join([*head, *refs, *notes])
    display = f"symbols {query} · {plural(len(defs), 'definition')}, {plural(uses, 'use')}"
    return ToolResult(cap(text, how_to_see_more="narrow path"), display=display)


async def _served_at(ctx: ToolContext, at: str, name: str) -> ToolResult | None:
    """`name` where it is used (`file:line`), through a language server; None: none runs."""
    file, _, line = at.rpartition(":")
    if not file or not line.isdigit():
        raise ToolError(f"at must be file:line, like src/app.py:42, not {at!r}")
    path = resolve(ctx, file)
    if not path.is_file() or not may_show(ctx, path):
        raise ToolError(f"{file} is not a file of the workspace read_file reads unasked")
    found = await served(ctx, path, int(line), name)
    if found is None:
        return None
    rows = [f"{name} at {at} resolves to (language server {found.server}):"]
    rows += found.definitions or ["(nothing: not resolved)"]
    text = "\n".join([*rows, *found.rows()])
    display = f"symbols {name} at {at} · {plural(found.total, 'reference')} ({found.server})"
    return ToolResult(cap(text, how_to_see_more="narrow path"), display=display)


OUTLINE = Tool(
    name="outline",
    description=(
        "Definitions (classes, functions, methods, types) in a source file or folder, with "
        "line ranges and signatures, nested: then read_file just the range you need."
    ),
    parameters=OutlineArgs.schema(),
    run=_outline,
    read_only=True,
    kind="read",
    target=Target("folder", "path", default="."),
)

SYMBOLS = Tool(
    name="symbols",
    description=(
        "Where a name is defined (line ranges) and used (lines of code) across the project, "
        "with its type from a language server where one runs. `name`: an identifier, or "
        "Owner.name for one class's method; `at`: a use's file:line, to resolve that use."
    ),
    parameters=SymbolsArgs.schema(),
    run=_symbols,
    read_only=True,
    kind="read",
    target=Target("folder", "path", default="."),
)

TOOLS: tuple[Tool, ...] = (OUTLINE, SYMBOLS)
