"""MCP tools in the shared registry: names, Tool records, and applying tool-list changes.

A server's tool `t` becomes `mcp__<server>__<t>`, sanitised to `[A-Za-z0-9_-]`, at most 64
characters, unique (a hash suffix when cut or taken). Its description starts with the server.
Tools are read-only (no permission prompt, allowed in plan mode, run concurrently) only when the
server annotates them `readOnlyHint: true` and not `destructiveHint: true`, and only when the
user declared the server (ServerSpec.own): a repository's server saying so is not believed (the
MCP specification: annotations from untrusted servers are untrusted). Changes (a server
connecting, `tools/list_changed`, a reconnect) reach the registry only through `sync()`, which
the loop calls at a turn boundary, so the request prefix never changes within a turn. A crashed
server's tools stay listed and answer with an error saying so (no mid-session prefix change).
While some server has resources, `list_mcp_resources` and `read_mcp_resource` follow the
servers' tools (agent.mcp.resources). The MCP side also answers the UI: resources to mention
(`@server:uri`) and prompts to run as commands (`/mcp__server__prompt`).
This module imports the `mcp` SDK only through agent.mcp_manager, when servers are configured.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent.base.events import Notice, Sink
from agent.base.record import Tool, ToolContext, ToolKind, ToolResult
from agent.base.shelf import Shelf
from agent.base.visible import visible
from agent.mcp import resources
from agent.mcp.catalog import PromptInfo, sanitize
from agent.mcp.defer import Entry, deferred
from agent.permissions.rules import Rule

if TYPE_CHECKING:  # annotations only: the manager imports the mcp SDK (~65 ms)
    from agent.config.load import Config
    from agent.mcp.manager import Manager
    from agent.sandbox.runtime import Sandbox

MAX_NAME = 64
MAX_DESCRIPTION = 4000
RESOURCE_TOOLS = ("list_mcp_resources", "read_mcp_resource")
__all__ = ["McpTools", "denied_by", "sanitize", "start", "tool_name"]


def tool_name(server: str, tool: str, taken: set[str] | dict[str, Any]) -> str:
    """`mcp__server__tool`, sanitised, ≤ 64 chars, not in `taken` (deterministic)."""
    name = f"mcp__{sanitize(server)}__{sanitize(tool)}"
    salt = 0
    while len(name) > MAX_NAME or name in taken:
        digest = hashlib.sha1(f"{server}\0{tool}\0{salt}".encode()).hexdigest()[:8]
        base = f"mcp__{sanitize(server)}__{sanitize(tool)}"
        name = f"{base[: MAX_NAME - 9]}_{digest}"
        salt += 1
    return name


class McpTools:
    """The MCP side of one session: the manager and the MCP entries of the shared registry."""

    def __init__(
        self,
        manager: Manager,
        tools: dict[str, Tool],
        denied: Callable[[str], bool],
        notify: Callable[[str], None] | None = None,
        shelf: Shelf | None = None,
        search: tuple[str, int] = ("off", 0),
    ) -> None:
        self.manager = manager
        self.tools = tools  # the registry the dispatcher, gate and hooks share
        self.denied = denied
        self.notify = notify  # tells the user, at a turn boundary, that a server went down
        self.names: dict[str, tuple[str, str]] = {}  # registry name -> (server, tool)
        self._seen = -1  # the manager's version last applied
        self._unreported = False  # applied outside sync(): the loop must still refresh
        self._told: set[tuple[str, str]] = set()
        self._prompts: tuple[int, list[tuple[str, str, PromptInfo]]] = (-1, [])
        self.shelf = shelf  # where the tools to keep out of the requests go (tool_search)
        self.search = search  # (`tools.search`, the context window in tokens)

    def sync(self) -> bool:
        """At a turn boundary: apply changes; True when the list changed since the last sync."""
        changed = self._apply() or self._unreported
        self._unreported = False
        self._tell()
        return changed

    def announce(self) -> None:
        """Between turns (the REPL, once the servers settled at start): apply what changed —
        the loop refreshes its tools at the next turn — and say what failed, as a turn
        boundary would, so start-up problems show before the first prompt is answered."""
        self._unreported = self._apply() or self._unreported
        self._tell()

    def _tell(self) -> None:
        """Say what went wrong with a server since the last time (once each)."""
        for line in self._news():
            if self.notify is not None:
                self.notify(f"{line} (/mcp for details)")

    def _apply(self) -> bool:
        version = self.manager.version
        if version == self._seen:
            return False
        self._seen = version
        new, names = self._build()
        old = [_shape(self.tools[n]) for n in self.names if n in self.tools]
        if old == [_shape(t) for t in new.values()]:
            return False
        for n in self.names:
            self.tools.pop(n, None)
        self.tools.update(new)
        self.names = names
        self._defer()
        return True

    def _defer(self) -> None:
        """Tell the shelf which MCP tools wait behind tool_search (agent.mcp.defer)."""
        if self.shelf is None:
            return
        pins = {s: c.spec.defer_tools for s, c in self.manager.conns.items()}
        entries = [
            Entry(n, server, self.tools[n], pins.get(server))
            for n, (server, _) in self.names.items()
            if server and n in self.tools
        ]
        self.shelf.defer(deferred(*self.search, entries), "mcp")

    def statuses(self) -> list[dict[str, Any]]:
        return list(self.manager.statuses())

    def wait(self, timeout: float | None = None) -> None:
        """Block until every server settled (bounded by the servers' timeouts), then sync."""
        self.manager.wait(timeout)
        self._unreported = self._apply() or self._unreported  # the loop refreshes next turn

    def settle(self) -> None:
        """One-shot start-up: wait (bounded), apply the tools, say on stderr what failed."""
        try:
            self.wait()
        except KeyboardInterrupt:
            self.close()
            raise SystemExit(130) from None  # interrupted by the user, as in a turn
        for line in self._news():
            print(f"agent: warning: {visible(line)}", file=sys.stderr)  # a server's words

    def _news(self) -> list[str]:
        """Servers that failed or timed out since the last look, one line each."""
        out = []
        for s in self.manager.statuses():
            key = (s["name"], f"{s['status']}:{s.get('error', '')}")
            if s["status"] in ("failed", "timeout") and key not in self._told:
                self._told.add(key)
                out.append(f"MCP server {s['name']!r} {s['status']}: {s.get('error', '')}")
        return out

    def close(self) -> None:
        self.manager.close()

    async def aclose(self) -> None:
        await self.manager.aclose()

    def _build(self) -> tuple[dict[str, Tool], dict[str, tuple[str, str]]]:
        taken = {n for n in self.tools if n not in self.names}  # built-in and other tools
        out: dict[str, Tool] = {}
        names: dict[str, tuple[str, str]] = {}
        for server, conn in self.manager.conns.items():
            for info in conn.state.tools:
                name = tool_name(server, info.name, taken | names.keys())
                names[name] = (server, info.name)
                if not self.denied(name):
                    out[name] = self._tool(server, info, name, conn.spec.own)
        conns = self.manager.conns.items()
        if any(c.state.resources for n, c in conns if not self.hidden(n)):
            for tool in resources.tools(self.manager, self.hidden):
                names[tool.name] = ("", tool.name)
                if tool.name not in taken and not self.denied(tool.name):
                    out[tool.name] = tool
        return out, names

    def hidden(self, server: str) -> bool:
        """A neverAllow rule names the whole server (`mcp__github`): its resources are not
        offered to the model either."""
        return self.denied(f"mcp__{sanitize(server)}")

    def mentionable(self) -> list[tuple[str, str]]:
        """(`server:uri`, what it is) for `@` completion: resources, then templates."""
        out = []
        for server, conn in self.manager.conns.items():
            for r in conn.state.resources:
                about = r.name if r.name and r.name != r.uri else r.description
                if r.template:
                    about = f"template: {', '.join(r.params)}" + (f" · {about}" if about else "")
                out.append((f"{server}:{r.uri}", about[:80]))
        return out

    def prompts(self) -> list[tuple[str, str, PromptInfo]]:
        """(command name `mcp__server__prompt`, server, prompt) of every server that listed
        prompts (one that died is restarted by running one); recomputed on state changes."""
        seen, found = self._prompts
        version = self.manager.version
        if seen != version:
            taken: set[str] = set()
            found = []
            for server, conn in self.manager.conns.items():
                for p in conn.state.prompts:
                    name = tool_name(server, p.name, taken)
                    taken.add(name)
                    found.append((name, server, p))
            self._prompts = (version, found)
        return found

    def _tool(self, server: str, info: Any, name: str, own: bool) -> Tool:
        manager, tool = self.manager, info.name

        async def run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
            return await manager.call(server, tool, args, ctx.result_room)

        text = f"[MCP server {server}] {info.description}".strip()
        if len(text) > MAX_DESCRIPTION:
            text = text[: MAX_DESCRIPTION - 3] + "..."
        read_only = info.read_only and own  # a server's word, believed from the user's own only
        kind: ToolKind = "read" if read_only else "exec"
        return Tool(name, text, info.schema, run, read_only=read_only, kind=kind)


def _shape(tool: Tool) -> tuple[dict[str, Any], bool]:
    """What a change of a tool is: its schema, or whether it is asked about."""
    return tool.schema(), tool.read_only


def denied_by(never_allow: list[str]) -> Callable[[str], bool]:
    """Whole-tool deny rules (`mcp__github`, `mcp__x__y`, `mcp__*`): such tools are not offered."""
    rules = [
        Rule(r, r.strip())
        for r in never_allow
        if "(" not in r and (r.startswith("mcp__") or r.strip() in RESOURCE_TOOLS)
    ]
    return lambda name: any(r.covers_tool(name) for r in rules)


def start(
    cfg: Config,
    tools: dict[str, Tool],
    sink: Sink | None = None,
    box: Sandbox | None = None,
    shelf: Shelf | None = None,
) -> McpTools | None:
    """Start the configured servers in the background (stdio ones inside `box` when given);
    None when there are none (or --no-mcp). The tools to keep out of requests go to `shelf`
    (None: tool search is off).

    Bad entries were already reported with the configuration's warnings (agent.config).
    """
    if cfg.no_mcp or not cfg.options.mcp_servers:
        return None
    from agent.mcp.config import load_specs  # deferred: ~20 ms: only when servers are configured

    specs, _ = load_specs(cfg.options, cfg.env, cfg.mcp_own)
    if not specs:
        return None
    # deferred: ~65 ms (the mcp SDK): only when servers are configured
    from agent.mcp.manager import Manager

    manager = Manager(specs, cfg.root, box)
    manager.start()
    deny = denied_by(list(cfg.permissions.get("neverAllow", [])))
    notify = (lambda text: sink.emit(Notice(text))) if sink is not None else None
    search = (cfg.options.tool_search, cfg.provider.context_limit)
    return McpTools(manager, tools, deny, notify, shelf, search)
