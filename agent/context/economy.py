"""Context economy: what the loop does to tool results so that a task costs fewer tokens.

Three parts, each off when absent: `reads` answers an unchanged re-read with a one-line note
(agent.context.reads), `spill` saves a long result in the session folder and sends its head
and tail (agent.context.spill), `clearing` stubs old results once the context passes a first
threshold (agent.context.clearing). The loop calls `result` for each tool result before it
joins the history, and `clear` before each request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agent.base.messages import Message
from agent.base.record import Call, Tool, ToolResult
from agent.config.view import ToolResults
from agent.context.clearing import Clearing, clear_stale
from agent.context.compaction import Conversation
from agent.context.reads import ReadLog
from agent.context.spill import Spill, Writer


@dataclass
class Economy:
    reads: ReadLog | None = None
    spill: Spill | None = None
    clearing: Clearing | None = None
    counts: dict[str, int] = field(default_factory=dict)  # what each part did this session

    @classmethod
    def of(cls, t: ToolResults, write: Writer | None) -> Economy:
        """From the `toolResults` settings; `write` saves a long output (None: cut it)."""
        spill = Spill(write, t.spill_at) if write is not None and t.spill_at > 0 else None
        clearing = Clearing(t.clear_at, t.keep_turns) if t.clear_at > 0 else None
        return cls(ReadLog() if t.dedup_reads else None, spill, clearing)

    def for_child(self) -> Economy:
        """A subagent's: its own reads (it has not seen the parent's), the same folder and
        thresholds."""
        return Economy(ReadLog() if self.reads is not None else None, self.spill, self.clearing)

    def result(
        self, call: Call, tool: Tool | None, result: ToolResult, messages: list[Message], cwd: Path
    ) -> ToolResult:
        """The result as it joins the history: de-duplicated, then spilled (without a spill the
        dispatcher has already cut it to the result cap)."""
        if tool is not None and self.reads is not None and not call.problem:
            answered = self.reads.answer(call, tool, result, messages, cwd)
            if answered is not result:
                self._count("unchanged_reads")
                return answered
        if self.spill is None:
            return result
        kept = self.spill.keep(call.name, result)
        if kept is not result:
            self._count("spilled")
        return kept

    def clear(self, conv: Conversation, window: int) -> int:
        """Clear stale results if the next request would pass the first threshold."""
        n = clear_stale(conv, self.clearing, window)
        if n:
            self._count("cleared", n)
        return n

    def _count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n
