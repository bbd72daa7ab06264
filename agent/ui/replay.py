"""A resumed conversation drawn again (`agent -r`, `-c`, /resume): the user's own words, the
answers as Markdown, one line per tool call — the last turns of it, as they looked when they ran.

The user's words come from the session's checkpoints (what pickers show: no environment
block, repository map or hook context); a message without one shows its own text with those
taken out as far as they can be recognised.
"""

from __future__ import annotations

import json
from typing import Any

from agent.base.messages import Message
from agent.base.visible import visible
from agent.context.compaction import SUMMARY_PREFIX
from agent.context.mentions import without_attachments
from agent.session.checkpoints import checkpoints, own_words
from agent.session.store import SessionFile, load
from agent.ui.render import summarize_args
from agent.ui.terminal import markdown

TURNS = 10  # user turns drawn again; earlier ones are counted
CODE_THEME = "monokai"


def turn_words(store: SessionFile) -> dict[int, str]:
    """History index (no system prompt) → the user's words of the turn that message starts."""
    try:
        records = load(store.path).records
    except OSError:
        return {}
    return {cp.msg_index - 1: cp.prompt for cp in checkpoints(records)}


def last_words(store: SessionFile, history: list[Message]) -> str:
    """The user's words of the last turn in `history`."""
    users = [i for i, m in enumerate(history) if m.get("role") == "user"]
    if not users:
        return ""
    said = turn_words(store).get(users[-1])
    return said or own_words(without_attachments(_text(history[users[-1]].get("content"))))


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _calls(msg: Message) -> list[str]:
    out = []
    for call in msg.get("tool_calls") or []:
        fn = call.get("function") or {} if isinstance(call, dict) else {}
        try:
            args = json.loads(fn.get("arguments") or "{}")
        except ValueError:
            args = {}
        args = args if isinstance(args, dict) else {}
        out.append(f"  ⏺ {visible(str(fn.get('name', '?')), '')} {summarize_args(args)}")
    return out


def drawn(history: list[Message], words: dict[int, str], turns: int = TURNS) -> list[Any]:
    """The rich renderables that draw the last `turns` user turns of `history`."""
    from rich.text import Text

    starts = [i for i, m in enumerate(history) if m.get("role") == "user"]
    first = starts[-turns] if len(starts) > turns else 0
    out: list[Any] = []
    if first:
        n = len(starts) - turns
        out.append(Text(f"… {n} earlier turn{'s' * (n != 1)} (/export writes them all)", "dim"))
    for i, msg in enumerate(history[first:], first):
        role, text = msg.get("role"), _text(msg.get("content"))
        if role == "user" and text.startswith(SUMMARY_PREFIX):
            out.append(Text("(the earlier conversation, summarised)", "dim"))
        elif role == "user":
            said = words.get(i) or own_words(without_attachments(text))
            out.append(Text(f"> {visible(said.strip())}", "bold"))
        elif role == "assistant":
            if text.strip():
                out.append(markdown(text.strip(), CODE_THEME))
            out += [Text(line, "dim") for line in _calls(msg)]
    if out:
        out.append(Text("─" * 12 + " resumed here", "dim"))
    return out
