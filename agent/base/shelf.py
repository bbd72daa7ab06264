"""Deferred tools: kept in the registry (the gate, hooks and dispatcher know them) but not sent
with each request until `tool_search` loads them (issue 46).

Which tools wait is decided by their owners: the rarely used built-ins (`Tool.rare`) wait
whenever tool search is on, and agent.mcp.defer decides for MCP servers. What the model is
offered is the registry in its order minus the waiting tools, then the loaded ones in the
order they were loaded — so a load only appends to the tools list and the prefix the server
cached stays byte-identical. Besides tool_search, a tool is loaded when the session enters the
mode it is for (`Tool.wanted_in`: exit_plan_mode in plan mode), once the tool it serves is
called (`Tool.serves`: task_result after task), and when a resumed conversation had used it.
A subagent works on a copy (`child`): its loads stay its own. A call to a waiting tool the
model makes anyway runs as any other call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agent.base.messages import Message
from agent.base.record import Tool
from agent.base.tokens import estimate_tools
from agent.config.modes import PermissionMode

BUILT_IN = "built-in"  # the group of the rare built-ins in tool_search's listing


class Shelf:
    """The deferred tools of one conversation, and those its tool_search loaded."""

    def __init__(self, tools: dict[str, Tool] | None = None) -> None:
        self.tools = tools if tools is not None else {}  # the conversation's registry
        self.deferred: dict[str, str] = {}  # name -> its group (the server)
        self.loaded: list[str] = []  # in load order: appended to the list
        self.owners: dict[str, dict[str, str]] = {}  # owner -> its decision
        self.pending: list[str] = []  # to load once they wait (a resumed session's)

    @classmethod
    def of(
        cls, tools: dict[str, Tool], history: list[Message], mode: PermissionMode
    ) -> Shelf | None:
        """A session's shelf, the rare built-ins on it; None when the registry has no finder
        (tool search off, or --tools left it out): then every tool is sent."""
        if not any(t.finds_deferred for t in tools.values()):
            return None
        shelf = cls(tools)
        shelf.defer({n: BUILT_IN for n, t in tools.items() if t.rare}, BUILT_IN)
        shelf.recall(history)
        shelf.enter(mode)
        return shelf

    def defer(self, deferred: dict[str, str], owner: str = "mcp") -> None:
        """An owner's new decision (a server connected, its list changed)."""
        self.owners[owner] = dict(deferred)
        finds = any(t.finds_deferred for t in self.tools.values())  # else none could load
        union = {n: g for d in self.owners.values() for n, g in d.items()} if finds else {}
        if union != self.deferred:
            self.deferred = union
            self.loaded = [n for n in self.loaded if n in union]
        self.load(self.pending)

    def waiting(self) -> list[str]:
        """Deferred tools not loaded yet, in the registry's order."""
        return [n for n in self.tools if n in self.deferred and n not in self.loaded]

    def load(self, names: Iterable[str]) -> list[str]:
        """Offer these from the next request on; returns those newly loaded."""
        new = [n for n in dict.fromkeys(names) if n in self.deferred and n not in self.loaded]
        self.loaded.extend(new)
        return new

    def enter(self, mode: PermissionMode) -> None:
        """The session is in `mode` now: load the tools for it."""
        self.load(n for n in self.waiting() if self.tools[n].wanted_in == mode)

    def called(self, names: Iterable[str]) -> None:
        """These tools ran: load the waiting tools that serve them (task_result after task)."""
        ran = set(names)
        self.load(n for n in self.waiting() if self.tools[n].serves in ran)

    def recall(self, history: list[Message]) -> None:
        """A resumed conversation: what it called or tool_search loaded is loaded again, MCP
        tools once their server has connected."""
        used = list(_used(history, self.tools))
        self.called(used)
        self.pending = [n for n in used if n not in self.loaded]
        self.load(used)

    def described(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(name, description, parameters) of every deferred tool, in the registry's order."""
        return [
            (n, t.description, t.parameters) for n, t in self.tools.items() if n in self.deferred
        ]

    def child(self, tools: dict[str, Tool]) -> Shelf:
        """A subagent's copy over its own registry: what it loads stays in it."""
        copy = Shelf(tools)
        for owner, decided in self.owners.items():
            copy.defer({n: g for n, g in decided.items() if n in tools}, owner)
        copy.load(self.loaded)
        return copy

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


def _used(history: list[Message], tools: dict[str, Tool]) -> Iterable[str]:
    """The tools a conversation called, and those its finder's results loaded, in order."""
    finders: set[str] = set()
    for m in history:
        for call in m.get("tool_calls") or []:
            name = call.get("function", {}).get("name", "")
            yield name
            if name in tools and tools[name].finds_deferred:
                finders.add(call.get("id", ""))
        if m.get("role") == "tool" and m.get("tool_call_id") in finders:
            yield from loaded_by(str(m.get("content") or ""))


def loaded_text(schemas: list[dict[str, Any]]) -> str:
    """A finder's result for the tools it loaded: a line, then their schemas (`loaded_by`)."""
    head = f"Loaded {len(schemas)} tool(s); call them from your next step on:"
    return head + "\n" + json.dumps(schemas, ensure_ascii=False, separators=(",", ":"))


def loaded_by(result: str) -> list[str]:
    """The tool names a finder's result (`loaded_text`) loaded; [] for any other text."""
    head, _, body = result.partition("\n")
    if not head.startswith("Loaded "):
        return []
    try:
        found = json.loads(body)
    except ValueError:
        return []
    if not isinstance(found, list):
        return []
    return [e["name"] for e in found if isinstance(e, dict) and isinstance(e.get("name"), str)]
