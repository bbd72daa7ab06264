"""glob and grep: gitignore-aware search, ripgrep-backed with a pure-Python fallback."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.paths import names_protected
from agent.tools import Tool, ToolContext, ToolResult, cap, pygrep, walk
from agent.tools.common import ToolError, bool_arg, guard, int_arg, resolve, shown, str_arg
from agent.tools.pygrep import FileHits

GLOB_CAP = 200
CAPS = {"files": 200, "content": 500, "count": 200}
LINE_CUT = 500  # characters of one matching line shown
_MAGIC = re.compile(r"[*?\[\]{}()!@+]")
_NARROW = walk.NARROW


def _use_rg(ctx: ToolContext) -> str | None:
    """The ripgrep binary to use, or None for the Python fallback (ctx.extra can force it)."""
    backend = ctx.extra.get("search_backend")
    return None if backend == "python" else walk.find_rg()


async def grep_hits(
    ctx: ToolContext, root: Path, query: pygrep.Query, glob: str
) -> tuple[list[FileHits], bool]:
    """Search `root` (a directory or one file) with ripgrep or the fallback; sorted by path."""
    rg = _use_rg(ctx)
    single = await asyncio.to_thread(root.is_file)
    base = root.parent if single else root
    if rg:
        flags = {"files": ["-l"], "count": ["-c"], "content": ["-n", "--no-heading"]}[query.mode]
        if query.mode == "content" and query.context:
            flags += ["-C", str(query.context)]
        if query.ignore_case:
            flags.append("-i")
        target = root.name if single else "./"
        args = [
            *walk.rg_base_args(root, [glob] if glob else []),
            "--null",
            "--no-messages",
            "--with-filename",
        ]
        out, cut = await walk.run_rg(rg, [*args, *flags, "-e", query.pattern, "--", target], base)
        hits = walk.parse_rg(out, query.mode)
    else:
        cut = False

        def fallback() -> list[FileHits]:
            rels = (
                [root.name] if single else list(walk.Walker(root, [glob] if glob else []).files())
            )
            return pygrep.search_files(base, rels, query)

        hits = await asyncio.to_thread(fallback)
    return sorted(hits, key=lambda h: h.path), cut


def _content_rows(hits: list[FileHits], context: int, limit: int) -> list[str]:
    """ripgrep's layout: `path:n:text` matches, `path-n-text` context, `--` between groups;
    only the first `limit` lines are formatted."""
    rows: list[str] = []
    shown = 0
    for h in hits:
        previous = None
        for number, is_match, text in h.lines:
            if shown == limit:
                return rows
            if context and rows and (previous is None or number != previous + 1):
                rows.append("--")
            if len(text) > LINE_CUT:
                text = text[:LINE_CUT] + f"… [{len(text)} chars]"
            mark = ":" if is_match else "-"
            rows.append(f"{h.path}{mark}{number}{mark}{text}")
            previous = number
            shown += 1
    return rows


def render_grep(
    hits: list[FileHits], query: pygrep.Query, head_limit: int | None, cut: bool
) -> str:
    mode = query.mode
    limit = head_limit or CAPS[mode]
    matches = sum(h.count for h in hits)
    if mode == "files":
        header, total = f"Found {len(hits)} files", len(hits)
        rows = [h.path for h in hits[:limit]]
    elif mode == "count":
        header, total = f"{matches} matching lines in {len(hits)} files", len(hits)
        rows = [f"{h.path}:{h.count}" for h in hits[:limit]]
    else:
        header = f"Found {matches} matching lines in {len(hits)} files"
        total = sum(len(h.lines) for h in hits)
        rows = _content_rows(hits, query.context, limit)
    if total > limit:
        header += f" (showing the first {limit}; {total - limit} more — {_NARROW})"
    if cut:
        header += " [output was cut short: too many matches; counts are incomplete]"
    return cap("\n".join([header, *rows]), how_to_see_more=_NARROW)


@guard
async def _grep(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    pattern = str_arg(args, "pattern")
    root = resolve(ctx, str_arg(args, "path", required=False, default="."))
    mode = str_arg(args, "output_mode", required=False, default="files")
    mode = {"files_with_matches": "files", "file": "files"}.get(mode, mode)
    if mode not in CAPS:
        raise ToolError(f"output_mode must be files, content or count, not {mode!r}")
    context = int_arg(args, "context", None) or int_arg(args, "-C", 0) or 0
    query = pygrep.compile_query(
        pattern, bool_arg(args, "-i"), mode, min(context, 50), for_python=not _use_rg(ctx)
    )
    if not root.exists():
        raise ToolError(f"path not found: {root}", hint="pass a directory or file that exists")
    glob = str_arg(args, "glob", required=False)
    hits, cut = await grep_hits(ctx, root, query, glob)
    explicit = root.is_file() or bool(glob and names_protected(glob))
    hits, note = (hits, "") if explicit else walk.hide_secrets(hits, root)
    head_limit = int_arg(args, "head_limit", None, minimum=1)
    where = shown(ctx, root)
    label = f'grep "{pattern[:60]}"'
    if not hits:
        found = f"No matches for {pattern!r} in {where}" + (f" (glob {glob!r})" if glob else "")
        return ToolResult(found + note, display=f"{label} · no matches")
    matches = sum(h.count for h in hits)
    summary = {
        "files": f"{len(hits)} files",
        "count": f"{matches} matches in {len(hits)} files",
        "content": f"{matches} lines in {len(hits)} files",
    }[mode]
    text = render_grep(hits, query, head_limit, cut)
    return ToolResult(text + note, display=f"{label} · {summary}")


def _split_pattern(root: Path, pattern: str) -> tuple[Path, str, str]:
    """(directory to list, pattern below it, prefix to print): literal leading parts of the
    pattern become the listing root, so `src/**/*.py` walks only `src`."""
    pattern = pattern.removeprefix("./")
    absolute = os.path.isabs(pattern)
    if absolute:
        root, pattern = Path("/"), pattern.lstrip("/")
    parts = pattern.split("/")
    k = 0
    while k < len(parts) - 1 and not _MAGIC.search(parts[k]):
        k += 1
    prefix = "/".join(parts[:k])
    base = Path(os.path.normpath(root / prefix)) if prefix else root
    return base, "/".join(parts[k:]), ("/" + prefix if absolute else prefix)


async def list_files(ctx: ToolContext, root: Path, name_glob: str = "") -> list[str]:
    """Every file a search under `root` sees (gitignore-aware), relative to `root`.

    `name_glob` is a prefilter on file names that ripgrep applies as a file type: unlike a
    `--glob`, a type never re-includes ignored files, so the result is a subset of the full list.
    """
    rg = _use_rg(ctx)
    if not rg:
        return await asyncio.to_thread(lambda: list(walk.Walker(root, []).files()))
    types = ["--type-add", f"pick:{name_glob}", "--type", "pick"] if name_glob else []
    args = ["--files", "--null", *walk.rg_base_args(root, []), *types, "./"]
    out, _ = await walk.run_rg(rg, args, root)
    return [p[2:] if p.startswith("./") else p for p in os.fsdecode(out).split("\0") if p]


def _name_prefilter(pattern: str) -> str:
    """The pattern's last part when it is a plain file-name glob ripgrep reads the same way."""
    name = pattern.rsplit("/", 1)[-1]
    return "" if "**" in name or re.search(r"[(|,]", name) else name


def _prefilter_decides(pattern: str, name_glob: str) -> bool:
    """True when ripgrep's name prefilter already is the whole match: `**/NAME` where NAME
    uses only `*` and `?`, which ripgrep and wcmatch read alike (any depth, dotfiles too)."""
    return pattern == "**/" + name_glob and not re.search(r"[\[\]{}()!@+\\]", name_glob)


def _mtimes(prefix: str, rels: list[str]) -> list[float]:
    out = []
    for rel in rels:
        try:
            out.append(os.stat(prefix + rel).st_mtime)
        except OSError:
            out.append(0.0)
    return out


async def _newest_first(base: Path, rels: list[str]) -> list[str]:
    """Sort by modification time, newest first (path order among equals).

    The stats run in two threads: os.stat releases the GIL, and on a large tree they are most
    of a glob's cost.
    """
    prefix = str(base).rstrip(os.sep) + os.sep  # plain strings: Path objects double the cost
    half = len(rels) // 2
    if half < 500:
        times = _mtimes(prefix, rels)
    else:
        a, b = await asyncio.gather(
            asyncio.to_thread(_mtimes, prefix, rels[:half]),
            asyncio.to_thread(_mtimes, prefix, rels[half:]),
        )
        times = a + b
    return [rel for _, rel in sorted(zip((-t for t in times), rels, strict=True))]


def _matcher(pattern: str, flags: int) -> Callable[[str], bool]:
    """wcmatch's own regexes, called directly: its per-path wrapper doubles the cost."""
    from wcmatch import glob as wc

    inc, exc = wc.translate(pattern, flags=flags)
    includes = [re.compile(p) for p in inc]
    excludes = [re.compile(p) for p in exc]

    def match(path: str) -> bool:
        return any(r.fullmatch(path) for r in includes) and not any(
            r.fullmatch(path) for r in excludes
        )

    return match


@guard
async def _glob(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    from wcmatch import glob as wc

    raw = str_arg(args, "pattern")
    root = resolve(ctx, str_arg(args, "path", required=False, default="."))
    if not root.is_dir():
        raise ToolError(f"not a directory: {root}", hint="path must be a directory to search in")
    base, pattern, prefix = _split_pattern(root, raw)
    flags = wc.GLOBSTAR | wc.BRACE | wc.DOTGLOB | wc.EXTGLOB | wc.FORCEUNIX
    name_glob = _name_prefilter(pattern)
    listed = await list_files(ctx, base, name_glob) if base.is_dir() else []
    if _use_rg(ctx) and _prefilter_decides(pattern, name_glob):
        matched = listed  # matching again costs as much as the listing on a large tree
    else:
        matcher = _matcher(pattern, flags)
        matched = [p for p in listed if matcher(p)]
    note = ""
    if not matched and "/" not in pattern and not pattern.startswith("**"):
        # `*.py` only matches at the top; say so and show the recursive matches instead.
        deep = _matcher("**/" + pattern, flags)
        matched = [p for p in listed if deep(p)]
        if matched:
            note = f"\n[no match for {raw!r} at the top level; showing matches of '**/{pattern}']"
    matched = await _newest_first(base, matched)
    label = f'glob "{raw[:60]}"'
    if not matched:
        return ToolResult(
            f"No files match {raw!r} in {shown(ctx, root)}", display=f"{label} · 0 files"
        )
    shown_paths = [os.path.join(prefix, p) if prefix else p for p in matched[:GLOB_CAP]]
    more = len(matched) - len(shown_paths)
    header = f"Found {len(matched)} files (newest first)"
    tail = f"\n[{more} more files not shown; {_NARROW}]" if more else ""
    text = cap(header + note + "\n" + "\n".join(shown_paths) + tail, how_to_see_more=_NARROW)
    return ToolResult(text, display=f"{label} · {len(matched)} files")


GLOB = Tool(
    name="glob",
    description=(
        "Find files by name pattern (e.g. `**/*.py`, `src/**/*.{ts,tsx}`). `*` stays within a "
        "directory, `**` spans directories. Respects .gitignore, skips .git, lists newest "
        f"first, at most {GLOB_CAP} paths. Paths are relative to `path` (default: workspace)."
    ),
    parameters={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Glob pattern, e.g. **/*.py"},
            "path": {"type": "string", "description": "Directory to search (default: workspace)"},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
    run=_glob,
    read_only=True,
)

GREP = Tool(
    name="grep",
    description=(
        "Search file contents with a regular expression (ripgrep/Rust syntax), respecting "
        ".gitignore and skipping binary files. output_mode: `files` (default: matching file "
        "paths), `content` (matching lines as path:line:text; `context` adds lines around), "
        "`count` (matching lines per file). Use `glob` (e.g. `*.py`) to filter files."
    ),
    parameters={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Regular expression to search for"},
            "path": {"type": "string", "description": "File or directory (default: workspace)"},
            "glob": {"type": "string", "description": "Only files matching this glob, e.g. *.py"},
            "output_mode": {"type": "string", "enum": ["files", "content", "count"]},
            "-i": {"type": "boolean", "description": "Case-insensitive search"},
            "context": {"type": "integer", "description": "Lines of context (content mode)"},
            "-C": {"type": "integer", "description": "Same as context"},
            "head_limit": {"type": "integer", "description": "Show at most this many entries"},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
    run=_grep,
    read_only=True,
)

TOOLS: tuple[Tool, ...] = (GLOB, GREP)
