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
from agent.config.load import Config
from agent.config.modes import PermissionMode
from agent.permissions import asking, grants
from agent.permissions.decide import apply_hook, facts, verdict, workspace_of
from agent.permissions.facts import Decision, Facts
from agent.permissions.grants import Grant, granted_by
from agent.permissions.judged import judging
from agent.permissions.paths import Workspace
from agent.permissions.request import Asker
from agent.permissions.rules import RuleSet, Vocabulary, compile_rules, read_denials

# The allowed-tools a command or skill grants the turn it sends (set in the command's task, so
# only that task's turn takes them: a /loop turn waiting for the lock never does).
NO_GRANT = Grant()  # frozen: the default of every task
GRANT: ContextVar[Grant] = ContextVar("agent_turn_grant", default=NO_GRANT)


class Gate:
    """Middleware: decide; ask the user when there is a terminal, else deny and record it."""

    def __init__(
        self,
        tools: dict[str, Tool],
        rules: dict[str, Any],
        mode: PermissionMode,
        sink: Sink,
        asker: Asker | None = None,
        *,
        workspace: Workspace | Path | None = None,
        root: Path | None = None,
        deny_read: tuple[str, ...] = (),
    ) -> None:
        self.tools, self.mode, self.sink, self.asker = tools, mode, sink, asker
        self.rules = {k: list(v) if isinstance(v, list) else v for k, v in rules.items()}
        # sandbox.denyRead: a deny rule of every tool that reads files (the sandbox hides them)
        readers = [t.name for t in self._readers()]
        denied = [f"{name}({path})" for path in deny_read for name in readers]
        self.rules["neverAllow"] = [*self.rules.get("neverAllow", []), *denied]
        self.ws = workspace_of(workspace, self.rules)
        self.root = root or self.ws.root  # where .agent/settings.local.json lives
        # Relative path rules start at the project root whatever the working directory.
        self.rule_ws = replace(self.ws, root=Path(os.path.realpath(self.root)))
        self.session_rules: list[str] = []
        # Rules that hold until the current user turn ends (a skill's or command's
        # allowed-tools); deny rules, ask rules and protected paths still come first.
        self.turn_grants: list[Grant] = []  # agent.permissions.grants
        self.sandboxed = False  # commands run in an OS sandbox (agent.sandbox): fewer prompts
        self._vocab: tuple[tuple[str, ...], Vocabulary] = ((), Vocabulary())
        self.lock = asyncio.Lock()

    def _readers(self) -> list[Tool]:
        """The tools that read files or folders (and change nothing)."""
        return [
            t
            for t in self.tools.values()
            if t.read_only and t.target is not None and t.target.what in ("file", "folder")
        ]

    def read_denials(self) -> list[str]:
        """The absolute path patterns deny rules forbid reading (what the sandbox hides)."""
        return read_denials(self.live_rules(), [t.name for t in self._readers()])

    def allow_reads(self, folder: Path) -> None:
        """Let read-only tools read below `folder` (this session's saved outputs) unasked."""
        real = os.path.realpath(folder)
        self.ws = replace(self.ws, reads=(*self.ws.reads, real))
        self.rule_ws = replace(self.rule_ws, reads=self.ws.reads)

    def add_dir(self, folder: Path) -> None:
        """Take `folder` into the workspace for the rest of the session (/add-dir), as
        permissions.additionalDirectories (--add-dir) does at start."""
        real = os.path.realpath(folder)
        dirs = self.rules.setdefault("additionalDirectories", [])
        if real not in dirs:
            dirs.append(real)
        extra = (*self.ws.extra, Path(real))
        self.ws = replace(self.ws, extra=extra)
        self.rule_ws = replace(self.rule_ws, extra=extra)

    @property
    def turn_rules(self) -> list[str]:
        """What the turn's grants allow until it ends."""
        return list(dict.fromkeys(r for g in self.turn_grants for r in g.rules))

    def allow_for_turn(self, grant: Grant) -> None:
        """Allow what `grant` names until the turn ends (a skill the model loads mid-turn), as
        far as a grant may (agent.permissions.grants)."""
        self.turn_grants.append(grant)

    def start_turn(self, grant: Grant) -> None:
        """A turn begins (its lock held): only what its own command granted holds."""
        self.turn_grants = [grant]

    def end_turn(self) -> None:
        self.turn_grants.clear()

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
        return self._limited(self._boxed(verdict(f, self.mode, tool), f, tool, call), tool, call), f

    def _limited(self, d: Decision, tool: Tool, call: Call) -> Decision:
        """A decision a skill's or command's grant made, as far as a grant may go."""
        own = {*self.rules.get("alwaysAllow", []), *self.session_rules}
        if d.source != "rule" or d.rule not in self.turn_rules or d.rule in own:
            return d
        grant = granted_by(d.rule, self.turn_grants)
        return grants.limit(d, grant, self._inside(tool, call, sorted(own)))

    def _inside(self, tool: Tool, call: Call, own: list[str]) -> bool:
        """Whether a call stays inside the workspace, by the user's own rules alone."""
        target = tool.target
        if target is not None and target.what == "command":
            # deferred: ~30 ms (the shell parser): only for a call a grant allowed
            from agent.permissions.shell.places import command_inside

            return command_inside(target.value(call.args), self.ws)
        if target is None or target.what not in ("file", "folder", "files"):
            return True
        rs = compile_rules({**self.rules, "alwaysAllow": own}, self.rule_ws, self.vocabulary())
        return facts(rs, tool, call.args, self.ws, self.peers(tool)).inside

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
            asked = d
            d, f = await self._ask(call, d, f)
            if asked.source == "grant" and d.kind == "allow":  # the user saw it: confirmed
                confirmed = granted_by(asked.rule, self.turn_grants)
                if confirmed is not None:
                    grants.confirm(confirmed)
        call.decision = "allow" if d.kind == "allow" else "deny"  # asked: the answer decided
        call.source, call.rule = d.source, d.rule
        call.reason, call.mode = d.reason, self.mode
        if d.kind == "allow":
            with judging(f.paths, self.ws.dirs):  # where file tools may write (judged.py)
                return await nxt(call, self._judging(call, ctx, f))
        self.sink.emit(PermissionDenied(call.id, call.name, call.args, d.reason))
        return error(
            f"permission denied for {call.name}: {d.reason or 'not allowed'}",
            can_retry=False,
            hint="do not retry the same call; continue without it or explain what you need",
        )

    def _judging(self, call: Call, ctx: ToolContext, f: Facts) -> ToolContext:
        """The context an allowed call runs with: one that judges any further target of the
        call (a redirect's URL) as the call itself was judged (ToolContext.judge_target)."""
        target = self.tools[call.name].target
        if target is None:
            return ctx
        covered = tuple(f.suggest)  # what the call was allowed for, as a rule would say it

        async def judge(value: str, why: str) -> str | None:
            return await self._judge_more(call, {**call.args, target.arg: value}, why, covered)

        return replace(ctx, judge_target=judge)

    async def _judge_more(
        self, call: Call, args: dict[str, Any], why: str, covered: tuple[str, ...]
    ) -> str | None:
        """One more target of a running call: rules and the mode decide as for its first; what
        would ask is asked about (denied without a terminal), unless the call was allowed for
        the same scope (the same host); a denial is reported like the gate's own."""
        more = Call(call.id, call.name, args, trigger=call.trigger)
        d, f = self.decide(more)
        if d.kind == "ask":
            if covered and tuple(f.suggest) == covered and d.source != "protected":
                return None
            said = f"{why}; {d.reason}" if d.reason else why
            d, f = await self._ask(more, replace(d, reason=said), f)
        if d.kind == "allow":
            return None
        reason = d.reason or "not allowed"
        self.sink.emit(PermissionDenied(call.id, call.name, args, f"{why}: {reason}"))
        return reason

    async def _ask(self, call: Call, d: Decision, f: Facts) -> tuple[Decision, Facts]:
        """The answer, and the facts it was given on (decided again once the lock is held)."""
        asker = self.asker
        if asker is None:
            return asking.no_terminal(call, self.tools[call.name], d, f), f
        async with self.lock:  # one prompt at a time; an earlier answer may cover this call
            if d.source != "hook":
                again, f = self.decide(call)
                if again.kind != "ask":
                    return again, f
            why = replace(d, reason=d.reason or f.problem)
            return await asking.ask(self, asker, call, why, f), f

    def for_workspace(self, cwd: Path) -> Gate:
        """This gate for another workspace (a worktree): the same rules, mode, session answers
        and prompt lock; paths are judged against `cwd`."""
        g = Gate(
            self.tools, self.rules, self.mode, self.sink, self.asker, workspace=cwd, root=self.root
        )
        g.rules, g.session_rules, g.lock = self.rules, self.session_rules, self.lock
        g.sandboxed = self.sandboxed
        for folder in self.ws.reads:  # the session's saved outputs
            g.allow_reads(Path(folder))
        return g


def session_gate(cfg: Config, tools: dict[str, Tool], sink: Sink, asker: Asker | None) -> Gate:
    """The gate of a session (or of `agent mcp serve`) as its configuration sets it."""
    return Gate(
        tools,
        cfg.permissions,
        cfg.permission_mode,
        sink,
        asker,
        workspace=cfg.cwd,
        root=cfg.root,
        deny_read=cfg.options.sandbox.deny_read,
    )
