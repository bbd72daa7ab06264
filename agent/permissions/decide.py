"""The pure decision (SPEC §5): decide(rules, mode, tool, args, workspace) -> Decision.

Order: a neverAllow rule denies; plan mode denies what is not read-only; protected paths (.git/,
.agent/settings*.json, .env*, ~/.ssh, credentials…) ask in every mode; then bypassPermissions
allows; an ask rule asks; an allow rule allows; read-only tools and the built-in read-only shell
commands are allowed inside the workspace; acceptEdits allows edits inside the workspace;
dontAsk denies the rest; everything else asks.

The facts of a call come from what its tool's record says it acts on (`Tool.target`): a file or
a folder, a shell command, a URL; never from the tool's name. Target kinds this layer does not
judge itself (a project action) are judged by the function their package registers.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agent.base.record import Tool
from agent.config.modes import PermissionMode
from agent.permissions.facts import Decision, Facts
from agent.permissions.later import first_runs_later
from agent.permissions.paths import Workspace, check, names_protected, within
from agent.permissions.rules import (
    Rule,
    RuleKind,
    RuleSet,
    Vocabulary,
    compile_rules,
    dir_rules,
    domain_match,
    path_match,
)

# (rules, tool, arguments, workspace) -> the facts of a call, for a target kind judged elsewhere
FactsFor = Callable[[RuleSet, Tool, dict[str, Any], Workspace], Facts]
_JUDGES: dict[str, FactsFor] = {}


def register(what: str, judge: FactsFor) -> None:
    """Judge calls whose target is `what` with `judge` (agent.actions registers "action")."""
    _JUDGES[what] = judge


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
    mode: PermissionMode,
    tool: Tool,
    args: dict[str, Any],
    workspace: Workspace | Path | str | None = None,
) -> Decision:
    """Allow, ask or deny one call (pure apart from reading the file system's links)."""
    raw = rules if isinstance(rules, dict) else {}
    ws = workspace_of(workspace, raw)
    rs = rules if isinstance(rules, RuleSet) else compile_rules(rules, ws, Vocabulary.of([tool]))
    return verdict(facts(rs, tool, args, ws), mode, tool)


def facts(
    rs: RuleSet, tool: Tool, args: dict[str, Any], ws: Workspace, peers: tuple[str, ...] = ()
) -> Facts:
    """What one call touches and which rules speak to it. `peers`: the tools a remembered
    rule should cover too (the registry's other tools of the same kind and target)."""
    target = tool.target
    if target is None:
        return _named_facts(rs, tool)
    if target.what == "command":
        # deferred: ~30 ms (the shell parser and policy): a session may never judge a command
        from agent.permissions.shell.policy import command_facts

        return command_facts(rs, tool.name, target.value(args), ws)
    if target.what in _JUDGES:
        return _JUDGES[target.what](rs, tool, args, ws)
    if target.what in ("file", "folder"):
        f = Facts(read_only=tool.read_only)
        _file_facts(f, rs, tool, args, ws, peers or (tool.name,))
        return f
    if target.what == "files":
        return _files_facts(rs, tool, args, ws, peers or (tool.name,))
    if target.what == "url":  # read-only for the disk, but the call sends data out
        f = Facts(read_only=False)
        _web_facts(f, rs, tool.name, target.value(args))
        return f
    return _named_facts(rs, tool)


def _named_facts(rs: RuleSet, tool: Tool) -> Facts:
    """A tool judged by its name alone: rules name the whole tool. A network tool is never
    allowed as read-only: it sends what the model chose (a search query) out of the machine."""
    f = Facts(read_only=tool.read_only and tool.target is None and tool.kind != "network")
    f.why = "it sends data out of this machine" if tool.kind == "network" else ""
    f.suggest = [tool.name]
    # a specifier we cannot check denies and asks, never allows
    f.deny = _first(rs, "deny", tool.name, _whole_or_any)
    f.ask = _first(rs, "ask", tool.name, _whole_or_any)
    f.allow = _first(rs, "allow", tool.name, _whole)
    f.deny_reason = f"denied by rule {f.deny!r}" if f.deny else ""
    return f


def _file_facts(
    f: Facts,
    rs: RuleSet,
    tool: Tool,
    args: dict[str, Any],
    ws: Workspace,
    peers: tuple[str, ...],
    raw: str | None = None,
) -> None:
    """The facts of a file or folder call (`raw`: one of the files a patch names)."""
    assert tool.target is not None
    name, folder = tool.name, tool.target.what == "folder"
    v = check(raw if raw is not None else tool.target.value(args) or ".", ws)
    f.target, f.inside, f.protected = str(v.shown), v.inside, v.secret
    f.paths = v.paths
    if not tool.read_only and not f.protected:  # no mode writes what runs later unasked
        f.protected = first_runs_later(v.paths, ws.dirs)
    if tool.read_only and ws.reads and all(within(p, ws.reads) for p in v.paths):
        f.inside, f.protected = True, ""  # the session's own saved outputs
    pattern = tool.target.pattern(args)
    if pattern:
        _pattern_facts(f, pattern, v.shown, ws)
    on_paths = _on_paths(v.paths)
    f.deny = _first(rs, "deny", name, on_paths)
    f.ask = _first(rs, "ask", name, on_paths)
    f.deny_reason = f"denied by rule {f.deny!r}" if f.deny else ""
    for r in rs.for_tool("allow", name):
        if (r.spec is None and f.inside) or (
            r.path is not None and all(path_match(r, p) for p in v.paths)
        ):
            f.allow, f.inside = r.text, True  # an explicit path rule widens the workspace
            break
    f.suggest = dir_rules(peers, v.shown, folder, rs.anchor or ws.root, ws.home)
    # Not the advice where it would let every file of home be edited (the project is ~).
    f.edits_mode = tool.kind == "edit" and f.inside and not within(ws.home, ws.dirs)


def _files_facts(
    rs: RuleSet, tool: Tool, args: dict[str, Any], ws: Workspace, peers: tuple[str, ...]
) -> Facts:
    """A call on several files (a patch) is judged as a change of each: one denied file denies
    it whole, one protected file asks for it whole, it is inside only when all are, and a rule
    allows it only when it allows every file."""
    assert tool.target is not None
    paths = tool.target.paths(args)
    if not paths:  # unreadable: the tool will say why; nothing to allow it by
        return _named_facts(rs, tool)
    parts = []
    for raw in paths:
        part = Facts(read_only=tool.read_only)
        _file_facts(part, rs, tool, args, ws, peers, raw)
        parts.append(part)
        for peer in peers:  # a deny or ask rule of edit_file/write_file holds for a patch too
            if peer != tool.name and not part.deny:
                _peer_rules(part, rs, peer, raw, ws)
    f = Facts(read_only=tool.read_only)
    denied = next((p for p in parts if p.deny), None)
    if denied is not None:
        f.deny, f.deny_reason = denied.deny, denied.deny_reason
    f.protected = next((p.protected for p in parts if p.protected), "")
    f.ask = next((p.ask for p in parts if p.ask), "")
    f.allow = parts[0].allow if all(p.allow for p in parts) else ""
    f.inside = all(p.inside for p in parts)
    f.edits_mode = all(p.edits_mode for p in parts)
    f.why = next((p.why for p in parts if p.why), "")
    f.target = ", ".join(p.target for p in parts)
    f.paths = tuple(p for part in parts for p in part.paths)
    f.suggest = list(dict.fromkeys(s for p in parts for s in p.suggest))
    return f


def _peer_rules(f: Facts, rs: RuleSet, peer: str, raw: str, ws: Workspace) -> None:
    """Another edit tool's deny or ask rule that names this file."""
    on_paths = _on_paths(check(raw, ws).paths)
    f.deny = f.deny or _first(rs, "deny", peer, on_paths)
    f.ask = f.ask or _first(rs, "ask", peer, on_paths)
    if f.deny and not f.deny_reason:
        f.deny_reason = f"denied by rule {f.deny!r}"


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


def _web_facts(f: Facts, rs: RuleSet, name: str, url: str) -> None:
    try:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        host = ""
    f.target = url
    f.suggest = [f"{name}(domain:{host})"] if host else []
    # a rule naming no domain (a specifier of another kind) denies and asks, never allows
    f.deny = _first(rs, "deny", name, lambda r: _reaches(r, host) or not r.domain)
    f.ask = _first(rs, "ask", name, lambda r: _reaches(r, host) or not r.domain)
    f.allow = _first(rs, "allow", name, lambda r: _reaches(r, host))
    f.deny_reason = f"denied by rule {f.deny!r}" if f.deny else ""


def _first(rs: RuleSet, kind: RuleKind, tool: str, fits: Callable[[Rule], bool]) -> str:
    """The first `kind` rule of `tool` that fits the call ("" when none does)."""
    return next((r.text for r in rs.for_tool(kind, tool) if fits(r)), "")


def _whole(r: Rule) -> bool:
    return r.spec is None


def _whole_or_any(r: Rule) -> bool:
    return True


def _on_paths(paths: tuple[str, ...]) -> Callable[[Rule], bool]:
    """A rule for the whole tool, one whose specifier is no path, or one matching a path."""
    return lambda r: r.spec is None or r.path is None or any(path_match(r, p) for p in paths)


def _reaches(r: Rule, host: str) -> bool:
    return r.spec is None or domain_match(r, host)


def verdict(f: Facts, mode: PermissionMode, tool: Tool) -> Decision:
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
    if mode == "acceptEdits" and tool.kind == "edit" and f.inside:
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
