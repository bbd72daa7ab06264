"""The pure `decide` function (SPEC §5) and the permission gate (dispatch middleware).

decide(rules, mode, tool, args, workspace) -> Decision(kind allow|ask|deny, reason, source,
rule). Order: a neverAllow rule denies; plan mode denies what is not read-only; protected
paths (.git/, .agent/settings*.json, .env*, ~/.ssh, credentials…) ask in every mode; then
bypassPermissions allows; an ask rule asks; an allow rule allows; read-only tools and the
built-in read-only shell commands are allowed inside the workspace; acceptEdits allows edits
inside the workspace; dontAsk denies the rest; everything else asks.
"""

from __future__ import annotations

import asyncio
import functools
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agent.base.events import PermissionDenied, Sink
from agent.base.record import Call, Next, Tool, ToolContext, ToolResult, error
from agent.permissions.paths import Workspace, check, names_protected, within
from agent.permissions.rules import (
    FILE_TOOLS,
    RuleSet,
    compile_rules,
    domain_match,
    literal,
    path_match,
)

EDIT_TOOLS = ("write_file", "edit_file")
NEEDS_APPROVAL = frozenset({"web_fetch"})  # read-only for the disk, but it sends data out


@dataclass(frozen=True)
class Decision:
    kind: str  # allow | ask | deny
    reason: str = ""
    source: str = ""  # rule | mode | read-only | protected | outside | shell | user | hook
    rule: str = ""  # the rule that decided, when a rule did


@dataclass
class Facts:
    """What decide learned about one call before applying the mode."""

    deny: str = ""
    deny_reason: str = ""
    ask: str = ""
    allow: str = ""
    read_only: bool = False
    inside: bool = True
    protected: str = ""
    problem: str = ""
    target: str = ""  # resolved path, command or host (shown in the prompt)
    why: str = ""  # why it is not allowed yet, for the prompt and the denial
    suggest: list[str] = field(default_factory=list)
    edits_mode: bool = False  # acceptEdits would allow it (and not open all of home)


def workspace_of(workspace: Workspace | Path | str | None, rules: dict[str, Any]) -> Workspace:
    if isinstance(workspace, Workspace):
        return workspace
    extra = (*rules.get("additionalDirectories", ()), *rules.get("approvedDirs", ()))
    return _workspace(str(workspace or Path.cwd()), extra, os.path.expanduser("~"))


@functools.lru_cache(maxsize=64)
def _workspace(root: str, extra: tuple[str, ...], home: str) -> Workspace:
    return Workspace.make(Path(root), extra, Path(home))


def decide(
    rules: dict[str, Any] | RuleSet,
    mode: str,
    tool: Tool,
    args: dict[str, Any],
    workspace: Workspace | Path | str | None = None,
) -> Decision:
    """Allow, ask or deny one call (pure apart from reading the file system's links)."""
    raw = rules if isinstance(rules, dict) else {}
    ws = workspace_of(workspace, raw)
    rs = rules if isinstance(rules, RuleSet) else compile_rules(rules, ws)
    return verdict(facts(rs, tool, args, ws), mode, tool)


def facts(rs: RuleSet, tool: Tool, args: dict[str, Any], ws: Workspace) -> Facts:
    name = tool.name
    if name == "bash":
        from agent.permissions.shell.policy import bash_facts

        return bash_facts(rs, str(args.get("command", "")), ws)
    if name == "run_action":
        from agent.actions.tool import action_facts

        return action_facts(rs, tool, args, ws.root)
    f = Facts(read_only=tool.read_only and name not in NEEDS_APPROVAL)
    if name in FILE_TOOLS:
        _file_facts(f, rs, name, args, ws)
    elif name == "web_fetch":
        _web_facts(f, rs, str(args.get("url", "")))
    else:
        f.suggest = [name]
        for kind in ("deny", "ask", "allow"):  # a specifier we cannot check denies, never allows
            hit = next(
                (r for r in rs.for_tool(kind, name) if r.spec is None or kind != "allow"), None
            )
            setattr(f, kind, hit.text if hit else "")
        f.deny_reason = f"denied by rule {f.deny!r}" if f.deny else ""
    return f


def _file_facts(f: Facts, rs: RuleSet, name: str, args: dict[str, Any], ws: Workspace) -> None:
    raw = str(args.get("path") or ".")
    v = check(raw, ws)
    f.target, f.inside, f.protected = str(v.shown), v.inside, v.secret
    pattern = str(args.get("pattern" if name == "glob" else "glob", "") or "")
    if pattern and name in ("glob", "grep"):
        _pattern_facts(f, pattern, v.shown, ws)
    for kind in ("deny", "ask"):
        hit = next(
            (
                r
                for r in rs.for_tool(kind, name)
                if r.spec is None or r.path is None or any(path_match(r, p) for p in v.paths)
            ),
            None,
        )
        setattr(f, kind, hit.text if hit else "")
    f.deny_reason = f"denied by rule {f.deny!r}" if f.deny else ""
    for r in rs.for_tool("allow", name):
        if (r.spec is None and f.inside) or (
            r.path is not None and all(path_match(r, p) for p in v.paths)
        ):
            f.allow, f.inside = r.text, True  # an explicit path rule widens the workspace
            break
    f.suggest = _dir_rules(name, v.shown, rs.anchor or ws.root, ws.home)
    # Not the advice where it would let every file of home be edited (the project is ~).
    f.edits_mode = name in EDIT_TOOLS and f.inside and not within(ws.home, ws.dirs)


def _pattern_facts(f: Facts, pattern: str, base: Path, ws: Workspace) -> None:
    """A glob that climbs out (`../*`, `/etc/*`, `~/*`) or names secrets (`**/.env`)."""
    parts = pattern.replace("\\", "/").split("/")
    if pattern.startswith(("/", "~")) or ".." in parts:
        literal = "/".join(
            p
            for p in parts[
                : next((i for i, p in enumerate(parts) if any(c in p for c in "*?[{")), len(parts))
            ]
        )
        v = check(literal or "/", ws, base)
        f.inside = f.inside and v.inside
        f.protected = f.protected or v.secret
    if not f.protected and names_protected(pattern):
        f.protected = f"the pattern {pattern!r} reaches protected files"


def _dir_rules(name: str, path: Path, anchor: Path, home: Path) -> list[str]:
    """`d` (remember this directory): the folder, relative to where rules start (the project
    root, where settings.local.json lives) so the rule means the same from any directory;
    never one holding all of home (`~`, `/`): then the file alone, or nothing for a search."""
    folder = path if name in ("glob", "grep") else path.parent
    tools = EDIT_TOOLS if name in EDIT_TOOLS else (name,)
    if within(home, (folder,)):
        return [] if name in ("glob", "grep") else [f"{t}({literal(str(path))})" for t in tools]
    try:
        rel = folder.relative_to(anchor).as_posix()
        spec = "**" if rel == "." else f"{literal(rel)}/**"
    except ValueError:
        spec = f"{literal(folder.as_posix().rstrip('/'))}/**"
    return [f"{t}({spec})" for t in tools]


def _web_facts(f: Facts, rs: RuleSet, url: str) -> None:
    try:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        host = ""
    f.target = url
    f.suggest = [f"web_fetch(domain:{host})"] if host else []
    for kind in ("deny", "ask", "allow"):
        hit = next(
            (
                r
                for r in rs.for_tool(kind, "web_fetch")
                if r.spec is None or domain_match(r, host) or (kind != "allow" and not r.domain)
            ),
            None,
        )
        setattr(f, kind, hit.text if hit else "")
    f.deny_reason = f"denied by rule {f.deny!r}" if f.deny else ""


def verdict(f: Facts, mode: str, tool: Tool) -> Decision:
    """Apply the mode to what decide learned."""
    if f.deny:
        return Decision("deny", f.deny_reason, "rule", f.deny)
    if mode == "plan" and not f.read_only:
        return Decision("deny", "plan mode allows read-only tools only", "mode")
    if f.protected:
        return Decision("ask", f.protected, "protected")
    if f.deny_reason:  # a deny rule might match once the shell expands the command
        return Decision("ask", f.deny_reason, "rule")
    if mode == "bypassPermissions":
        return Decision("allow", source="mode")
    if f.ask:
        return Decision("ask", f"rule {f.ask!r} asks", "rule", f.ask)
    if f.allow:
        return Decision("allow", source="rule", rule=f.allow)
    if f.read_only and f.inside and not f.problem:
        return Decision("allow", source="read-only")
    if mode == "acceptEdits" and tool.name in EDIT_TOOLS and f.inside:
        return Decision("allow", source="mode")
    why = f.problem or ("outside the workspace" if not f.inside else f.why)
    if mode == "dontAsk":
        return Decision("deny", f"{tool.name} is not allowed ({why or 'dontAsk mode'})", "mode")
    return Decision("ask", why, "shell" if f.problem else ("mode" if f.inside else "outside"))


def apply_hook(d: Decision, hook: tuple[str, str] | None) -> Decision:
    """A PreToolUse hook's permissionDecision: deny wins; allow skips a prompt, except the
    ones that always ask (secrets, .git/, agent settings, actions with requiresConfirm); ask
    asks."""
    if not hook:
        return d
    kind, reason = hook
    if kind == "deny" and d.kind != "deny":
        return Decision("deny", reason or "blocked by a PreToolUse hook", "hook")
    if kind == "allow" and d.kind == "ask" and d.source != "protected":
        return Decision("allow", reason, "hook")
    if kind == "ask" and d.kind == "allow":
        return Decision("ask", reason or "a PreToolUse hook asks for approval", "hook")
    return d


class Gate:
    """Middleware: decide; ask the user when there is a terminal, else deny and record it."""

    def __init__(
        self,
        tools: dict[str, Tool],
        rules: dict[str, Any],
        mode: str,
        sink: Sink,
        asker: Any = None,
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
        self.lock = asyncio.Lock()

    def table(self) -> list[Any]:
        """The live rules with their origin files (for a /permissions command)."""
        from agent.permissions.asking import rule_origins

        return rule_origins(self.rules, self.session_rules, self.root)

    def live_rules(self) -> RuleSet:
        allow = [*self.rules.get("alwaysAllow", []), *self.session_rules]
        return compile_rules({**self.rules, "alwaysAllow": allow}, self.rule_ws)

    def decide(self, call: Call) -> tuple[Decision, Facts]:
        tool = self.tools[call.name]
        f = facts(self.live_rules(), tool, call.args, self.ws)
        return verdict(f, self.mode, tool), f

    async def __call__(self, call: Call, ctx: ToolContext, nxt: Next) -> ToolResult:
        d, f = self.decide(call)
        d = apply_hook(d, call.meta.get("hook_decision"))
        if d.kind == "ask":
            from agent.permissions.asking import doomed

            failure = doomed(self, call)
            if failure is not None:  # asking about a call that cannot work helps no one
                call.meta.update(decision="skip", source="invalid", reason="the call would fail")
                return failure
            d = await self._ask(call, d, f)
        call.meta.update(
            decision=d.kind, source=d.source, rule=d.rule, reason=d.reason, mode=self.mode
        )
        if d.kind == "allow":
            return await nxt(call, ctx)
        self.sink.emit(PermissionDenied(call.id, call.name, call.args, d.reason))
        return error(
            f"permission denied for {call.name}: {d.reason or 'not allowed'}",
            can_retry=False,
            hint="do not retry the same call; continue without it or explain what you need",
        )

    async def _ask(self, call: Call, d: Decision, f: Facts) -> Decision:
        from agent.permissions import asking

        if self.asker is None:
            return asking.no_terminal(call, d, f)
        async with self.lock:  # one prompt at a time; an earlier answer may cover this call
            if d.source != "hook":
                again, f = self.decide(call)
                if again.kind != "ask":
                    return again
            return await asking.ask(self, call, replace(d, reason=d.reason or f.problem), f)
