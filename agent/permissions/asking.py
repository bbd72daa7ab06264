"""Asking the user about a call: what the prompt shows, what answers do, remembered rules.

The gate builds an AskRequest (tool, resolved path or full command, a unified diff for writes
and edits, the rules that "remember" would add) and awaits the asker, a UI function returning
an Answer: `y` once, `s` this session, `d` remember this directory (file tools) or `a` remember
this command prefix (bash) — saved to `.agent/settings.local.json` — or `n` with an optional
reason that is passed to the model. Without an asker (one-shot, CI, JSON) nothing prompts: ask
becomes deny, with a message saying how to allow the call.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.base.record import Call
from agent.config.agentdir import ensure_agent_dir
from agent.config.settings import ConfigError, is_own, mark_own, read_settings, split_rules
from agent.permissions.paths import lexical

if TYPE_CHECKING:
    from agent.base.record import ToolResult
    from agent.permissions.gate import Decision, Facts, Gate

PREVIEW_BYTES = 2 << 20  # files larger than this get no diff in the prompt


@dataclass(frozen=True)
class AskRequest:
    """Everything the prompt shows."""

    tool: str
    args: dict[str, Any]
    reason: str
    target: str  # the resolved path, the full command or the URL
    diff: str = ""
    choices: tuple[str, ...] = ("y", "s", "n")
    remember: tuple[str, ...] = ()  # rules that s / d / a add
    for_model: bool = True  # a "no" may carry a reason for the model (not for /rewind's own)


@dataclass(frozen=True)
class Answer:
    choice: str  # y s d a n
    reason: str = ""


Asker = Callable[[AskRequest], Awaitable[Answer]]


@dataclass(frozen=True)
class RuleOrigin:
    """One live rule and where it came from (for /permissions)."""

    list: str  # alwaysAllow | ask | neverAllow
    rule: str
    source: str  # a settings file, "command line" or "session"


def rule_origins(rules: dict[str, Any], session: list[str], root: Path) -> list[RuleOrigin]:
    """Every live rule with the first settings file that lists it (later files win ties)."""
    from agent.config.settings import user_dir

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


def no_terminal(call: Call, d: Decision, f: Facts) -> Decision:
    from agent.permissions.gate import Decision

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
        what = "this action needs" if call.name == "run_action" else "protected files need"
        fix = f"{what} a person's approval: run interactively"
    why = d.reason or "needs approval"
    return Decision(
        "deny",
        f"{why}; no terminal to ask for approval ({fix})",
        "mode" if d.source in ("mode", "outside", "shell") else d.source,
        d.rule,
    )


def request(call: Call, d: Decision, f: Facts, root: Path) -> AskRequest:
    diff = preview(call.name, call.args, root) if call.name in ("write_file", "edit_file") else ""
    remember = "d" if call.name in ("write_file", "edit_file", "read_file", "glob", "grep") else "a"
    choices: tuple[str, ...] = ("y", "s", remember, "n") if f.suggest else ("y", "n")
    if f.protected:
        choices = ("y", "n")  # protected paths are approved one call at a time
    return AskRequest(
        call.name, call.args, d.reason, f.target or call.name, diff, choices, tuple(f.suggest)
    )


async def ask(gate: Gate, call: Call, d: Decision, f: Facts) -> Decision:
    """Prompt through the gate's asker and apply the answer."""
    from agent.permissions.gate import Decision

    req = request(call, d, f, gate.ws.root)
    ans = await gate.asker(req)
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


def edit_local(root: Path, change: Any) -> Path:
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
    from agent.config import safefile

    try:
        safefile.write_atomic(path.parent.parent, path, text.encode("utf-8"))
    except safefile.SymlinkRefused as e:
        raise ConfigError(str(e)) from None


def preview(name: str, args: dict[str, Any], root: Path) -> str:
    """The unified diff a write_file/edit_file call would make (computed before it runs, the
    way the tool computes it: same decoding, line endings and matching)."""
    from agent.tools import difftext, textio
    from agent.tools.common import ToolError

    path = lexical(str(args.get("path", "")), root)
    try:
        planned = _planned(name, args, path)
    except ToolError as exc:
        why = textio.printable(exc.what.splitlines()[0])  # a near-miss may quote stray bytes
        return f"({why}; the {name.removesuffix('_file')} will fail)"
    if planned is None:
        big = path.is_file() and path.stat().st_size > PREVIEW_BYTES
        return f"({path.name} is too large to preview)" if big else ""
    name = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
    return textio.printable(difftext.unified_diff(*planned, name)[0])


def doomed(gate: Gate, call: Call) -> ToolResult | None:
    """The error a write_file/edit_file call will end with (old_string not found, a binary or
    read-only file…), found before anyone is asked to approve it: no prompt for a call that
    cannot work, and the call is not run. Only where the file could be read without asking:
    the error quotes the file (a near-miss) and tells whether a text is in it."""
    from agent.base.record import Call as Peek
    from agent.tools.common import ToolError

    path = call.args.get("path")
    if call.name not in ("write_file", "edit_file") or "read_file" not in gate.tools:
        return None
    if not isinstance(path, str) or not path.strip():
        return None  # the tool names that problem itself
    peek, _ = gate.decide(Peek(call.id, "read_file", {"path": path}))
    if peek.kind != "allow":  # a protected or outside file: a person decides first
        return None
    try:
        _planned(call.name, call.args, lexical(path, gate.ws.root))
    except ToolError as exc:
        return exc.result()
    return None


def _planned(name: str, args: dict[str, Any], path: Path) -> tuple[str, str] | None:
    """(old text, new text) of the file, None when it cannot be checked cheaply; raises the
    ToolError the tool would return."""
    from agent.tools.edits import encoded, plan

    try:
        if path.is_file() and path.stat().st_size > PREVIEW_BYTES:
            return None
        cur, new = plan(name, args, path)
        encoded(cur, new)
    except (OSError, ValueError):
        return None
    return cur.text, new
