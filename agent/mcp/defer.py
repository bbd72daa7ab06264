"""Which MCP tools wait behind tool_search (issue 46): setting `tools.search` and each server's
`deferTools`.

`off`: none (every schema in every request, as before tool search). `on`: every server's tools
but those of a server with `deferTools: false`. `auto`: a server with `deferTools: true` always,
and the others' tools together once their schemas pass SHARE of the context window or they are
more than MAX_TOOLS. The resource tools (list/read_mcp_resource) are never deferred.
"""

from __future__ import annotations

from typing import NamedTuple

from agent.base.record import Tool
from agent.base.tokens import estimate_tools

# Past ~30 tools models pick worse and the schemas cost more than one search does (Copilot CLI
# defers past 30 too; a GitHub server alone lists ~35). tool_search is offered anyway while the
# rare built-ins wait, so deferring costs no more than the search itself.
MAX_TOOLS = 30
SHARE = 0.10  # of the context window the MCP schemas may take before they are deferred


class Entry(NamedTuple):
    """One MCP tool in the registry, with its server and that server's `deferTools`."""

    name: str
    server: str
    tool: Tool
    pinned: bool | None  # ServerSpec.defer_tools


def deferred(mode: str, window: int, entries: list[Entry]) -> dict[str, str]:
    """name -> server of the tools to keep out of the requests."""
    if mode == "off":
        return {}
    out = {e.name: e.server for e in entries if e.pinned}
    free = [e for e in entries if e.pinned is None]
    if mode == "on" or len(free) > MAX_TOOLS or _heavy(free, window):
        out.update({e.name: e.server for e in free})
    return out


def _heavy(entries: list[Entry], window: int) -> bool:
    return bool(entries) and estimate_tools([e.tool.schema() for e in entries]) > SHARE * window
