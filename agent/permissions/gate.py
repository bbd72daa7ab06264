"""The permission gate: dispatch middleware that decides each call (agent.permissions.decide),
asks the user through the asker when there is one, and otherwise denies and records why."""

from __future__ import annotations

import asyncio
import os
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent.base.events import PermissionDenied, Sink
from agent.base.record import Call, Next, Tool, ToolContext, ToolResult, error
from agent.permissions import asking
from agent.permissions.asking import Asker
from agent.permissions.decide import apply_hook, facts, verdict, workspace_of
from agent.permissions.facts import Decision, Facts
from agent.permissions.paths import Workspace
from agent.permissions.rules import RuleSet, Vocabulary, compile_rules

# The allowed-tools a command or skill grants the turn it sends (set in the command's task, so
# only that task's turn takes them: a /loop turn waiting for the lock never does).
GRANT: ContextVar[tuple[str, ...]] = ContextVar("agent_turn_grant", default=())


class Gate:
    """Middleware: decide; ask the user when there is a terminal, else deny and record it."""

    def __init__(
        self,
        tools: dict[str, Tool],
        rules: dict[str, Any],
        mode: str,
        sink: Sink,
        asker: Asker | None = None,
        *,
        workspace: Workspace | Path | None = None,
        root: Path | None = None,
    ) -> None:
        self.tools, self.mode, self.sink, self.asker = tools, mode, sink, asker
        self.rules = {k: list(v) if isinstance(v, list) else v for k, v in rules.items()}
        self.ws = workspace_of(workspace, self.rules)
        self.root = root or self.ws.root  # where .agent/settings.local.json lives
        # Relative path rules start at the project root whatever the working directory.
        self.rule_ws = replace(self.ws, root=Path(os.path.realpath(self.root)))
        self.session_rules: list[str] = []
        # Rules that hold until the current user turn ends (a skill's or command's
        # allowed-tools); deny rules, ask rules and protected paths still come first.
        self.turn_rules: list[str] = []
        self.sandboxed = False  # commands run in an OS sandbox (agent.sandbox): fewer prompts
        self._vocab: tuple[tuple[str, ...], Vocabulary] = ((), Vocabulary())
        self.lock = asyncio.Lock()

    def allow_reads(self, folder: Path) -> None:
        """Let read-only tools read below `folder` (this session's saved outputs) unasked."""
        real = os.path.realpath(folder)
        self.ws = replace(self.ws, reads=(*self.ws.reads, real))
        self.rule_ws = replace(self.rule_ws, reads=self.ws.reads)

    def allow_for_turn(self, rules: tuple[str, ...] | list[str]) -> None:
        """Allow what `rules` name until the turn ends (a skill the model loads mid-turn)."""
        self.turn_rules += [r for r in rules if r not in self.turn_rules]

    def start_turn(self, rules: tuple[str, ...]) -> None:
        """A turn begins (its lock held): only what its own command granted holds."""
        self.turn_rules = list(rules)

    def end_turn(self) -> None:
        self.turn_rules.clear()

    def table(self) -> list[Any]:
        """The live rules with their origin files (for a /permissions command)."""
        return asking.rule_origins(self.rules, self.session_rules, self.root)

    def readable(self, call_id: str, path: str) -> bool:
        """Whether the registry's file reader may read `path` without asking anyone."""
        reader = next((t for t in self.tools.values() if t.reads_a_file), None)
        if reader is None or reader.target is None:
            return False
        peek, _ = self.decide(Call(call_id, reader.name, {reader.target.arg: path}))
        return peek.kind == "allow"

    def live_rules(self) -> RuleSet:
        allow = [*self.rules.get("alwaysAllow", []), *self.session_rules, *self.turn_rules]
        return compile_rules({**self.rules, "alwaysAllow": allow}, self.rule_ws, self.vocabulary())

    def vocabulary(self) -> Vocabulary:
        """The registry as rules see it (MCP tools join it during a session)."""
        names = tuple(self.tools)
        if self._vocab[0] != names:
            self._vocab = (names, Vocabulary.of(self.tools.values()))
        return self._vocab[1]

    def peers(self, tool: Tool) -> tuple[str, ...]:
        """The tools a remembered edit rule covers together (an edit of a file, whichever
        tool makes it: write_file, edit_file, apply_patch)."""
        files = ("file", "files")
        if tool.kind != "edit" or tool.target is None or tool.target.what not in files:
            return (tool.name,)
        return tuple(
            t.name
            for t in self.tools.values()
            if t.kind == "edit" and t.target is not None and t.target.what in files
        )

    def decide(self, call: Call) -> tuple[Decision, Facts]:
        tool = self.tools[call.name]
        f = facts(self.live_rules(), tool, call.args, self.ws, self.peers(tool))
        return self._boxed(verdict(f, self.mode, tool), f, tool, call), f

    def _boxed(self, d: Decision, f: Facts, tool: Tool, call: Call) -> Decision:
        """A command the sandbox confines needs no prompt (deny rules, `ask` rules, protected
        paths and plan mode still decide first); one run outside it is always asked about."""
        if not tool.sandbox_arg:
            return d
        if call.args.get(tool.sandbox_arg) is False:
            if d.kind == "allow" and self.mode != "bypassPermissions":
                return Decision("ask", "it runs outside the sandbox", "sandbox")
            return d
        confined = d.kind == "ask" or (d.kind == "deny" and self.mode == "dontAsk")
        if f.repo_code:  # the repository's own code: the user decides, sandbox or not
            return d
        if self.sandboxed and confined and d.source in ("mode", "outside", "shell"):
            return Decision("allow", "it runs in the sandbox", "sandbox")
        return d

    async def __call__(self, call: Call, ctx: ToolContext, nxt: Next) -> ToolResult:
        d, f = self.decide(call)
        d = apply_hook(d, call.hook_decision)
        if d.kind == "ask":
            # an editor's unsaved buffer may hold what the disk does not: the tool will tell
            failure = asking.doomed(self, call) if ctx.editor is None else None
            if failure is not None:  # asking about a call that cannot work helps no one
                call.decision, call.source, call.reason = "skip", "invalid", "the call would fail"
                return failure
            d = await self._ask(call, d, f)
        call.decision, call.source, call.rule = d.kind, d.source, d.rule
        call.reason, call.mode = d.reason, self.mode
        if d.kind == "allow":
            return await nxt(call, ctx)
        self.sink.emit(PermissionDenied(call.id, call.name, call.args, d.reason))
        return error(
            f"permission denied for {call.name}: {d.reason or 'not allowed'}",
            can_retry=False,
            hint="do not retry the same call; continue without it or explain what you need",
        )

    async def _ask(self, call: Call, d: Decision, f: Facts) -> Decision:
        asker = self.asker
        if asker is None:
            return asking.no_terminal(call, self.tools[call.name], d, f)
        async with self.lock:  # one prompt at a time; an earlier answer may cover this call
            if d.source != "hook":
                again, f = self.decide(call)
                if again.kind != "ask":
                    return again
            return await asking.ask(self, asker, call, replace(d, reason=d.reason or f.problem), f)
