"""Turns and chunk builders for the scripted OpenAI-compatible fake (served by fake_openai.py)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]
CREATED = 1_700_000_000
DEFAULT_USAGE: Json = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
DIALECTS = ("openai", "no_index", "index0", "one_chunk", "args_in_first")
USAGE_MODES = ("separate", "last", None)
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "insufficient_quota",
    404: "not_found_error",
    429: "rate_limit_error",
}
_call_ids = itertools.count(1)
__all__ = [
    "DEFAULT_USAGE",
    "DIALECTS",
    "Json",
    "Turn",
    "chunk",
    "completion",
    "error",
    "from_spec",
    "raw",
    "split_text",
    "text",
    "tool_calls",
]


@dataclass
class Turn:
    """One scripted answer: consumed by exactly one request."""

    chunks: list[Json] = field(default_factory=list)
    status: int = 200
    body: Json | str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None
    stall_after: int | None = None
    stall_seconds: float = 0
    delay: float = 0
    keepalive: int = 0
    done: bool = True
    expect: Callable[[Json], None] | None = None


def reset_ids() -> None:
    """Restart the default tool-call ids at call_1 (each FakeOpenAI does this)."""
    global _call_ids
    _call_ids = itertools.count(1)


def split_text(s: str, pieces: int) -> list[str]:
    """Split s into min(pieces, len(s)) non-empty, roughly equal parts ([] for "")."""
    n = max(1, min(pieces, len(s)))
    size, extra = divmod(len(s), n)
    parts, pos = [], 0
    for i in range(n if s else 0):
        end = pos + size + (1 if i < extra else 0)
        parts.append(s[pos:end])
        pos = end
    return parts


def chunk(
    delta: Json | None = None,
    *,
    finish: str | None = None,
    usage: Json | None = None,
    choices: bool = True,
    model: str = "fake-model",
) -> Json:
    """One chat.completion.chunk; choices=False gives the OpenAI-style usage-only chunk."""
    c: Json = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "choices": [],
    }
    if choices:
        c["choices"] = [
            {"index": 0, "delta": {} if delta is None else delta, "finish_reason": finish}
        ]
    if usage is not None:
        c["usage"] = dict(usage)
    return c


def _deltas(content: str, reasoning: str, pieces: int) -> list[Json]:
    deltas: list[Json] = [{"reasoning_content": p} for p in split_text(reasoning, pieces)]
    return deltas + [{"content": p} for p in split_text(content, pieces)]


def _finish(
    deltas: list[Json], finish: str | None, usage: Json | None, usage_mode: str | None, model: str
) -> list[Json]:
    if usage_mode not in USAGE_MODES:
        raise ValueError(f"usage_mode must be one of {USAGE_MODES}, not {usage_mode!r}")
    deltas = deltas or [{"content": ""}]
    deltas[0] = {"role": "assistant", **deltas[0]}
    chunks = [chunk(d, model=model) for d in deltas]
    if finish is not None:
        chunks.append(chunk(finish=finish, model=model))
    if usage is not None and usage_mode == "last":
        chunks[-1]["usage"] = dict(usage)
    elif usage is not None and usage_mode == "separate":
        chunks.append(chunk(choices=False, usage=usage, model=model))
    return chunks


def text(
    content: str,
    *,
    pieces: int = 1,
    reasoning: str = "",
    finish: str | None = "stop",
    usage: Json | None = DEFAULT_USAGE,
    usage_mode: str | None = "separate",
    model: str = "fake-model",
    **turn_kw: Any,
) -> Turn:
    """A text reply: reasoning then content, each in `pieces` fragments, then finish and usage."""
    deltas = _deltas(content, reasoning, pieces)
    return Turn(_finish(deltas, finish, usage, usage_mode, model), **turn_kw)


def _call_fragments(
    index: int, call_id: str, name: str, args: str, pieces: int, dialect: str
) -> list[Json]:
    whole = dialect == "one_chunk" or pieces <= 0
    parts = [args] if whole else split_text(args, pieces)
    head: Json = {
        "index": 0 if dialect == "index0" else index,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": ""},
    }
    if whole or dialect == "args_in_first":
        head["function"]["arguments"] = parts.pop(0) if parts else ""
    frags = [head] + [{"index": head["index"], "function": {"arguments": p}} for p in parts]
    if dialect == "no_index":
        for f in frags:
            del f["index"]
    return frags


def tool_calls(
    calls: list[tuple[str, Json | str]],
    *,
    pieces: int = 3,
    text: str = "",
    reasoning: str = "",
    dialect: str = "openai",
    finish: str | None = "tool_calls",
    usage: Json | None = DEFAULT_USAGE,
    usage_mode: str | None = "separate",
    ids: list[str] | None = None,
    interleave: bool = False,
    model: str = "fake-model",
    **turn_kw: Any,
) -> Turn:
    """Tool calls streamed as fragments in one of DIALECTS (pieces=0: whole arguments at once)."""
    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {DIALECTS}, not {dialect!r}")
    ids = ids or [f"call_{next(_call_ids)}" for _ in calls]
    if len(ids) != len(calls):
        raise ValueError("ids must have one entry per call")
    groups = [
        _call_fragments(
            i, call_id, name, a if isinstance(a, str) else json.dumps(a), pieces, dialect
        )
        for i, (call_id, (name, a)) in enumerate(zip(ids, calls, strict=True))
    ]
    if interleave:
        frags = [f for row in itertools.zip_longest(*groups) for f in row if f is not None]
    else:
        frags = [f for group in groups for f in group]
    deltas = _deltas(text, reasoning, pieces) + [{"tool_calls": [f]} for f in frags]
    return Turn(_finish(deltas, finish, usage, usage_mode, model), **turn_kw)


def error(
    status: int,
    message: str = "",
    *,
    headers: dict[str, str] | None = None,
    code: str | None = None,
    **turn_kw: Any,
) -> Turn:
    """An HTTP error answer with an OpenAI-style JSON error body."""
    kind = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    body = {
        "error": {
            "message": message or f"fake error {status}",
            "type": kind,
            "param": None,
            "code": code,
        }
    }
    return Turn(status=status, body=body, headers=dict(headers or {}), **turn_kw)


def raw(chunks: list[Json], **turn_kw: Any) -> Turn:
    """A turn that streams exactly these chunk objects."""
    return Turn(list(chunks), **turn_kw)


def from_spec(spec: Json) -> Turn:
    """Build a turn from JSON: {"text": ...}, {"tool_calls": [[name, args]]}, {"error": 429}…"""
    spec = dict(spec)
    if "text" in spec:
        return text(spec.pop("text"), **spec)
    if "tool_calls" in spec:
        return tool_calls([(name, args) for name, args in spec.pop("tool_calls")], **spec)
    if "error" in spec:
        return error(spec.pop("error"), **spec)
    if "raw" in spec:
        return raw(spec.pop("raw"), **spec)
    return Turn(**spec)


def _merge_fragment(calls: list[Json], frag: Json) -> None:
    """Join a tool-call fragment: a new non-empty id starts a call, else index, else the last."""
    fid, index = frag.get("id"), frag.get("index")
    target = next((c for c in calls if c["id"] == fid), None) if fid else None
    if not fid and calls:
        same = [c for c in calls if c["_index"] == index]
        target = same[-1] if index is not None and same else calls[-1]
    if target is None:
        target = {
            "id": fid or f"call_{len(calls)}",
            "type": "function",
            "_index": index,
            "function": {"name": "", "arguments": ""},
        }
        calls.append(target)
    fn = frag.get("function") or {}
    target["function"]["name"] += fn.get("name") or ""
    target["function"]["arguments"] += fn.get("arguments") or ""


def completion(turn: Turn) -> Json:
    """The non-streaming chat.completion equivalent of a turn's chunks."""
    content: list[str] = []
    reasoning: list[str] = []
    calls: list[Json] = []
    finish, usage, model = None, None, "fake-model"
    for c in turn.chunks:
        model, usage = c.get("model", model), c.get("usage") or usage
        for choice in c.get("choices") or []:
            delta = choice.get("delta") or {}
            content.append(delta.get("content") or "")
            reasoning.append(delta.get("reasoning_content") or "")
            for frag in delta.get("tool_calls") or []:
                _merge_fragment(calls, frag)
            finish = choice.get("finish_reason") or finish
    message: Json = {"role": "assistant", "content": "".join(content) or (None if calls else "")}
    if any(reasoning):
        message["reasoning_content"] = "".join(reasoning)
    if calls:
        message["tool_calls"] = [{k: v for k, v in c.items() if k != "_index"} for c in calls]
    out: Json = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": CREATED,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
    }
    if usage is not None:
        out["usage"] = usage
    return out
