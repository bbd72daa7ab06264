"""Permission prompts in the editor: every "ask" becomes `session/request_permission` on the
tool call the editor is already showing, with allow once / allow always / reject.

What the request shows is agent.permissions.showing's rendering, as in the terminal: a value
that cannot be shown as it is comes with the warning first, and the panel's Markdown gets the
value, the diff and the plan in code blocks no text in them can close.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from acp import text_block, tool_content
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from agent.base.visible import clip
from agent.permissions import showing
from agent.permissions.request import Answer, AskRequest

REMEMBER = ("a", "d", "s")  # the "always" the request offers: a prefix, a directory, the session
TITLE = 200  # characters of the value in the title; a longer one is shown whole in the panel


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


def fenced(text: str, lang: str = "") -> str:
    """`text` as a Markdown code block whose fence no run of backticks in it can close."""
    runs = [len(r) for r in re.findall(r"`+", text)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def markdown(req: AskRequest) -> str:
    """The request's details as the editor's panel renders them (Markdown): the warning first
    when the value cannot be shown as it is, then the value whole in a code block (a title may
    be cut), the reason as plain text, a plan as the Markdown it is, the diff in a code block —
    no command, path, URL or file line can become a link, an image or a heading there."""
    shown = showing.shown(req)
    parts = [f"**{_escaped(shown.warning)}**"] if shown.warning else []
    if shown.warning or "\n" in shown.value or len(shown.value) > TITLE:
        parts.append(fenced(shown.value, "sh" if shown.label == "command" else ""))
    if shown.args:
        parts.append(fenced(shown.args, "json"))
    parts += [_escaped(shown.reason)] if shown.reason else []
    parts += [shown.body] if shown.body else []  # a plan: the model's Markdown, like its replies
    parts += [fenced(shown.diff.rstrip(), "diff")] if shown.diff else []
    return "\n\n".join(parts)


def _escaped(text: str) -> str:
    """Plain text that Markdown shows as it is (no emphasis, link, image, HTML, heading)."""
    return re.sub(r"([\\`*_{}\[\]()<>#+\-.!|~])", r"\\\1", text)


class EditorAsker:
    """An Asker (agent.permissions.asking) that asks the editor; `session_id` is set once the
    session is built (the gate holds the asker from the start)."""

    def __init__(self, conn: Any, flush: Callable[[], Awaitable[None]]) -> None:
        self.conn, self.flush, self.session_id = conn, flush, ""

    async def __call__(self, req: AskRequest) -> Answer:
        await self.flush()  # the tool_call update goes out before the request that names it
        opts, answers = options(req)
        details = markdown(req)
        call = ToolCallUpdate(
            tool_call_id=req.call_id or f"ask-{req.tool}",
            title=f"{req.tool}: {clip(showing.shown(req).value, TITLE)}",
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
