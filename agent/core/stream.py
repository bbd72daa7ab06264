"""Pure assembly of streamed chat-completion chunks into one Reply.

Tool-call fragments are stitched by `index`: the first id and name win, argument strings are
concatenated; a fragment at an occupied index with a different non-empty id starts a new call
(Ollama sends every call at index 0); a fragment without an index continues the last call unless
its id says otherwise. Text that starts leaking tool-call markup (DeepSeek DSML, `<tool_call>`)
is held back from the screen and parsed into calls at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.base.messages import ToolCall
from agent.core import leaks


class CutStream(Exception):
    """The stream closed without a finish_reason: a partial reply, never an answer."""


class StreamError(Exception):
    """The server reported an error inside a 200 stream (vLLM, OpenRouter)."""


@dataclass
class Reply:
    text: str = ""
    reasoning: str = ""
    calls: list[ToolCall] = field(default_factory=list)
    usage: dict[str, int] | None = None
    finish_reason: str | None = None
    malformed: str = ""  # set when leaked tool-call markup could not be parsed


def norm_usage(u: Any) -> dict[str, int]:
    """prompt/completion/cached/reasoning tokens from any provider's usage object."""

    def num(obj: Any, name: str) -> int:
        v = getattr(obj, name, None) if obj is not None else None
        if v is None and isinstance(obj, dict):
            v = obj.get(name)
        return int(v) if isinstance(v, (int, float)) else 0

    details = getattr(u, "prompt_tokens_details", None)
    cached = num(u, "prompt_cache_hit_tokens") or num(details, "cached_tokens")
    reasoning = num(getattr(u, "completion_tokens_details", None), "reasoning_tokens")
    return {
        "input_tokens": num(u, "prompt_tokens"),
        "output_tokens": num(u, "completion_tokens"),
        "cached_tokens": cached,
        "reasoning_tokens": reasoning,
    }


class Assembler:
    """Feed chunks in order; `finish()` returns the Reply or raises CutStream."""

    def __init__(
        self,
        on_text: Callable[[str], None] = lambda s: None,
        on_reasoning: Callable[[str], None] = lambda s: None,
        step: int = 0,
    ) -> None:
        self.on_text = on_text
        self.on_reasoning = on_reasoning
        self.step = step
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: list[ToolCall] = []
        self.by_index: dict[int, int] = {}
        self.usage: Any = None
        self.finish_reason: str | None = None
        self.pending = ""  # text withheld because it may be the start of leaked markup
        self.suppress = False  # leaked markup seen: show no more text
        self.shown = False  # some text or reasoning went to on_text/on_reasoning

    def feed(self, chunk: Any) -> None:
        if getattr(chunk, "object", None) == "error":
            raise StreamError(str(getattr(chunk, "message", "") or "error inside the stream"))
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self.usage = usage
        for choice in getattr(chunk, "choices", None) or ():
            if getattr(choice, "index", 0):
                continue
            delta = getattr(choice, "delta", None)
            if delta is not None:
                r = getattr(delta, "reasoning_content", None) or getattr(delta, "reasoning", None)
                if r:
                    self.reasoning.append(r)
                    self.shown = True
                    self.on_reasoning(r)
                content = getattr(delta, "content", None)
                if content:
                    self._text(content)
                calls = getattr(delta, "tool_calls", None)
                if calls:
                    for tc in calls:
                        self._fragment(tc)
            finish = getattr(choice, "finish_reason", None)
            if finish:
                self.finish_reason = finish

    def _text(self, s: str) -> None:
        self.text.append(s)
        if self.suppress:
            return
        if self.pending:
            s, self.pending = self.pending + s, ""
        cut = leaks.split_safe(s)
        if cut is None:
            self._show(s)
            return
        at, is_marker = cut
        if at:
            self._show(s[:at])
        if is_marker:
            self.suppress = True
        else:
            self.pending = s[at:]

    def _show(self, s: str) -> None:
        self.shown = True
        self.on_text(s)

    def _fragment(self, tc: Any) -> None:
        idx = getattr(tc, "index", None)
        fid = getattr(tc, "id", None) or ""
        fn = getattr(tc, "function", None)
        name = getattr(fn, "name", None) or ""
        args = getattr(fn, "arguments", None) or ""
        if idx is None:
            cur = self.calls[-1] if self.calls else None
        else:
            pos = self.by_index.get(idx)
            cur = self.calls[pos] if pos is not None else None
        if cur is None or (fid and cur.id and fid != cur.id):
            cur = ToolCall(fid, name)
            self.calls.append(cur)
            if idx is not None:
                self.by_index[idx] = len(self.calls) - 1
        if fid and not cur.id:
            cur.id = fid
        if name and not cur.name:
            cur.name = name
        if args:
            cur.arguments += args

    def finish(self) -> Reply:
        """The assembled reply; raises CutStream when no finish_reason ever came."""
        if self.finish_reason is None:
            raise CutStream("the stream ended without a finish_reason")
        if self.pending and not self.suppress:
            self._show(self.pending)
        reply = Reply(
            text="".join(self.text),
            reasoning="".join(self.reasoning),
            calls=self.calls,
            usage=norm_usage(self.usage) if self.usage is not None else None,
            finish_reason=self.finish_reason,
        )
        if self.suppress:
            reply.text, leaked, reply.malformed = leaks.parse(reply.text)
            if leaked and not reply.calls:
                reply.calls = leaked
                reply.finish_reason = "tool_calls"
        seen: set[str] = set()
        for n, call in enumerate(reply.calls):
            if not call.id or call.id in seen:  # results are matched to calls by id
                call.id = f"call_{self.step}_{n}"
                while call.id in seen:
                    call.id += "_"
            seen.add(call.id)
        return reply
