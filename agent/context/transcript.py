"""The older turns as compaction's summariser reads them: plain text with long parts cut, and
the <env> block carried over so the date and directory survive compaction."""

from __future__ import annotations

import re

from agent.base.messages import Message, text_of
from agent.base.record import cap

SUMMARY_PREFIX = "[agent] Summary of the earlier conversation (compacted to save context)."
DROPPED_PREFIX = "[agent] Earlier turns were dropped to save context (no summary available)."
ACK = "Understood. I will continue from this summary."
ENV = re.compile(r"<env>.*?</env>", re.S)
SKILLS = re.compile(r"<skills>\n.*?\n</skills>", re.S)  # the skills list (agent.skills)
CAPS = {"user": 8000, "assistant": 4000, "tool": 1500, "args": 500, "summary": 20_000}


def is_marker(m: Message) -> bool:
    """A message compaction itself wrote (a summary, the note of dropped turns, the ack)."""
    content = text_of(m)
    return content == ACK or content.startswith((SUMMARY_PREFIX, DROPPED_PREFIX))


def render_transcript(messages: list[Message], max_chars: int) -> str:
    """The older turns as plain text for the summariser (long parts cut in the middle)."""

    names: dict[str, str] = {}
    out = []
    for m in messages:
        role, content = m["role"], text_of(m)
        if role == "tool":
            name = names.get(m.get("tool_call_id", ""), "tool")
            out.append(f"[{name} result]\n{cap(content, CAPS['tool'])}")
            continue
        limit = CAPS["summary"] if is_marker(m) else CAPS.get(role, 4000)
        out.append(f"[{role}]\n{cap(content, limit)}".rstrip())
        for c in m.get("tool_calls") or []:
            fn = c.get("function", {})
            names[c.get("id", "")] = fn.get("name", "tool")
            out.append(f"→ {fn.get('name')} {cap(fn.get('arguments', ''), CAPS['args'])}")
    return cap("\n\n".join(out), max_chars)


def env_block(messages: list[Message]) -> str:
    """The first message's <env> block and skills list, carried over so that date, cwd and
    the skills survive compaction."""
    for m in messages:
        if m["role"] == "user":
            text = text_of(m)
            found = [b.group(0) for b in (ENV.search(text), SKILLS.search(text)) if b]
            return "".join(f"{b}\n\n" for b in found)
    return ""
