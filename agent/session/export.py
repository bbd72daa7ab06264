"""A conversation as a Markdown transcript (tool calls and results included) or as JSON."""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.base.messages import Message, text_of


def _fence(text: str) -> str:
    """A backtick fence longer than any run of backticks inside `text`."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _block(text: str, lang: str = "") -> str:
    f = _fence(text)
    return f"{f}{lang}\n{text.rstrip()}\n{f}"


def _args(raw: str) -> str:
    try:
        return json.dumps(json.loads(raw or "{}"), ensure_ascii=False, indent=2)
    except ValueError:
        return raw


def to_markdown(messages: list[Message], meta: dict[str, Any]) -> str:
    """The transcript: user and assistant turns, each tool call with its arguments and result."""
    out = [f"# agent session {meta.get('session_id', '')}".rstrip()]
    out.append(" · ".join(f"{k}: {v}" for k, v in meta.items() if k != "session_id" and v))
    names: dict[str, str] = {}
    for m in messages:
        role, content = m.get("role"), text_of(m)
        if role == "system":
            continue
        if role == "user":
            out.append(f"## User\n\n{content}")
        elif role == "assistant":
            parts = ["## Assistant"]
            if m.get("reasoning_content"):
                parts.append("> " + str(m["reasoning_content"]).strip().replace("\n", "\n> "))
            if content.strip():
                parts.append(content.strip())
            for c in m.get("tool_calls") or []:
                fn = c.get("function", {})
                names[c.get("id", "")] = fn.get("name", "tool")
                parts.append(
                    f"**→ {fn.get('name')}**\n\n{_block(_args(fn.get('arguments', '')), 'json')}"
                )
            out.append("\n\n".join(parts))
        elif role == "tool":
            name = names.get(m.get("tool_call_id", ""), "tool")
            out.append(f"**← {name} result**\n\n{_block(content)}")
    return "\n\n".join(out).rstrip() + "\n"


def to_json(messages: list[Message], meta: dict[str, Any]) -> str:
    return json.dumps({**meta, "messages": messages}, ensure_ascii=False, indent=2) + "\n"


@dataclass
class Transcript:
    """What an export writes: the conversation and where it came from."""

    session_id: str
    model: str
    cwd: Path
    messages: list[Message]

    def meta(self) -> dict[str, Any]:
        now = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        return {
            "session_id": self.session_id,
            "model": self.model,
            "cwd": str(self.cwd),
            "exported_at": now,
        }


def default_name(session_id: str, as_json: bool) -> str:
    """`agent-<session id>.md`: the id already says when the session began, and a later
    export of the same session replaces the earlier, shorter one."""
    return f"agent-{session_id}.{'json' if as_json else 'md'}"


class ExportRefused(Exception):
    """The target exists and is not this session's own export."""


def export(t: Transcript, target: str, as_json: bool, force: bool = False) -> Path:
    """Write the transcript; `target` "" = a file named after the session in the cwd. An
    existing file of another name is never replaced without `force`."""
    path = Path(target).expanduser() if target else Path(default_name(t.session_id, as_json))
    if not path.is_absolute():
        path = t.cwd / path
    if target and not force and path.exists():
        raise ExportRefused(f"{path} exists; /export {target} --force replaces it")
    text = (to_json if as_json else to_markdown)(t.messages, t.meta())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
