"""The JSON writers: `--output-format json` (JSON Lines of every event) and `stream-json`
(Claude Code's system/assistant/user/result shape). stdout holds JSON Lines and nothing else.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

from agent import __version__
from agent.base.events import (
    AssistantMessage,
    Compacted,
    ErrorEvent,
    Event,
    Notice,
    ReasoningDelta,
    SubagentProgress,
    TextDelta,
    TodoChanged,
    ToolEnd,
    ToolStart,
)
from agent.base.ids import uuid4
from agent.base.visible import json_escaped, visible
from agent.ui.render_partial import Partial

RESULT_PREVIEW = 2000  # chars of a tool result in a JSON tool_result event

# The Claude Code stream-json protocol these lines follow, as the init line says it (the SDKs
# warn about a CLI that reports none); `agent --version` is the agent's own.
CLAUDE_PROTOCOL = "2.0.0"


def dumps(obj: Any) -> str:
    """One JSON line; controls, bidi and invisible characters as \\u escapes (the same value:
    stdout may be a terminal too)."""
    return json_escaped(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))


def subagent_line(event: SubagentProgress) -> dict[str, Any]:
    """A subagent's progress as a JSON line (its own type: never mistaken for the parent's)."""
    line: dict[str, Any] = {
        "type": "subagent",
        "task_id": event.task_id,
        "agent": event.agent,
        "event": event.kind,
        "message": event.message,
    }
    if event.tool:
        line["tool"] = event.tool
    if event.args:
        line["args"] = event.args
    return line


class JsonRenderer:
    """`--output-format json`: the JSON Lines of SPEC §9, the result line last."""

    def __init__(self, out: IO[str] = sys.stdout) -> None:
        self.out = out

    def write(self, obj: dict[str, Any]) -> None:
        self.out.write(dumps(obj) + "\n")
        self.out.flush()

    def start(self, init: dict[str, Any]) -> None:
        self.write(init)

    def emit(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            self.write({"type": "text", "text": event.text})
        elif isinstance(event, ReasoningDelta):
            self.write({"type": "reasoning", "text": event.text})
        elif isinstance(event, ToolStart):
            self.write(
                {"type": "tool_call", "id": event.id, "tool": event.name, "args": event.args}
            )
        elif isinstance(event, ToolEnd):
            self.write(
                {
                    "type": "tool_result",
                    "id": event.id,
                    "tool": event.name,
                    "result": event.output[:RESULT_PREVIEW],
                    "is_error": event.is_error,
                    "duration_ms": event.duration_ms,
                }
            )
        elif isinstance(event, Compacted):
            self.write(
                {
                    "type": "compact",
                    "trigger": event.trigger,
                    "pre_tokens": event.pre_tokens,
                    "post_tokens": event.post_tokens,
                    **({"cleared": event.cleared} if event.trigger == "clear" else {}),
                }
            )
        elif isinstance(event, ErrorEvent):  # discard_partial: drop the text/reasoning lines
            self.write(  # streamed since the last assistant message: the reply starts over
                {
                    "type": "error",
                    "message": event.message,
                    "retrying": event.retrying,
                    "discard_partial": event.discard,
                }
            )
        elif isinstance(event, TodoChanged):
            self.write({"type": "todo", "items": event.items})
        elif isinstance(event, SubagentProgress):
            self.write(subagent_line(event))
        elif isinstance(event, Notice):  # a line for the program, `note:` for the log
            self.write({"type": "notice", "message": event.message})
            sys.stderr.write(f"note: {visible(event.message)}\n")  # hooks', servers' words

    def finish(self, result: dict[str, Any]) -> None:
        self.write(result)


class StreamJsonRenderer(JsonRenderer):
    """`--output-format stream-json`: Claude Code's shape (system/assistant/user/result, each
    with a `uuid`), as the Claude Agent SDKs' parsers read it; with `partial`
    (--include-partial-messages) the `stream_event` lines of agent.ui.render_partial too."""

    def __init__(self, out: IO[str] = sys.stdout, partial: bool = False) -> None:
        super().__init__(out)
        self.session_id = ""
        self.model = ""
        self.n = 0
        self.partial = Partial(self.write, lambda: self.session_id) if partial else None

    def write(self, obj: dict[str, Any]) -> None:
        super().write({**obj, "uuid": obj.get("uuid") or uuid4()})

    def start(self, init: dict[str, Any]) -> None:
        self.session_id, self.model = init["session_id"], init["model"]
        skills = list(init.get("skills", []))
        self.write(
            {
                **init,
                "permissionMode": init["permission_mode"],
                "apiKeySource": "env",
                "claude_code_version": CLAUDE_PROTOCOL,
                "agent_version": __version__,
                "slash_commands": skills,  # (a skill runs as /name)
                "skills": skills,
                "output_style": "default",
            }
        )

    def emit(self, event: Event) -> None:
        if self.partial is not None and not isinstance(event, AssistantMessage):
            self.partial.see(event, self._message_id(self.n + 1), self.model)
        if isinstance(event, AssistantMessage):
            self.n += 1
            self._assistant(event)
        elif isinstance(event, ToolEnd):
            block = {
                "type": "tool_result",
                "tool_use_id": event.id,
                "content": event.output,
                "is_error": event.is_error,
            }
            self._wrap("user", {"role": "user", "content": [block]})
        elif isinstance(event, ErrorEvent):  # a retry is news too: 40 s of them must show
            kind = "api_retry" if event.retrying else "api_error"
            self._system(kind, event.message, discard_partial=event.discard)
        elif isinstance(event, Compacted) and event.trigger in ("auto", "manual"):
            meta = {"trigger": event.trigger, "pre_tokens": event.pre_tokens}
            self._system("compact_boundary", "", compact_metadata=meta)
        elif isinstance(event, Notice) and not isinstance(event, SubagentProgress):
            self._system("notice", event.message)  # (subagent lines: json mode only)

    def _assistant(self, event: AssistantMessage) -> None:
        content: list[dict[str, Any]] = []
        stop = "tool_use" if event.tool_calls else "end_turn"
        stop = "max_tokens" if event.finish_reason == "length" else stop
        if event.reasoning:  # no signature to give: the SDKs' parsers need the field
            content.append({"type": "thinking", "thinking": event.reasoning, "signature": ""})
        if event.text:
            content.append({"type": "text", "text": event.text})
        for c in event.tool_calls:
            content.append(
                {"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["args"]}
            )
        u = event.usage or {}
        message_id = self._message_id(self.n)
        if self.partial is not None:
            self.partial.close(event, stop, message_id, self.model)
        message = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": stop,
            "usage": {
                "input_tokens": u.get("input_tokens", 0),
                "output_tokens": u.get("output_tokens", 0),
                "cache_read_input_tokens": u.get("cached_tokens", 0),
            },
        }
        self._wrap("assistant", message)

    def _message_id(self, n: int) -> str:
        return f"msg_{self.session_id}_{n}"  # the session id is unique

    def _system(self, subtype: str, message: str, **more: Any) -> None:
        self.write(
            {"type": "system", "subtype": subtype, "message": message, **more,
             "session_id": self.session_id}
        )  # fmt: skip

    def _wrap(self, kind: str, message: dict[str, Any]) -> None:
        self.write(
            {
                "type": kind,
                "message": message,
                "parent_tool_use_id": None,
                "session_id": self.session_id,
            }
        )
