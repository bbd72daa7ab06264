"""The loop's tools list: what each request offers (agent.base.shelf). Registry changes (MCP
servers connecting, a tool list changing) reach it only at a turn start; a tool_search load
reaches the next request, appended, so the prefix the server cached stays byte-identical.
A base of agent.core.loop.Agent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent.base.record import Tool
from agent.base.shelf import Shelf, schemas


class Offering:
    """The tools list of the requests; the attributes are the Agent's own."""

    tools: dict[str, Tool]
    shelf: Shelf | None
    schemas: list[dict[str, Any]]
    tool_sync: Callable[[], bool] | None
    _tools_stale: bool
    _loaded_at: int  # how many of the shelf's loads the list carries

    def refresh_tools(self) -> None:
        """Re-read `tools` (MCP changes) at the next turn start, never mid-turn: cache-stable."""
        self._tools_stale = True

    def _offer(self) -> None:
        self.schemas, self._tools_stale = schemas(self.tools, self.shelf), False
        self._loaded_at = len(self.shelf.loaded) if self.shelf is not None else 0

    def _turn_tools(self) -> None:
        """At a turn start: pull the registry's changes (MCP) and re-read the list if any."""
        if self.tool_sync is not None and self.tool_sync():
            self._tools_stale = True
        if self._tools_stale:
            self._offer()

    def _ran(self, names: list[str]) -> None:
        """After a step's calls: load the waiting tools that serve them (agent.base.shelf)."""
        if self.shelf is not None:
            self.shelf.called(names)

    def _loads(self) -> None:
        """Before a request: append what tool_search loaded since the last one (mid-turn too)."""
        loaded = self.shelf.loaded if self.shelf is not None else []
        if len(loaded) > self._loaded_at:
            self.schemas = self.schemas + [
                self.tools[n].schema() for n in loaded[self._loaded_at :] if n in self.tools
            ]
            self._loaded_at = len(loaded)
