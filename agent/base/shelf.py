"""Deferred tools: kept in the registry (the gate, hooks and dispatcher know them) but not sent
with each request until `tool_search` loads them (issue 46).

Which tools wait is decided by their owner (agent.mcp.defer for MCP servers); what the model
is offered is the registry in its order minus the waiting tools, then the loaded ones in the
order they were loaded — so a load only appends to the tools list and the prefix the server
cached stays byte-identical. A subagent works on a copy (`child`): its loads stay its own.
A call to a waiting tool the model makes anyway runs as any other call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.base.record import Tool
from agent.base.tokens import estimate_tools


@dataclass
class Shelf:
    """The deferred tools of one conversation, and those its tool_search loaded."""

    tools: dict[str, Tool] = field(default_factory=dict)  # the conversation's registry
    deferred: dict[str, str] = field(default_factory=dict)  # name -> its group (the server)
    loaded: list[str] = field(default_factory=list)  # in load order: appended to the list

    def defer(self, deferred: dict[str, str]) -> None:
        """The owner's new decision (a server connected, its list changed)."""
        if deferred != self.deferred:
            self.deferred = dict(deferred)
            self.loaded = [n for n in self.loaded if n in deferred]

    def waiting(self) -> list[str]:
        """Deferred tools not loaded yet, in the registry's order."""
        return [n for n in self.tools if n in self.deferred and n not in self.loaded]

    def load(self, names: list[str]) -> list[str]:
        """Offer these from the next request on; returns those newly loaded."""
        new = [n for n in dict.fromkeys(names) if n in self.deferred and n not in self.loaded]
        if new:
            self.loaded.extend(new)
        return new

    def described(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(name, description, parameters) of every deferred tool, in the registry's order."""
        return [
            (n, t.description, t.parameters) for n, t in self.tools.items() if n in self.deferred
        ]

    def child(self, tools: dict[str, Tool]) -> Shelf:
        """A subagent's copy over its own registry: what it loads stays in it."""
        finds = any(t.finds_deferred for t in tools.values())  # else it could never load them
        kept = {n: g for n, g in self.deferred.items() if n in tools} if finds else {}
        return Shelf(tools, kept, [n for n in self.loaded if n in kept])

    def tokens(self) -> tuple[int, int]:
        """Estimated tokens of the (loaded, still deferred) tools' schemas."""
        loaded = [n for n in self.loaded if n in self.tools]
        return _tokens(self.tools, loaded), _tokens(self.tools, self.waiting())


def offered(tools: dict[str, Tool], shelf: Shelf | None) -> list[Tool]:
    """What a request carries: the registry minus deferred tools, then the loaded ones; the
    finder (tool_search) only while some tool is deferred."""
    if shelf is None or not shelf.deferred:
        return [t for t in tools.values() if not t.finds_deferred]
    out = [t for n, t in tools.items() if n not in shelf.deferred]
    return out + [tools[n] for n in shelf.loaded if n in tools]


def listed(tools: dict[str, Tool], shelf: Shelf | None) -> list[str]:
    """Every tool the model may call, deferred ones too (the init event), in the registry's
    order; the finder only while some tool is deferred."""
    waits = shelf is not None and bool(shelf.deferred)
    return [n for n, t in tools.items() if waits or not t.finds_deferred]


def schemas(tools: dict[str, Tool], shelf: Shelf | None) -> list[dict[str, Any]]:
    return [t.schema() for t in offered(tools, shelf)]


def _tokens(tools: dict[str, Tool], names: list[str]) -> int:
    return estimate_tools([tools[n].schema() for n in names])
