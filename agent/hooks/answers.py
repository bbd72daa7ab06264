"""What a hook answered: its exit status, stderr and stdout folded into the event's Outcome.

The documented answers (docs/permissions-and-hooks.md, SPEC §6): exit 2 blocks, with stderr
as the reason; for PreToolUse and UserPromptSubmit any other non-zero exit, a crash or a
time-out blocks too (fail closed), for other events it is a warning. On exit 0, stdout that is
one JSON object is the hook's answer (`decision`, `permissionDecision`, `updatedInput`,
`additionalContext`, `systemMessage`, also inside `hookSpecificOutput`); stdout that is plain
text — no JSON object in it, no line of it starting a JSON value — is output, not an answer,
as in Claude Code: the context for UserPromptSubmit and SessionStart, ignored elsewhere; empty
stdout says nothing.

Anything else is a malformed answer, a hook error like a crash: a JSON value that is not an
object (`[]`, `null`, `42`), a JSON object with text before or after it (a log line on stdout),
JSON that does not parse (cut short), or an object whose `decision` or `permissionDecision` is
not a documented value or whose fields have the wrong type. A hook that meant to block must
never be read as one that said nothing: PreToolUse and UserPromptSubmit block, and the reason
names the hook, what is wrong and what it printed; other events warn.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from agent.hooks.run import Proc

FAIL_CLOSED = ("PreToolUse", "UserPromptSubmit")
STRENGTH = {"": 0, "allow": 1, "ask": 2, "deny": 3}
SHOWN = 120  # characters of a malformed answer quoted in the message
_JSON_LINE = re.compile(r"^[ \t]*([{\[])", re.MULTILINE)  # a line that starts like JSON
_BRACE = re.compile(r"\{")
MAX_TRIED = 100  # braces tried as the start of an object (bounded work on 64 KB of output)
_DECISIONS = (None, "block", "approve")
_PERMISSIONS = (None, "allow", "ask", "deny")
_KINDS = {list: "a JSON array", str: "a JSON string", bool: "a JSON boolean", type(None): "null"}


@dataclass
class Outcome:
    """The combined answer of every hook that ran for one event."""

    blocked: bool = False
    reason: str = ""
    permission: str = ""  # allow | ask | deny
    permission_reason: str = ""
    updated_input: dict[str, Any] | None = None
    context: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)

    def block(self, why: str) -> None:
        self.blocked = True
        self.reason = f"{self.reason}\n{why}".strip()


def interpret(event: str, command: str, timeout: float, proc: Proc, out: Outcome) -> None:
    """Fold one hook's process result into the event's outcome."""
    closed = event in FAIL_CLOSED
    label = f"{event} hook `{short(command)}`"
    if proc.error or proc.timed_out or proc.code != 0:
        what = proc.error or (
            f"timed out after {timeout:g}s" if proc.timed_out else f"exited with status {proc.code}"
        )
        why = proc.stderr.strip() or f"{label} {what}"
        if closed or proc.code == 2:
            out.block(why)
        else:
            out.messages.append(f"{label} {what}: {proc.stderr.strip()[:500]}".rstrip(": "))
        return
    text = proc.stdout.strip()
    data, problem = answer(text)
    if problem:
        said = f"{label} {problem}: {quoted(text)}"
        if closed:
            out.block(f"{said}; blocking to be safe (print one JSON object on stdout, logs on "
                      "stderr)")  # fmt: skip
        else:
            out.messages.append(f"{said} (ignored)")
    elif data is not None:
        _apply(data, out)
    elif text and event in ("UserPromptSubmit", "SessionStart"):
        out.context.append(text)


def answer(text: str) -> tuple[dict[str, Any] | None, str]:
    """(the JSON object, "") for an answer, (None, "") for plain text or nothing, and
    (None, what is wrong) for a malformed answer."""
    if not text:
        return None, ""
    try:
        data = json.loads(text)
    except ValueError:
        return None, _mixed(text)
    if not isinstance(data, dict):
        kind = _KINDS.get(type(data), "a JSON number")
        return None, f"printed {kind}, not the JSON object a hook answers with"
    return data, _wrong_fields(data)


def _mixed(text: str) -> str:
    """Why stdout that is not JSON as a whole is not plain text either ("" when it is): a line
    that starts like JSON (`{`, or `[` with a whole JSON array), or a JSON object anywhere."""
    decoder = json.JSONDecoder()
    for m in _JSON_LINE.finditer(text):
        start = m.start(1)
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            if m.group(1) == "{":  # an object cut short, or not JSON at all
                return "printed invalid JSON (it starts like an object but does not parse)"
            continue  # `[INFO] …`: a log line, not JSON
        rest_of_line = text[end:].split("\n", 1)[0].strip()
        if isinstance(value, dict) or not rest_of_line:
            return f"printed other text {'before' if start else 'after'} its JSON"
    for m in itertools.islice(_BRACE.finditer(text), MAX_TRIED):  # `hook: {"decision": …}`
        try:
            value, _ = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return "printed other text before its JSON"
    if text.count("{") > MAX_TRIED:  # an answer may hide past the braces tried: fail closed
        return f"printed more than {MAX_TRIED} braces: an answer in it could not be ruled out"
    return ""


def _wrong_fields(data: dict[str, Any]) -> str:
    """What makes a JSON object not a documented answer ("" when nothing does)."""
    inner = data.get("hookSpecificOutput")
    if inner is not None and not isinstance(inner, dict):
        return "printed a hookSpecificOutput that is not an object"
    inner = inner or {}
    if data.get("decision") not in _DECISIONS:
        return f"printed an unknown decision {data['decision']!r} (known: block, approve)"
    for where in (data, inner):
        if where.get("permissionDecision") not in _PERMISSIONS:
            got = where["permissionDecision"]
            return f"printed an unknown permissionDecision {got!r} (known: allow, ask, deny)"
        updated = where.get("updatedInput")
        if updated is not None and not isinstance(updated, dict):
            return "printed an updatedInput that is not an object"
    if data.get("continue") not in (None, True, False):
        return f"printed a continue that is not true or false: {data['continue']!r}"
    return ""


def _apply(data: dict[str, Any], out: Outcome) -> None:
    specific = data.get("hookSpecificOutput")
    inner: dict[str, Any] = specific if isinstance(specific, dict) else {}
    if data.get("decision") == "block" or data.get("continue") is False:
        out.block(str(data.get("reason") or data.get("stopReason") or "blocked by a hook"))
    perm = inner.get("permissionDecision") or data.get("permissionDecision")
    if data.get("decision") == "approve":
        perm = perm or "allow"
    if perm in ("allow", "ask", "deny") and STRENGTH[perm] > STRENGTH[out.permission]:
        out.permission = perm
        out.permission_reason = str(
            inner.get("permissionDecisionReason")
            or data.get("permissionDecisionReason")
            or data.get("reason")
            or ""
        )
    updated = inner.get("updatedInput", data.get("updatedInput"))
    if isinstance(updated, dict):
        out.updated_input = updated
    ctx = inner.get("additionalContext") or data.get("additionalContext")
    if ctx:
        out.context.append(str(ctx))
    if data.get("systemMessage"):
        out.messages.append(str(data["systemMessage"]))


def short(command: str) -> str:
    """The hook's command as messages name it: its start and its end (the script's name)."""
    return command if len(command) <= 60 else f"{command[:24]}...{command[-33:]}"


def quoted(text: str) -> str:
    """A short, one-line, inert quote of what a hook printed: controls and line breaks shown
    as escapes, never passed to the terminal."""
    cut = text[:SHOWN]
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in cut)
    more = f"… (+{len(text) - SHOWN} more characters)" if len(text) > SHOWN else ""
    return f"`{shown}`{more}"
