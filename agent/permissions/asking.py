"""Asking the user about a call: what the prompt shows, what answers do, remembered rules.

The gate builds an AskRequest (tool, resolved path or full command, a unified diff for writes
and edits, the rules that "remember" would add) and awaits the asker, a UI function returning
an Answer: `y` once, `s` this session, `d` remember this directory (file tools) or `a` remember
this command prefix (bash) — saved to `.agent/settings.local.json` — or `n` with an optional
reason that is passed to the model. Without an asker (one-shot, CI, JSON) nothing prompts: ask
becomes deny, with a message saying how to allow the call — or, for a value that a prompt could
not show as it is (agent.permissions.showing), saying that.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agent.base.record import Call, Tool, ToolResult
from agent.config import safefile
from agent.config.agentdir import ensure_agent_dir
from agent.config.settings import ConfigError, read_settings, split_rules, user_dir
from agent.config.trust import is_own, mark_own
from agent.permissions import showing
from agent.permissions.facts import Decision, Facts
from agent.permissions.paths import Workspace
from agent.permissions.request import Answer, Asker, AskRequest


class Asking(Protocol):
    """What asking needs of the permission gate (agent.permissions.gate.Gate)."""

    tools: dict[str, Tool]
    ws: Workspace
    root: Path  # where settings.local.json lives
    asker: Asker | None  # None: no terminal
    rules: dict[str, Any]
    session_rules: list[str]

    def readable(self, call_id: str, path: str) -> bool: ...


@dataclass(frozen=True)
class RuleOrigin:
    """One live rule and where it came from (for /permissions)."""

    list: str  # alwaysAllow | ask | neverAllow
    rule: str
    source: str  # a settings file, "command line" or "session"


def rule_origins(rules: dict[str, Any], session: list[str], root: Path) -> list[RuleOrigin]:
    """Every live rule with the first settings file that lists it (later files win ties)."""

    files = [
        user_dir() / "settings.json",
        root / ".agent" / "settings.json",
        root / ".agent" / "settings.local.json",
    ]
    lists: list[tuple[Path, dict[str, Any]]] = []
    for path in dict.fromkeys(files):
        try:
            lists.append((path, read_settings(path).get("permissions", {})))
        except ConfigError:
            continue
    out: list[RuleOrigin] = []
    for kind in ("neverAllow", "ask", "alwaysAllow"):
        for rule in rules.get(kind, []):
            src = next(
                (str(p) for p, perms in lists if rule in perms.get(kind, [])),
                "session" if rule in session else "command line",
            )
            out.append(RuleOrigin(kind, rule, src))
    out += [
        RuleOrigin("alwaysAllow", r, "session")
        for r in session
        if r not in rules.get("alwaysAllow", [])
    ]
    return out


def no_terminal(call: Call, tool: Tool, d: Decision, f: Facts) -> Decision:
    # The rule for this very tool: write_file(dir/**) does not allow an edit_file call.
    own = [s for s in f.suggest if s == call.name or s.startswith(f"{call.name}(")]
    rule = (own or f.suggest or [""])[0]
    if split_rules([rule]) != (rule,):  # `(`, `)` or `,` in a path: the flag would split it
        rule = ""  # (write_file(/a),bash,(b) is three rules, one of them all of bash)
    how = f"--allowed-tools {shlex.quote(rule)}" if rule else "a rule in settings"
    if f.edits_mode and not f.protected:  # outside the workspace, acceptEdits allows nothing
        how += " or --permission-mode acceptEdits"
    fix = f"allow it with {how}"
    if d.source == "protected":  # no rule or mode opens these: only a person, when asked
        action = tool.target is not None and tool.target.what == "action"
        what = "this action needs" if action else "protected files need"
        fix = f"{what} a person's approval: run interactively"
    why = d.reason or "needs approval"
    kind = tool.target.what if tool.target is not None else ""
    odd = showing.unshowable(f.target, kind)
    if odd:  # what a prompt would have said first, the denial says too
        listed = " and ".join(odd)
        why += f"; the {showing.noun(kind)} holds {listed}, which no prompt can show as they are"
        fix = "run interactively to see it with them shown as codes"
    return Decision(
        "deny",
        f"{why}; no terminal to ask for approval ({fix})",
        "mode" if d.source in ("mode", "outside", "shell") else d.source,
        d.rule,
    )


def request(call: Call, tool: Tool, d: Decision, f: Facts, root: Path) -> AskRequest:
    shown = tool.preview(call.args, root) if tool.preview is not None else None
    diff = (shown.diff or shown.note) if shown is not None else ""
    what = tool.target.what if tool.target is not None else ""
    remember = "d" if what in ("file", "folder", "files") else "a"  # a directory, or a prefix
    choices: tuple[str, ...] = ("y", "s", remember, "n") if f.suggest else ("y", "n")
    if f.protected:
        choices = ("y", "n")  # protected paths are approved one call at a time
    return AskRequest(
        call.name,
        call.args,
        d.reason,
        f.target or call.name,
        diff,
        choices,
        tuple(f.suggest),
        what=what,
        call_id=call.id,
    )


async def ask(gate: Asking, asker: Asker, call: Call, d: Decision, f: Facts) -> Decision:
    """Prompt through the gate's asker and apply the answer."""
    req = request(call, gate.tools[call.name], d, f, gate.ws.root)
    ans = await asker(req)
    if isinstance(ans, tuple):  # an asker of the first version: (ok, reason)
        ans = Answer("y" if ans[0] else "n", ans[1])
    choice = ans.choice if ans.choice in req.choices else ("n" if ans.choice != "y" else "y")
    if choice == "y":
        return Decision("allow", "allowed once", "user")
    if choice == "s":
        gate.session_rules += [r for r in req.remember if r not in gate.session_rules]
        return Decision("allow", "allowed for this session", "user", ", ".join(req.remember))
    if choice in ("d", "a"):
        where = remember(gate.root, list(req.remember))
        allow = gate.rules.setdefault("alwaysAllow", [])
        allow += [r for r in req.remember if r not in allow]
        return Decision("allow", f"remembered in {where}", "user", ", ".join(req.remember))
    return Decision("deny", ans.reason or "the user said no", "user")


def remember(root: Path, rules: list[str]) -> Path:
    """Add allow rules to `.agent/settings.local.json` (atomic: temp file, fsync, replace)."""

    def add(perms: dict[str, Any]) -> None:
        allow = perms.setdefault("alwaysAllow", [])
        allow += [r for r in rules if r not in allow]

    try:
        return edit_local(root, add)
    except ConfigError:  # never overwrite a file the user must fix; the session rule holds
        return root / ".agent" / "settings.local.json"


def edit_local(root: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """Apply `change(permissions dict)` to `.agent/settings.local.json` atomically, recording
    the write as the user's own when the file was theirs; a broken file raises ConfigError."""
    ensure_agent_dir(root)
    path = root / ".agent" / "settings.local.json"
    data = read_settings(path)
    was_own = not path.exists() or is_own(path)
    change(data.setdefault("permissions", {}))
    text = json.dumps(data, indent=2) + "\n"
    write_atomic(path, text)
    mark_own(path, text, was_own)
    return path


def write_atomic(path: Path, text: str) -> None:
    """Replace `<root>/.agent/NAME` with `text`; a link there (the file or `.agent`) is
    refused like a broken file, never written through."""

    try:
        safefile.write_atomic(path.parent.parent, path, text.encode("utf-8"))
    except safefile.SymlinkRefused as e:
        raise ConfigError(str(e)) from None


def doomed(gate: Asking, call: Call) -> ToolResult | None:
    """The error an edit will end with (old_string not found, a binary or read-only file…),
    found before anyone is asked to approve it: no prompt for a call that cannot work, and the
    call is not run. Only where the file could be read without asking: the error quotes the
    file (a near-miss) and tells whether a text is in it."""
    tool = gate.tools[call.name]
    path = call.args.get(tool.target.arg) if tool.target is not None else None
    if tool.preview is None or not isinstance(path, str) or not path.strip():
        return None  # nothing to check, or the tool names that problem itself
    if not gate.readable(call.id, path):  # a protected or outside file: a person decides first
        return None
    shown = tool.preview(call.args, gate.ws.root)
    return shown.failure if shown is not None else None
