"""The permission gate (dispatch middleware) and the pure `decide` function (SPEC §5).

This is the first layer: modes, bare tool-name rules and the no-terminal rule (ask → deny,
recorded as a permission denial). Specifier rules such as `bash(npm test:*)`, shell parsing and
path checks come with the permissions issue; until then such rules never allow anything.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agent.dispatch import Call, Next
from agent.events import PermissionDenied, Sink
from agent.tools import Tool, ToolContext, ToolResult, error

EDIT_TOOLS = ("write_file", "edit_file")


@dataclass(frozen=True)
class Decision:
    kind: str  # allow | ask | deny
    reason: str = ""
    source: str = ""  # rule, mode, user, hook


def _matches(rule: str, name: str) -> bool:
    """A bare rule `tool` or a server rule `mcp__server` covers the tool; specifiers don't yet."""
    if "(" in rule:
        return False
    return rule == name or (rule.startswith("mcp__") and name.startswith(rule + "__"))


def decide(rules: dict[str, Any], mode: str, tool: Tool, args: dict[str, Any]) -> Decision:
    """Allow, ask or deny one call. neverAllow > ask > alwaysAllow > mode."""
    name = tool.name
    for rule in rules.get("neverAllow", []):
        if _matches(rule, name):
            return Decision("deny", f"denied by rule {rule!r}", "rule")
    if mode == "bypassPermissions":
        return Decision("allow", source="mode")
    if mode == "plan" and not tool.read_only:
        return Decision("deny", "plan mode allows read-only tools only", "mode")
    if any(_matches(r, name) for r in rules.get("ask", [])):
        return Decision("ask", source="rule")
    if tool.read_only:
        return Decision("allow", source="read-only")
    if any(_matches(r, name) for r in rules.get("alwaysAllow", [])):
        return Decision("allow", source="rule")
    if mode == "acceptEdits" and name in EDIT_TOOLS:
        return Decision("allow", source="mode")
    if mode == "dontAsk":
        return Decision("deny", f"{name} is not allowed (dontAsk mode)", "mode")
    return Decision("ask", source="mode")


Asker = Callable[[Call, Tool], Awaitable[tuple[bool, str]]]


class Gate:
    """Middleware: decide; ask the user when there is a terminal, else deny and record it."""

    def __init__(
        self,
        tools: dict[str, Tool],
        rules: dict[str, Any],
        mode: str,
        sink: Sink,
        asker: Asker | None = None,
    ) -> None:
        self.tools, self.rules, self.mode, self.sink, self.asker = tools, rules, mode, sink, asker
        self.session_allowed: set[str] = set()

    async def __call__(self, call: Call, ctx: ToolContext, nxt: Next) -> ToolResult:
        tool = self.tools[call.name]
        d = decide(self.rules, self.mode, tool, call.args)
        if d.kind == "ask" and call.name in self.session_allowed:
            d = Decision("allow", source="user")
        if d.kind == "ask":
            if self.asker is None:
                d = Decision("deny", "needs approval and no terminal is attached to ask", "mode")
            else:
                ok, why = await self.asker(call, tool)
                d = Decision("allow" if ok else "deny", why or "the user said no", "user")
        call.meta["decision"], call.meta["source"] = d.kind, d.source
        if d.kind == "allow":
            return await nxt(call, ctx)
        self.sink.emit(PermissionDenied(call.id, call.name, call.args, d.reason))
        return error(
            f"permission denied for {call.name}: {d.reason}",
            can_retry=False,
            hint="do not retry the same call; continue without it or explain what you need",
        )
