"""Spending caps of a run (`--max-budget-usd`, `--max-tokens-total`), kept before each request.

A session has one Budget, shared by every copy of its client (subagents, compaction, side
questions): all that the run asks of the provider counts. Before a request goes out its cost is
estimated, and it is not sent when what was spent, what requests still in flight may cost and
this estimate together would pass a cap — the turn ends with its own subtype instead
(`error_max_budget_usd`, `error_max_tokens_total`). Each attempt of a request is checked,
retries included, and an attempt that fails (a cut stream, an error from the provider) is
counted as well: its input by estimate and the text it streamed. The estimate errs high:

- input: the whole request (messages and tool list) by the token estimate of agent.base.tokens,
  which is a little high and never low, all priced as cache misses (a provider's prompt cache
  usually serves most of it for a tenth of the price);
- output: the longest reply of the run so far, and at least OUTPUT_FLOOR tokens.

What a request did cost is what the provider reported (an estimate of the reply when it reports
no usage), at the model's price (agent.config.prices). A model whose price is unknown cannot be
held to a dollar cap: config warns once, and only its tokens are counted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agent.base.events import EndSubtype
from agent.base.messages import Message
from agent.base.tokens import Totals, estimate, estimate_messages, estimate_tools
from agent.config.automation import Automation
from agent.config.prices import Price
from agent.core.errors import LLMError
from agent.core.stream import Reply

OUTPUT_FLOOR = 1_000  # tokens a reply is assumed to take before any reply has been seen


class BudgetStop(LLMError):
    """The next request would pass a cap: it is not sent."""

    def __init__(self, message: str, subtype: EndSubtype) -> None:
        super().__init__(message)
        self.subtype = subtype


@dataclass
class Budget:
    """The caps, what was spent against them, and what requests in flight may still cost."""

    max_usd: float | None = None
    max_tokens: int | None = None
    spent: Totals = field(default_factory=Totals)
    held_tokens: int = 0  # estimates of the requests in flight (concurrent subagents)
    held_usd: float = 0.0
    longest: int = 0  # output tokens of the longest reply so far

    @classmethod
    def of(cls, automation: Automation) -> Budget | None:
        """The budget the run's flags ask for; None without a cap."""
        if not automation.capped:
            return None
        return cls(automation.max_budget_usd, automation.max_tokens_total)

    @property
    def tokens(self) -> int:
        """Input and output tokens spent so far (cached input included)."""
        return self.spent.input_tokens + self.spent.output_tokens

    async def guard(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        price: Price | None,
        request: Callable[[], Awaitable[Reply]],
        partial: Callable[[], str] = lambda: "",
    ) -> Reply:
        """Send `request` — one attempt: the client guards each retry anew — if its estimate
        fits the caps (else raise BudgetStop), and count it. An attempt that fails is counted
        too, as the provider may well bill it: its input by estimate and the text it streamed
        before it failed (`partial`)."""
        size = estimate_messages(messages) + estimate_tools(tools) + max(self.longest, OUTPUT_FLOOR)
        usd = 0.0 if price is None else price.cost(size - self._out(), 0, self._out())
        self._check(size, usd, price)
        self.held_tokens, self.held_usd = self.held_tokens + size, self.held_usd + usd
        try:
            reply = await request()
        except BaseException:
            self.spent.add(_failed(size - self._out(), partial()), price)
            raise
        finally:
            self.held_tokens, self.held_usd = self.held_tokens - size, self.held_usd - usd
        usage = reply.usage or _estimated(reply, size - self._out())
        self.spent.add(usage, price)
        self.longest = max(self.longest, usage["output_tokens"])
        return reply

    def _out(self) -> int:
        return max(self.longest, OUTPUT_FLOOR)

    def _check(self, size: int, usd: float, price: Price | None) -> None:
        if self.max_tokens is not None:
            used = self.tokens + self.held_tokens
            if used + size > self.max_tokens:
                raise BudgetStop(
                    f"stopped before the next request: it would take about {size:,} tokens and "
                    f"{used:,} of the {self.max_tokens:,} allowed (--max-tokens-total) are spent",
                    "error_max_tokens_total",
                )
        if self.max_usd is not None and price is not None:
            used_usd = self.spent.cost_usd + self.held_usd
            if used_usd + usd > self.max_usd:
                raise BudgetStop(
                    f"stopped before the next request: it would cost about ${usd:.4f} and "
                    f"${used_usd:.4f} of the ${self.max_usd:g} budget (--max-budget-usd) is spent",
                    "error_max_budget_usd",
                )

    def report(self) -> dict[str, Any]:
        """The `budget` object of the JSON result."""
        cost = self.spent.cost
        return {
            "max_budget_usd": self.max_usd,
            "max_tokens_total": self.max_tokens,
            "spent_usd": None if cost is None else round(cost, 6),
            "spent_tokens": self.tokens,
        }


def _failed(prompt: int, streamed: str) -> dict[str, int]:
    """Usage of an attempt that failed: its input by estimate, and what it streamed."""
    out = estimate(streamed)
    return {"input_tokens": prompt, "output_tokens": out, "cached_tokens": 0, "reasoning_tokens": 0}


def _estimated(reply: Reply, prompt: int) -> dict[str, int]:
    """Usage for a provider that reports none: the request's estimate and the reply's."""
    out = estimate(reply.text) + estimate(reply.reasoning)
    out += sum(estimate(c.name) + estimate(c.arguments) for c in reply.calls)
    return {"input_tokens": prompt, "output_tokens": out, "cached_tokens": 0, "reasoning_tokens": 0}
