"""The model client: stream one chat completion with retries, backoff and three timeouts.

Retries (429 with Retry-After, 5xx, connection errors, cut streams, timeouts) happen before any
tool of the step has run, and a failed attempt never reaches the history. 400/401/402/422 are
never retried; they end the turn with a one-line message saying what to do.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from agent.base.events import ErrorEvent, ReasoningDelta, Sink, TextDelta
from agent.base.messages import Message
from agent.config.prices import Price
from agent.config.view import RetryPolicy
from agent.core.budget import Budget
from agent.core.errors import (
    LLMError,
    Retrying,
    RetryLater,
    RetryNow,
    StreamTimeout,
    body_message,
    connection_failure,
    overflow,
    retry_after,
    retry_message,
    status_message,
)
from agent.core.stream import Assembler, CutStream, Reply

if TYPE_CHECKING:
    from agent.config.load import Config

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504, 529}
sleep = asyncio.sleep  # the wait between attempts: a test records the delays asked for here


def wire_messages(messages: list[Message], reasoning_input: str) -> list[Message]:
    """Messages as this provider wants them: reasoning kept only where its rule says."""
    out: list[Message] = []
    for m in messages:
        if m["role"] != "assistant" or "reasoning_content" not in m:
            out.append(m)
            continue
        keep = reasoning_input == "all" or (reasoning_input == "tool_calls" and m.get("tool_calls"))
        w = Message(**m)  # a copy
        if not keep:
            del w["reasoning_content"]
        out.append(w)
    return out


class LLM:
    """One provider connection for a session; remembers what the provider rejected."""

    def __init__(self, cfg: Config, retry: RetryPolicy | None = None) -> None:
        self.cfg = cfg
        self.retry = retry or cfg.options.retry
        self.include_usage = cfg.provider.include_usage
        self.reasoning_input = cfg.provider.reasoning_input
        self.model = cfg.model
        self.extra_body = dict(cfg.extra_body)
        self.temperature = cfg.temperature  # /creative changes it for the session
        self._client: Any = None
        self.api_seconds = 0.0
        # the run's spending caps: shared by the copies subagents make, so they count too
        self.budget = Budget.of(cfg.automation)

    def client(self) -> Any:
        if self._client is None:
            from openai import AsyncOpenAI

            t = self.cfg.timeouts
            self._client = AsyncOpenAI(
                base_url=self.cfg.base_url,
                api_key=self.cfg.api_key,
                max_retries=0,
                timeout=max(t.first_token, t.idle) + 5,
            )
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP client (before the event loop closes)."""
        if self._client is not None:
            await self._client.close()
            self._client = None

    def price(self) -> Price | None:
        """The price of the model this client now sends to (None: unknown)."""
        return self.cfg.price(self.model)

    def request(self, messages: list[Message], tools: list[dict[str, Any]]) -> dict[str, Any]:
        """The request body as plain JSON-ready data (the session's own settings on top)."""
        kw: dict[str, Any] = {
            "model": self.model,
            "messages": wire_messages(messages, self.reasoning_input),
            "stream": True,
        }
        if tools:
            kw["tools"] = tools
        if self.include_usage:
            kw["stream_options"] = {"include_usage": True}
        if self.temperature is not None and not self.cfg.think:
            kw["temperature"] = self.temperature
        return {**kw, **self.extra_body} if self.extra_body else kw

    async def complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        sink: Sink,
        step: int,
        *,
        no_tools: bool = False,
    ) -> Reply:
        """Stream one reply, retrying what can be retried; raises LLMError otherwise.
        `no_tools` keeps the tool list (a cache-identical prefix) but asks for a text answer.
        With a spending cap, an attempt (a retry too) that would pass it is not sent, and
        failed attempts count against it (agent.core.budget)."""
        return await self._complete(messages, tools, sink, step, no_tools)

    async def _attempt(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        kw: dict[str, Any],
        asm: Assembler,
    ) -> Reply:
        """One attempt of the request, within the budget when there is one."""
        if self.budget is None:
            return await self._once(kw, asm)

        def request() -> Awaitable[Reply]:
            return self._once(kw, asm)

        def partial() -> str:
            return "".join(asm.text) + "".join(asm.reasoning)

        return await self.budget.guard(messages, tools, self.price(), request, partial)

    async def _complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        sink: Sink,
        step: int,
        no_tools: bool,
    ) -> Reply:
        adapted: set[str] = set()
        attempt = 0
        while True:
            loop = asyncio.get_running_loop()
            started = loop.time()
            asm = Assembler(
                lambda s: sink.emit(TextDelta(s)), lambda s: sink.emit(ReasoningDelta(s)), step
            )
            try:
                kw = self.request(messages, tools)
                if no_tools and tools and "tool_choice" not in adapted:
                    kw["tool_choice"] = "none"
                return await self._attempt(messages, tools, kw, asm)
            except Exception as e:
                decision = self._classify(e, adapted)
                if decision is None:  # not a failure of the request: a bug, raised as it is
                    raise
            finally:
                self.api_seconds += loop.time() - started
            if isinstance(decision, RetryNow):
                sink.emit(ErrorEvent(decision.message, retrying=True, discard=asm.shown))
                continue
            attempt += 1
            if attempt >= self.retry.attempts:
                raise LLMError(decision.gave_up(attempt)) from decision.error
            wait = decision.after if decision.after is not None else self._backoff(attempt)
            said = decision.again(attempt + 1, self.retry.attempts, wait)
            sink.emit(ErrorEvent(said, retrying=True, discard=asm.shown))  # shown: start over
            await sleep(wait)

    def _backoff(self, attempt: int) -> float:
        d = min(self.retry.base_delay * 2 ** (attempt - 1), self.retry.max_delay)
        return d * (0.5 + random.random() / 2)

    def _classify(self, e: Exception, adapted: set[str]) -> Retrying | None:
        """How to try a failed request again (raises LLMError when it cannot be); None: the
        exception is no failure of the request (a bug): the caller raises it as it is."""
        import openai

        if isinstance(e, openai.APIStatusError):
            return self._classify_status(e, adapted)
        if isinstance(e, openai.APIConnectionError):
            said = connection_failure(e, self.cfg.base_url)
            if isinstance(said, LLMError):
                raise said from e
            if said is not None:
                return said
        message = retry_message(e, openai, self.cfg.base_url)
        return RetryLater(message, e) if message else None

    def _classify_status(self, e: Any, adapted: set[str]) -> Retrying:
        status = e.status_code
        msg = body_message(e)
        low = msg.lower()
        if status in (400, 422) and "stream_options" in low and "usage" not in adapted:
            adapted.add("usage")
            self.include_usage = False
            return RetryNow("the provider rejects stream_options; retrying without it", e)
        if status in (400, 422) and "tool_choice" in low and "tool_choice" not in adapted:
            adapted.add("tool_choice")
            return RetryNow("the provider rejects tool_choice; retrying without it", e)
        if status == 400 and "reasoning_content" in low and "reasoning" not in adapted:
            adapted.add("reasoning")
            self.reasoning_input = "tool_calls" if "passed back" in low else "none"
            why = f"the provider rejects reasoning_content; retrying with {self.reasoning_input}"
            return RetryNow(why, e)
        if status in RETRY_STATUS:
            return RetryLater(f"{status} from the provider: {msg}", e, retry_after(e))
        full = overflow(status, getattr(e, "body", None), msg)
        if full is not None:
            raise full from None
        raise LLMError(status_message(status, msg, self.cfg)) from None

    async def _post(self, body: dict[str, Any]) -> Any:
        """Send the body through the client's own request path (auth, timeouts, streaming) as
        it is: `chat.completions.create` would first walk every field of every message through
        the SDK's parameter transform — O(history) per request, 130 ms at 800 messages, where
        serialising the same body takes about one."""
        from openai import AsyncStream
        from openai.types.chat import ChatCompletion, ChatCompletionChunk

        return await self.client().post(
            "/chat/completions",
            body=body,
            cast_to=ChatCompletion,
            options={"security": {"bearer_auth": True}},  # as create() asks for its key
            stream=True,
            stream_cls=AsyncStream[ChatCompletionChunk],
        )

    async def _once(self, kw: dict[str, Any], asm: Assembler) -> Reply:
        loop = asyncio.get_running_loop()
        last: list[float] = []
        consumer = asyncio.ensure_future(self._consume(kw, asm, last, loop))
        t = self.cfg.timeouts
        start = loop.time()
        try:
            while True:
                limit = start + t.first_token if not last else last[0] + t.idle
                limit = min(limit, start + t.total)
                # wake at least once per idle window: the first chunk moves the deadline
                wait = max(min(limit - loop.time(), t.idle), 0)
                done, _ = await asyncio.wait({consumer}, timeout=wait)
                if done:
                    return consumer.result()
                limit = start + t.first_token if not last else last[0] + t.idle
                if loop.time() >= min(limit, start + t.total):
                    what = "first token" if not last else "data (idle gap)"
                    if loop.time() >= start + t.total:
                        what = "the whole reply (total timeout)"
                    seconds = t.total if "total" in what else t.first_token if not last else t.idle
                    raise StreamTimeout(f"no {what} within {seconds:g} s")
        finally:
            if not consumer.done():
                consumer.cancel()
                await asyncio.gather(consumer, return_exceptions=True)

    async def _consume(
        self, kw: dict[str, Any], asm: Assembler, last: list[float], loop: Any
    ) -> Reply:
        stream = await self._post(kw)
        try:
            async for chunk in stream:
                if last:
                    last[0] = loop.time()
                else:
                    last.append(loop.time())
                asm.feed(chunk)
        except Exception as e:
            import openai

            if last and isinstance(e, openai.APIConnectionError):
                raise CutStream(f"the connection dropped mid-reply ({e.__cause__ or e})") from e
            raise
        finally:
            await stream.close()
        reply = asm.finish()
        if reply.finish_reason == "insufficient_system_resource":
            raise CutStream("the provider cut generation short (insufficient_system_resource)")
        return reply
