"""Provider presets: base URL, models, context limits and wire quirks (prices: agent.config.prices).

Figures live in this table, not in code paths; settings may override any of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class Provider:
    """One OpenAI-compatible endpoint and how it behaves on the wire."""

    name: str
    base_url: str
    model: str
    api_key_env: str  # the variable holding the key ("" = no key needed)
    thinking_model: str | None = None  # model to use for --think (None = same model + body)
    thinking_body: dict[str, Any] = field(default_factory=dict)  # extra_body for --think
    context_limit: int = 128_000
    include_usage: bool = True  # send stream_options.include_usage
    # Which assistant reasoning goes back in requests: "none" (old R1 rejected it),
    # "tool_calls" (DeepSeek thinking mode requires it for tool-call turns), "all".
    reasoning_input: str = "tool_calls"
    needs_key: bool = True


PRESETS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider(
            "deepseek",
            "https://api.deepseek.com",
            "deepseek-chat",
            "DEEPSEEK_API_KEY",
            thinking_model="deepseek-reasoner",
            thinking_body={"thinking": {"type": "enabled"}},
            context_limit=128_000,
        ),
        Provider(
            "openai",
            "https://api.openai.com/v1",
            "gpt-4.1",
            "OPENAI_API_KEY",
            thinking_model="o4-mini",
            context_limit=1_000_000,
            reasoning_input="none",
        ),
        Provider(
            "groq",
            "https://api.groq.com/openai/v1",
            "llama-3.3-70b-versatile",
            "GROQ_API_KEY",
            context_limit=128_000,
            include_usage=False,
            reasoning_input="none",
        ),
        Provider(
            "openrouter",
            "https://openrouter.ai/api/v1",
            "deepseek/deepseek-chat",
            "OPENROUTER_API_KEY",
            thinking_body={"reasoning": {"enabled": True}},
            context_limit=128_000,
        ),
        Provider(
            "ollama",
            "http://localhost:11434/v1",
            "qwen3",
            "OLLAMA_API_KEY",
            thinking_body={"think": True},
            context_limit=32_768,
            needs_key=False,
        ),
        Provider("vllm", "http://localhost:8000/v1", "default", "VLLM_API_KEY", needs_key=False),
        Provider(
            "llamacpp", "http://localhost:8080/v1", "default", "LLAMACPP_API_KEY", needs_key=False
        ),
        Provider("custom", "", "", "AGENT_API_KEY", needs_key=False),
    )
}


# Models trained on the apply_patch format (OpenAI's Codex line and its recent general models):
# they get the apply_patch tool without the tools.applyPatch setting.
PATCH_MODELS = ("gpt-4.1", "gpt-5", "o3", "o4", "codex")


def prefers_patches(model: str) -> bool:
    """The model is known to write `*** Begin Patch` patches best."""
    name = model.lower().rsplit("/", 1)[-1]  # openrouter's openai/gpt-5
    return name.startswith(PATCH_MODELS) or "codex" in name


# Models that take images in their input (image_url parts): read_file sends them images.
VISION = (
    *("gpt-4o", "gpt-4.1", "gpt-5", "o3", "o4", "claude", "gemini", "llava", "pixtral"),
    *("gemma-3", "llama-4", "grok-4", "qwen2.5-vl", "qwen-vl", "qwen3-vl", "minicpm-v"),
)


def accepts_images(model: str) -> bool:
    """The model is known to take images."""
    name = model.lower().rsplit("/", 1)[-1]
    return name.startswith(VISION) or "vision" in name or "-vl" in name


def preset(name: str, more: Mapping[str, Provider] | None = None) -> Provider:
    """The preset called `name`, or one of `more` (Codex's `[model_providers.*]`: the presets
    win a name); KeyError names the known ones."""
    every = {**(more or {}), **PRESETS}
    try:
        return every[name]
    except KeyError:
        known = ", ".join(every)
        raise KeyError(f"unknown provider {name!r} (known: {known})") from None


# Settings keys that override preset fields, by their camelCase settings name.
OVERRIDES = {
    "contextLimit": "context_limit",
    "thinkingModel": "thinking_model",
    "thinkingBody": "thinking_body",
    "includeUsage": "include_usage",
    "reasoningInput": "reasoning_input",
}


def with_overrides(p: Provider, settings: dict[str, Any]) -> Provider:
    """Apply `contextLimit`, `thinkingModel`, prices… from merged settings to a preset."""
    changes = {field_: settings[key] for key, field_ in OVERRIDES.items() if key in settings}
    return replace(p, **changes) if changes else p


_HIDDEN: set[str] = set()  # a custom `apiKeyEnv` this run reads its key from


def hide_key(name: str) -> None:
    """Count `name` among the model key variables (config calls it with `apiKeyEnv`)."""
    if name:
        _HIDDEN.add(name)


def model_key_names() -> frozenset[str]:
    """The variables that hold model API keys: commands the model runs and MCP servers never
    get them, so that a prompt injection cannot print the key."""
    presets = (p.api_key_env for p in PRESETS.values() if p.api_key_env)
    return frozenset({"AGENT_API_KEY", *presets, *_HIDDEN})
