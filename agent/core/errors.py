"""What a failed request means: the errors the client raises, how providers say the context is
full, and the one-line messages and Retry-After the client reads from an API error."""

from __future__ import annotations

import json
import re
import socket
import ssl
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agent.base.events import EndSubtype
from agent.core.stream import CutStream, StreamError

if TYPE_CHECKING:
    from agent.config.load import Config


class LLMError(Exception):
    """The request failed for good; the message tells the user what to do."""

    subtype: EndSubtype = "error_during_execution"  # how the turn it ends is reported


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


def retry_after(e: Any) -> float | None:
    """The wait the provider asks for (Retry-After, at most a minute); None: it says none."""
    try:
        value = float(e.response.headers.get("retry-after", ""))
    except (ValueError, AttributeError):
        return None
    return min(max(value, 0.0), 60.0)


@dataclass(frozen=True)
class RetryNow:
    """The request was changed to suit the provider: send it again at once (no attempt used).
    Its message, like RetryLater's, says that it is retried: renderers add nothing."""

    message: str
    error: BaseException


@dataclass(frozen=True)
class RetryLater:
    """A failure worth another attempt, after `after` seconds (None: the backoff's wait);
    `hint` follows the attempt count when it is said."""

    message: str
    error: BaseException
    after: float | None = None
    hint: str = ""

    def again(self, attempt: int, attempts: int, wait: float) -> str:
        """What the user reads while waiting: `…; retrying, attempt 2/5 in 2 s — hint`."""
        said = f"{self.message}; retrying, attempt {attempt}/{attempts} in {wait:.0f} s"
        return f"{said} — {self.hint}" if self.hint else said

    def gave_up(self, attempts: int) -> str:
        said = f"{self.message} (gave up after {attempts} attempts)"
        return f"{said} — {self.hint}" if self.hint else said


Retrying = RetryNow | RetryLater


def retry_message(e: Exception, openai: Any, base_url: str) -> str:
    """What went wrong with the request, for a failure worth retrying ("" for anything else)."""
    if isinstance(e, CutStream):
        return f"the reply was cut off: {e}"
    if isinstance(e, StreamTimeout):
        return str(e)
    if isinstance(e, StreamError):
        return f"the provider sent a stream that cannot be used: {e}"
    if isinstance(e, openai.APITimeoutError):
        return "the request timed out"
    if isinstance(e, openai.APIConnectionError):
        return f"cannot reach {base_url}: {_innermost(e)}"
    if isinstance(e, openai.APIError):  # an error event inside the stream
        return f"error from the provider: {e.message}"
    if isinstance(e, ValueError):  # an event that is not JSON (a proxy's error page…)
        return f"the provider sent a malformed stream ({e})"
    return ""


def _innermost(e: BaseException) -> BaseException:
    """The first cause of a wrapped exception (openai → httpx → httpcore → the socket's)."""
    seen = 0
    while seen < 10 and (e.__cause__ or e.__context__) is not None:
        e = e.__cause__ or e.__context__  # type: ignore[assignment]
        seen += 1
    return e


def connection_failure(e: BaseException, base_url: str) -> LLMError | RetryLater | None:
    """A connection that no retry will mend, said at once with what to change (plain HTTP
    answering TLS, a host that does not exist); a refused one retried with a hint; None for
    anything else."""
    cause = _innermost(e)
    where = "--base-url (or AGENT_BASE_URL)"
    if isinstance(cause, ssl.SSLError) and "WRONG_VERSION_NUMBER" in str(cause):
        plain = base_url.replace("https://", "http://", 1)
        return LLMError(
            f"{base_url} does not speak TLS (plain HTTP answered): use {plain} as {where}"
        )
    if isinstance(cause, ssl.SSLCertVerificationError):
        return LLMError(
            f"the certificate of {base_url} is not trusted ({cause.verify_message}): check "
            f"{where}, or point SSL_CERT_FILE at your organisation's CA bundle"
        )
    if isinstance(cause, socket.gaierror) and cause.errno in _NO_SUCH_HOST:
        host = urlsplit(base_url).hostname or base_url
        return LLMError(f"the host {host!r} of {base_url} does not exist (DNS): check {where}")
    if isinstance(cause, ConnectionRefusedError):
        return RetryLater(
            f"{base_url} refused the connection", e, hint=f"is the server running? check {where}"
        )
    return None


# getaddrinfo's "no such name" answers (a temporary DNS failure, EAI_AGAIN, is retried)
_NO_SUCH_HOST = {getattr(socket, n) for n in ("EAI_NONAME", "EAI_NODATA") if hasattr(socket, n)}
