"""What a model's tokens cost: a price table keyed by model id, the user's overrides, and an
honest "unknown" for a model the table does not know (never another model's price).

USD per million tokens: input (a cache miss), cached input (a hit), output. List prices of the
providers' own APIs (checked 2025-12); a price changes, so settings win: `prices` per model
(`{"prices": {"my-model": {"in": 0.5, "cached": 0.05, "out": 1.5}}}`), or `priceIn`,
`priceCached`, `priceOut` for whatever model runs. Servers on your own machine cost nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    cached: float
    output: float

    def cost(self, prompt: int, cached: int, completion: int) -> float:
        """Dollar cost of one request's usage (`prompt` includes the `cached` tokens)."""
        miss = max(prompt - cached, 0)
        return (miss * self.input + cached * self.cached + completion * self.output) / 1e6


def _p(i: float, c: float, o: float) -> Price:
    return Price(i, c, o)


MODELS: dict[str, Price] = {
    # DeepSeek (V3.2: one price for both modes)
    "deepseek-chat": _p(0.28, 0.028, 0.42),
    "deepseek-reasoner": _p(0.28, 0.028, 0.42),
    # OpenAI
    "gpt-5": _p(1.25, 0.125, 10.0),
    "gpt-5-mini": _p(0.25, 0.025, 2.0),
    "gpt-5-nano": _p(0.05, 0.005, 0.4),
    "gpt-4.1": _p(2.0, 0.5, 8.0),
    "gpt-4.1-mini": _p(0.4, 0.1, 1.6),
    "gpt-4.1-nano": _p(0.1, 0.025, 0.4),
    "gpt-4o": _p(2.5, 1.25, 10.0),
    "gpt-4o-mini": _p(0.15, 0.075, 0.6),
    "o3": _p(2.0, 0.5, 8.0),
    "o4-mini": _p(1.1, 0.275, 4.4),
    # Moonshot (Kimi)
    "kimi-k2-0905-preview": _p(0.6, 0.15, 2.5),
    "kimi-k2-0711-preview": _p(0.6, 0.15, 2.5),
    "kimi-k2-turbo-preview": _p(1.15, 0.15, 8.0),
    # Qwen (Alibaba Cloud Model Studio, international; the first price tier)
    "qwen3-coder-plus": _p(1.0, 1.0, 5.0),
    "qwen3-coder-flash": _p(0.3, 0.3, 1.5),
    "qwen-max": _p(1.6, 1.6, 6.4),
    "qwen-plus": _p(0.4, 0.4, 1.2),
    "qwen-turbo": _p(0.05, 0.05, 0.2),
    # Groq
    "llama-3.3-70b-versatile": _p(0.59, 0.59, 0.79),
    "llama-3.1-8b-instant": _p(0.05, 0.05, 0.08),
}
FREE = Price(0.0, 0.0, 0.0)
LOCAL_PROVIDERS = frozenset({"ollama", "vllm", "llamacpp"})  # a server on your own machine


def known(model: str) -> Price | None:
    """The table's price for `model`: exact, without a router's `vendor/` prefix, or the
    longest id it extends with a dated suffix (`gpt-4.1-2025-04-14` → gpt-4.1)."""
    for name in (model, model.rsplit("/", 1)[-1]):
        if name in MODELS:
            return MODELS[name]
        dated = [m for m in MODELS if name.startswith(m + "-") and name[len(m) + 1 :][:1].isdigit()]
        if dated:
            return MODELS[max(dated, key=len)]
    return None


def price_for(model: str, provider: str, settings: Mapping[str, Any]) -> Price | None:
    """What `model` costs: the settings' `prices.<model>`, then `priceIn`/`priceCached`/
    `priceOut`, then the table; a local server is free; None when unknown."""
    per_model = settings.get("prices")
    own = per_model.get(model) if isinstance(per_model, Mapping) else None
    if isinstance(own, Mapping):
        return _from(own, ("in", "cached", "out"))
    if any(k in settings for k in ("priceIn", "priceCached", "priceOut")):
        return _from(settings, ("priceIn", "priceCached", "priceOut"))
    found = known(model)
    if found is not None:
        return found
    return FREE if provider in LOCAL_PROVIDERS else None


def _from(raw: Mapping[str, Any], keys: tuple[str, str, str]) -> Price:
    """A price from settings; cached defaults to the input price, a missing one to 0."""
    i, c, o = (raw.get(k) for k in keys)
    num = [float(v) if isinstance(v, (int, float)) else None for v in (i, c, o)]
    inp = num[0] or 0.0
    return Price(inp, num[1] if num[1] is not None else inp, num[2] or 0.0)
