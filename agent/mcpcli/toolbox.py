"""The tools `agent mcp serve` offers and the pipeline each call goes through — the one a
session's model calls go through (agent.app), without the model: the audit log outermost, then
PreToolUse/PostToolUse hooks, then the permission gate with no one to ask (what would ask is
denied with the reason and the rule or flag that would allow it, as in a one-shot run), and the
session's OS sandbox for commands. Nothing here imports the `mcp` SDK.

Which tools: those that act on the workspace — kinds `read`, `edit` and `exec` (read_file,
write_file, edit_file, notebook_edit, glob, grep, outline, symbols, bash and bash_output, and
apply_patch when the `tools.applyPatch` setting is true). Not `network` (web_fetch,
web_search: a client has its own way to the web, and these would reach it from the agent's
settings) nor `meta` (todo, exit_plan_mode: a model's own session state). A tool a
`neverAllow` rule (or `--disallowed-tools`) names whole is not offered, as in a session.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from agent.base.events import Notice, Sink
from agent.base.record import Tool, ToolContext, ToolResult
from agent.config.load import Config
from agent.core.dispatch import Dispatcher, prepare
from agent.hooks.hooks import Hooks
from agent.permissions.audit import Audit
from agent.permissions.gate import Gate, session_gate
from agent.permissions.rules import Vocabulary
from agent.sandbox.runtime import Sandbox, for_session
from agent.session.store import new_id
from agent.tools import stop_background
from agent.tools.builtin import builtin_tools, registry
from agent.tools.shared.stamps import FileStamps

SERVED_KINDS = ("read", "edit", "exec")
TRIGGER = "mcp client"  # who asked, in the audit log


def served_tools(cfg: Config) -> dict[str, Tool]:
    """The registry `serve` offers (see the module's docstring), in the session's order."""
    offered = builtin_tools(cfg.options.apply_patch is True)
    tools = registry(tuple(t for t in offered if t.kind in SERVED_KINDS))
    vocab = Vocabulary.of(tools.values())
    disabled = {vocab.tool(r) for r in cfg.permissions.get("neverAllow", []) if "(" not in r}
    disabled |= {n for n, t in tools.items() if t.serves and t.serves in disabled}  # bash_output
    return {n: t for n, t in tools.items() if n not in disabled}


@dataclass
class Toolbox:
    """The served tools and their pipeline; `call` never raises for a bad call."""

    tools: dict[str, Tool]
    dispatcher: Dispatcher
    ctx: ToolContext
    gate: Gate
    sink: Sink
    sandbox: Sandbox
    # Calls that change something run one at a time, as in a model's reply; reads do not wait.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    async def call(self, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        """Run one call from the client: parsed and checked like a model's (an unknown tool or
        bad arguments is an error result naming the problem), then through the pipeline."""
        raw = json.dumps(arguments if arguments is not None else {}, default=str)
        call = prepare(f"mcp-{next(self.ids)}", name, raw, self.tools)
        call.trigger = TRIGGER
        tool = self.tools.get(name)
        if tool is not None and tool.read_only:
            return await self.dispatcher.run_one(call, self.ctx, self.sink)
        async with self.lock:
            return await self.dispatcher.run_one(call, self.ctx, self.sink)

    def close(self) -> None:
        """Stop the commands bash started in the background."""
        stop_background()


def build(cfg: Config, sink: Sink) -> Toolbox:
    """The served tools wired as a session wires them (agent.app._pipeline): audit, hooks, gate."""
    session_id = new_id()  # what the audit log and the hooks' payloads name this server by
    tools = served_tools(cfg)
    gate = session_gate(cfg, tools, sink, None)
    box = for_session(cfg, gate.read_denials())
    if box.problem:
        sink.emit(Notice(f"no sandbox: {box.problem}; commands need an allow rule instead"))
    gate.sandboxed = box.runs_unasked
    hooks = Hooks(
        dict(cfg.options.hooks),
        session_id=session_id,
        cwd=cfg.cwd,
        sink=sink,
        mode=cfg.permission_mode,
        tools=tools,
    )
    hooks.box = box if box.hooks else None
    layers = (Audit(cfg.root, session_id, sink), hooks, gate)
    ctx = ToolContext(
        cwd=cfg.cwd,
        added_dirs=tuple(map(str, gate.ws.extra)),  # --add-dir: links may lead into them
        denied_reads=tuple(gate.read_denials()),  # the indexers skip what deny rules forbid
        session_id=session_id,
        sink=sink,
        files=FileStamps(),  # an edit needs a read of the file through this server first
        images=True,  # read_file of an image: MCP carries images
        sandbox=box,
    )
    return Toolbox(tools, Dispatcher(tools, layers), ctx, gate, sink, box)
