"""What a failed request means: the errors the client raises, how providers say the context is
full, and the one-line messages and Retry-After the client reads from an API error."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.config.load import Config


class LLMError(Exception):
    """The request failed for good; the message tells the user what to do."""

    subtype = "error_during_execution"  # how the turn it ends is reported (TurnEnd.subtype)


class ContextOverflow(LLMError):
    """The request did not fit the model's context window; `limit` when the provider said."""

    def __init__(self, message: str, limit: int | None) -> None:
        super().__init__(message)
        self.limit = limit


# How providers say the prompt is too long: OpenAI/DeepSeek/vLLM/OpenRouter ("maximum context
# length is N tokens", code context_length_exceeded), llama.cpp (exceed_context_size_error,
# n_ctx), Groq/OpenAI ("reduce the length of the messages"), Anthropic-style proxies.
_OVERFLOW = re.compile(
    r"maximum context length|context_length_exceeded|exceeds? the (?:available )?context"
    r"|exceed_context_size|reduce the length of the messages|prompt is too long"
    r"|context window|too many tokens|input is too long",
    re.IGNORECASE,
)
_LIMIT = re.compile(
    r"maximum context length is (\d+)|context (?:size|window|length)[^0-9]{0,20}(\d{4,})"
    r"|\"n_ctx\"\s*:\s*(\d+)",
    re.IGNORECASE,
)


def overflow(status: int, body: Any, msg: str) -> ContextOverflow | None:
    """The error as a ContextOverflow when it says the context is full."""
    raw = json.dumps(body) if isinstance(body, (dict, list)) else str(body or "")
    if status not in (400, 413, 422) or not _OVERFLOW.search(f"{msg} {raw}"):
        return None
    m = _LIMIT.search(f"{msg} {raw}")
    limit = int(next(g for g in m.groups() if g)) if m else None
    return ContextOverflow(f"the conversation is too long for the model: {msg}", limit)


class StreamTimeout(Exception):
    """No first token, an idle gap, or the whole request took too long."""


def status_message(status: int, body_msg: str, cfg: Config) -> str:
    p = cfg.provider
    if status == 401:
        names = dict.fromkeys((cfg.options.api_key_env or p.api_key_env, "AGENT_API_KEY"))
        check = " or ".join(n for n in names if n)  # AGENT_API_KEY once, not twice
        return f"authentication failed (401): the API key was rejected — check {check}"
    if status == 402:
        return f"insufficient balance (402): top up your {p.name} account, then retry"
    if status == 404:
        return f"not found (404) at {cfg.base_url}: check the base URL and model {cfg.model!r}"
    return f"request rejected ({status}): {body_msg}"


def body_message(e: Any) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if body.get("message"):
            return str(body["message"])
    return str(getattr(e, "message", e))


def retry_after(e: Any) -> float:
    try:
        value = float(e.response.headers.get("retry-after", ""))
    except (ValueError, AttributeError):
        return -1
    return min(max(value, 0.0), 60.0)
