"""Permission prompts in the editor: every "ask" becomes `session/request_permission` on the
tool call the editor is already showing, with allow once / allow always / reject."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from acp import text_block, tool_content
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from agent.permissions.asking import Answer, AskRequest

REMEMBER = ("a", "d", "s")  # the "always" the request offers: a prefix, a directory, the session


def plain(label: str) -> str:
    """A terminal key label as a button's name: "[e] approve" → "approve", "[N]o" → "No"."""
    return re.sub(r"^\[(\w)\](?=\w)", r"\1", re.sub(r"^\[\w\] ", "", label))


def options(req: AskRequest) -> tuple[list[PermissionOption], dict[str, str]]:
    """The buttons for `req`, and the answer each option id stands for."""
    keep = next((c for c in REMEMBER if c in req.choices), "")
    once = plain(req.key("y", "Allow once"))
    opts = [PermissionOption(option_id="allow", name=once, kind="allow_once")]
    answers = {"allow": "y"}
    if keep:
        label = "Allow for this session" if keep == "s" else "Always allow"
        if req.remember:
            label += f" ({', '.join(req.remember)})"
        opts.append(PermissionOption(option_id="always", name=label, kind="allow_always"))
        answers["always"] = keep
    for choice in req.choices:  # others a request names itself (a plan's approvals)
        if choice not in ("y", "n", *REMEMBER):
            name = plain(req.key(choice, choice))
            opts.append(PermissionOption(option_id=choice, name=name, kind="allow_once"))
            answers[choice] = choice
    no = plain(req.key("n", "Reject"))
    opts.append(PermissionOption(option_id="reject", name=no, kind="reject_once"))
    answers["reject"] = "n"
    return opts, answers


class EditorAsker:
    """An Asker (agent.permissions.asking) that asks the editor; `session_id` is set once the
    session is built (the gate holds the asker from the start)."""

    def __init__(self, conn: Any, flush: Callable[[], Awaitable[None]]) -> None:
        self.conn, self.flush, self.session_id = conn, flush, ""

    async def __call__(self, req: AskRequest) -> Answer:
        await self.flush()  # the tool_call update goes out before the request that names it
        opts, answers = options(req)
        shown = req.body or (f"```diff\n{req.diff.rstrip()}\n```" if req.diff else "")
        details = f"{req.reason}\n\n{shown}" if shown else req.reason  # Markdown in the panel
        call = ToolCallUpdate(
            tool_call_id=req.call_id or f"ask-{req.tool}",
            title=f"{req.tool}: {req.target}",
            status="pending",
            content=[tool_content(text_block(details))] if details else None,
        )
        reply = await self.conn.request_permission(
            session_id=self.session_id, tool_call=call, options=opts
        )
        outcome = reply.outcome
        if isinstance(outcome, AllowedOutcome) and outcome.option_id in answers:
            return Answer(answers[outcome.option_id])
        return Answer("n", "the user rejected it in the editor")
