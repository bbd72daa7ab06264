"""Read de-duplication: a re-read that would send the model text it still has.

A call of the registry's file reader (a `read` tool whose target is a file) that returns
exactly what an earlier call with the same file and range returned is answered with one line
naming that read — as long as that earlier result is still in the conversation, whole. Once
compaction, a rewind or clearing has taken it out, the full text goes again. A call that edits
a file forgets that file's reads, so the next read after an edit is always sent whole (even
when the edit was undone since). The tool still runs every time: its output decides, so a
change made any other way (a command, an editor) is seen too.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from agent.base.messages import Message
from agent.base.record import Call, Tool, ToolResult
from agent.context.transcript import is_marker

Key = tuple[str, str, str]  # (tool, real path, the other arguments as JSON)


@dataclass(frozen=True)
class Read:
    """One read whose result went into the conversation."""

    call_id: str
    digest: str  # of the result text as it was added
    turn: int  # the user turn it was made in (1 = the session's first message)


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def _path(tool: Tool, call: Call, cwd: Path) -> str:
    assert tool.target is not None
    raw = os.path.expanduser(tool.target.value(call.args))
    return os.path.realpath(os.path.join(cwd, raw))


def user_turns(messages: list[Message]) -> int:
    """How many user turns the conversation holds (compaction's own messages not counted)."""
    return sum(1 for m in messages if m.get("role") == "user" and not is_marker(m))


def present(messages: list[Message], call_id: str, digest: str) -> bool:
    """The result of `call_id` is still in the conversation, as it was given."""
    for m in reversed(messages):
        if m.get("role") == "tool" and m.get("tool_call_id") == call_id:
            return _digest(str(m.get("content") or "")) == digest
    return False


@dataclass
class ReadLog:
    """What the model has read (see the module doc); one per conversation."""

    reads: dict[Key, Read] = field(default_factory=dict)

    def answer(
        self, call: Call, tool: Tool, result: ToolResult, messages: list[Message], cwd: Path
    ) -> ToolResult:
        """`result`, or the one-line note when it repeats a read still in `messages`."""
        edited = tool.edited_files(call.args)
        if edited:  # every file an edit or a patch changed: its next read goes whole
            for raw in edited:
                try:
                    self.forget(os.path.realpath(os.path.join(cwd, os.path.expanduser(raw))))
                except OSError:  # realpath raced a link being swapped: forget every read
                    self.reads.clear()
            return result
        if not tool.reads_a_file or result.is_error:
            return result
        try:
            path = _path(tool, call, cwd)
        except OSError:  # realpath raced a link being swapped: no de-duplication this time
            return result
        assert tool.target is not None
        rest = {k: v for k, v in call.args.items() if k != tool.target.arg}
        key = (tool.name, path, json.dumps(rest, sort_keys=True, default=str))
        digest = _digest(result.output)
        before = self.reads.get(key)
        if (
            before is not None
            and before.digest == digest
            and present(messages, before.call_id, digest)
        ):
            note = (
                f"[unchanged since your read at turn {before.turn} (call {before.call_id}): "
                "the same text is still in the conversation above — use that copy]"
            )
            display = f"{result.display} · unchanged" if result.display else None
            return ToolResult(note, display=display)
        self.reads[key] = Read(call.id, digest, max(user_turns(messages), 1))
        return result

    def forget(self, path: str) -> None:
        """An edit of `path`: its next read goes whole."""
        for key in [k for k in self.reads if k[1] == path]:
            del self.reads[key]
