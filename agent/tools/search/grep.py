"""grep (and glob, from globbing.py): gitignore-aware search, ripgrep-backed with a
pure-Python fallback."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

from agent.base.args import Args, arg
from agent.base.record import Target, Tool, ToolContext, ToolResult, cap
from agent.base.words import plural
from agent.permissions.paths import names_protected
from agent.tools.search import pygrep
from agent.tools.search.globbing import GLOB
from agent.tools.search.rg_output import parse_rg
from agent.tools.shared import agentignore, links, walk
from agent.tools.shared.common import ToolError, gc_paused, guard, resolve, shown
from agent.tools.shared.listing import list_files
from agent.tools.shared.secret_hits import hide_secrets
from agent.tools.shared.walk import FileHits

__all__ = ["GLOB", "GREP", "TOOLS", "grep_hits", "list_files", "render_grep"]

CAPS = {"files": 200, "content": 500, "count": 200}
LINE_CUT = 500  # characters of one matching line shown
_NARROW = walk.NARROW


async def grep_hits(
    ctx: ToolContext, root: Path, query: pygrep.Query, glob: str
) -> tuple[list[FileHits], bool]:
    """Search `root` (a directory or one file) with ripgrep or the fallback; sorted by path.
    A directory search leaves out the files the agent's ignore files hide."""
    rg = walk.rg_for(ctx)
    single = await asyncio.to_thread(root.is_file)
    base = root.parent if single else root
    if single and await asyncio.to_thread(pygrep.is_binary, root):
        # ripgrep would search it anyway (a named file), with answers that differ by mode
        raise ToolError(
            f"{root.name} is a binary file (it has NUL bytes); grep searches text files",
            can_retry=False,
            hint=f"search its printable strings with bash: strings {root.name} | grep -n PATTERN",
        )
    if not single:
        await asyncio.to_thread(links.enter, ctx, root, "grep")
    hide = None if single else await asyncio.to_thread(agentignore.for_search, ctx.cwd, root)
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
        hits = parse_rg(out, query.mode)
        if hide is not None:
            shown = set(await asyncio.to_thread(hide.keep, [h.path for h in hits]))
            hits = [h for h in hits if h.path in shown]
    else:
        cut = False

        def fallback() -> list[FileHits]:
            if hide is None:
                rels = [root.name]
            else:
                rels = list(walk.Walker(root, [glob] if glob else [], hide.hidden).files())
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
        header, total = f"Found {plural(len(hits), 'file')}", len(hits)
        rows = [h.path for h in hits[:limit]]
    elif mode == "count":
        header = f"{plural(matches, 'matching line')} in {plural(len(hits), 'file')}"
        total = len(hits)
        rows = [f"{h.path}:{h.count}" for h in hits[:limit]]
    else:
        header = f"Found {plural(matches, 'matching line')} in {plural(len(hits), 'file')}"
        total = sum(len(h.lines) for h in hits)
        rows = _content_rows(hits, query.context, limit)
    if total > limit:
        header += f" (showing the first {limit}; {total - limit} more — {_NARROW})"
    if cut:
        header += " [output was cut short: too many matches; counts are incomplete]"
    return cap("\n".join([header, *rows]), how_to_see_more=_NARROW)


class GrepArgs(Args):
    pattern: str = arg(doc="Regular expression to search for")
    path: str = arg(".", "File or directory (default: workspace)")
    glob: str = arg("", "Only files matching this glob, e.g. *.py")
    output_mode: Literal["files", "content", "count"] = "files"
    ignore_case: bool = arg(False, "Case-insensitive search", name="-i")
    context: int = arg(0, "Lines of context (content mode)", minimum=0)
    same_context: int = arg(0, "Same as context", name="-C", minimum=0)
    head_limit: int | None = arg(None, "Show at most this many entries", minimum=1)


@gc_paused
@guard
async def _grep(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    a = GrepArgs.parse(args)
    pattern, mode, glob = a.pattern, a.output_mode, a.glob
    root = resolve(ctx, a.path)
    context = a.context or a.same_context
    query = pygrep.compile_query(
        pattern, a.ignore_case, mode, min(context, 50), for_python=not walk.rg_for(ctx)
    )
    if not root.exists():
        raise ToolError(f"path not found: {root}", hint="pass a directory or file that exists")
    hits, cut = await grep_hits(ctx, root, query, glob)
    explicit = root.is_file() or bool(glob and names_protected(glob))
    hits, note = (hits, "") if explicit else hide_secrets(hits, root)
    where = shown(ctx, root)
    label = f'grep "{pattern[:60]}"'
    if not hits:
        found = f"No matches for {pattern!r} in {where}" + (f" (glob {glob!r})" if glob else "")
        return ToolResult(found + note, display=f"{label} · no matches")
    matches = sum(h.count for h in hits)
    summary = {
        "files": plural(len(hits), "file"),
        "count": f"{plural(matches, 'match')} in {plural(len(hits), 'file')}",
        "content": f"{plural(matches, 'line')} in {plural(len(hits), 'file')}",
    }[mode]
    text = render_grep(hits, query, a.head_limit, cut)
    return ToolResult(text + note, display=f"{label} · {summary}")


GREP = Tool(
    name="grep",
    description=(
        "Search file contents with a regular expression (ripgrep syntax), respecting .gitignore "
        "and .agentignore, skipping binary files. output_mode: `files` (default: paths), "
        "`content` (path:line:text; `context` adds lines around) or `count` (per file). "
        "`glob` (e.g. `*.py`) filters files."
    ),
    parameters=GrepArgs.schema(),
    run=_grep,
    read_only=True,
    kind="read",
    target=Target("folder", "path", default=".", pattern_arg="glob"),
    aliases=("Grep",),
)

TOOLS: tuple[Tool, ...] = (GLOB, GREP)
