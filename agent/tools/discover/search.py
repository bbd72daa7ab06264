"""`tool_search`: the deferred tools by server (empty query), or the full schemas of the best
matches for a query, which it loads: from the next request on they are in the tools list, for
the rest of the conversation. An exact name (the full `mcp__server__tool` or the server's own
`tool`) always wins; otherwise the words of the query are ranked over names (3), parameter
names (2) and descriptions (1)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agent.base.args import Args, arg
from agent.base.record import Tool, ToolContext, ToolResult, error
from agent.base.shelf import loaded_text
from agent.tools.shared.common import guard

if TYPE_CHECKING:  # annotations only (the Protocols cost ~0.8 ms to import)
    from agent.base.parts import ToolShelf

DESCRIPTION = (
    "Load tools not in your list yet: MCP servers' tools and rarely used built-ins (web "
    "search, notebook edits). Empty query: their names by server. Words or exact names "
    "(comma-separated): the best matches' schemas, callable from your next step on."
)
MAX_LIMIT = 20
_WORD = re.compile(r"[a-z0-9]+")


class ToolSearchArgs(Args):
    query: str = arg("", "Words or exact tool names; empty: list them all")
    limit: int = arg(5, "Most tools to load (max 20)", minimum=1)


@guard
async def _run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    a = ToolSearchArgs.parse(args)
    shelf = ctx.shelf
    if shelf is None or not shelf.deferred:
        return error(
            "no tools are waiting to be loaded: every tool is in your list", can_retry=False
        )
    query = a.query.strip()
    if not query:
        return ToolResult(_listing(shelf), display=f"{len(shelf.deferred)} deferred tools")
    found = rank(shelf, query)[: min(a.limit, MAX_LIMIT)]
    if not found:
        hint = "call tool_search with an empty query to see every name"
        return error(f"no deferred tool matches {query!r}", can_retry=True, hint=hint)
    shelf.load(found)
    by_name = {n: (about, params) for n, about, params in shelf.described()}
    schemas = [_entry(n, *by_name[n]) for n in found]
    return ToolResult(loaded_text(schemas), display=f"loaded {', '.join(found)}")


def rank(shelf: ToolShelf, query: str) -> list[str]:
    """Deferred tool names, best match first; exact names first of all, in the query's order."""
    tools = shelf.described()
    wanted = [w.strip() for w in query.split(",") if w.strip()]
    exact = [n for w in wanted for n, _, _ in tools if n == w or n.endswith(f"__{w}")]
    words = set(_WORD.findall(query.lower()))
    scored = [(s, i, t[0]) for i, t in enumerate(tools) if (s := _score(*t, words)) > 0]
    best = [n for _, _, n in sorted(scored, key=lambda t: (-t[0], t[1]))]
    return list(dict.fromkeys(exact + best))


def _score(name: str, about: str, params: dict[str, Any], words: set[str]) -> int:
    named = set(_WORD.findall(name.lower()))
    keys = set(_WORD.findall(" ".join(params.get("properties", {})).lower()))
    said = set(_WORD.findall(about.lower()))
    return sum(3 * (w in named) + 2 * (w in keys) + (w in said) for w in words)


def _listing(shelf: ToolShelf) -> str:
    groups: dict[str, list[str]] = {}
    for n, _, _ in shelf.described():
        groups.setdefault(shelf.deferred[n], []).append(n + " (loaded)" * (n in shelf.loaded))
    lines = [f"{g} ({len(ns)}): {', '.join(ns)}" for g, ns in groups.items()]
    how = "Call tool_search with words or exact names to load tools' schemas."
    return "Tools you can load, by server:\n" + "\n".join(lines) + f"\n{how}"


def _entry(name: str, about: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "description": about, "parameters": params}


TOOL_SEARCH = Tool("tool_search", DESCRIPTION, ToolSearchArgs.schema(), _run, read_only=True,
                   finds_deferred=True)  # fmt: skip
TOOLS = (TOOL_SEARCH,)
