"""What each setting is when no file sets it, in words, made from the values the code uses
(the dataclasses' defaults and the constants): the settings reference (docs/reference/
settings.md) is generated from this and agent.config.settings.SCHEMA, and a test checks that
every key of SCHEMA has its line here. Imported by nothing at run time."""

from __future__ import annotations

import json
import re

from agent.config.choice import DEFAULT_PROVIDER
from agent.config.frozen import Frozen
from agent.config.load import MAX_STEPS, Timeouts
from agent.config.providers import PRESETS
from agent.config.view import (
    EDIT_DIAGNOSTICS,
    REPO_MAP_TOKENS,
    REPO_MAP_WAIT,
    TOOL_SEARCH,
    ChecksSettings,
    Retention,
    RetryPolicy,
    SandboxSettings,
    ToolResults,
)

KEYS = {"rounds": "maxRounds"}  # a field whose settings key is not its name in camelCase


def _obj(value: Frozen) -> str:
    """A settings object's defaults as its keys and JSON values."""
    fields = {n: getattr(value, n) for n in value._fields}
    return ", ".join(f"{_key(k)}: {json.dumps(v)}" for k, v in fields.items())


def _key(field: str) -> str:
    return KEYS.get(field) or re.sub(r"_(\w)", lambda m: m.group(1).upper(), field)


def defaults() -> dict[str, str]:
    d = PRESETS[DEFAULT_PROVIDER]
    t = Timeouts()
    r = RetryPolicy()
    return {
        "provider": f"{d.name} (openai when only OPENAI_API_KEY is set, custom with "
        "AGENT_BASE_URL)",
        "model": f"the provider's ({d.name}: {d.model})",
        "baseUrl": f"the provider's ({d.name}: {d.base_url})",
        "apiKeyEnv": f"the provider's ({d.name}: {d.api_key_env})",
        "thinkingModel": "the provider's (--think)",
        "thinkingBody": "the provider's (--think)",
        "webFetch": "allowedHosts: [], allowPrivateHosts: false",
        "webSearch": "DuckDuckGo and other engines (the `search` extra)",
        "contextLimit": f"the provider's ({d.name}: {d.context_limit:,}), or what the server says",
        "compactThreshold": "0.8",
        "compactKeepTurns": "2",
        "maxTurns": str(MAX_STEPS),
        "sandbox": _obj(SandboxSettings()).replace('mode: ""', "mode: the platform's"),
        "toolResults": _obj(ToolResults()),
        "repoMap": f"tokens: {REPO_MAP_TOKENS}, wait: {REPO_MAP_WAIT}",
        "tools": f"applyPatch: models trained on it, images: by the model's name, "
        f"search: {TOOL_SEARCH[0]!r}",
        "checks": _obj(ChecksSettings()),
        "lsp": "every known server that is installed",
        "editDiagnostics": repr(EDIT_DIAGNOSTICS[0]),
        "temperature": "the server's",
        "language": "none (the model's own choice)",
        "includeUsage": f"the provider's ({d.name}: {str(d.include_usage).lower()})",
        "reasoningInput": f"the provider's ({d.name}: {d.reasoning_input!r})",
        "priceIn": "the model's known price (agent.config.prices), else unknown",
        "priceCached": "the model's known price, else unknown",
        "priceOut": "the model's known price, else unknown",
        "prices": "{}",
        "permissions": "mode: 'default', no rules",
        "mcpServers": "{}",
        "mcpTimeout": "30",
        "mcpToolTimeout": "600",
        "hooks": "{}",
        "disallowedTools": "[]",
        "env": "{}",
        "timeouts": f"firstToken: {t.first_token:g}, idle: {t.idle:g}, total: {t.total:g}",
        "retry": f"attempts: {r.attempts}, baseDelay: {r.base_delay:g}, maxDelay: {r.max_delay:g}",
        "actions": "{}",
        "plugins": "[]",
        "enabledPlugins": "{} (every plugin found is on)",
        "sessions": _obj(Retention()),
        # agent.subagents.records.Limits (above this layer: a test checks the figures)
        "subagents": "maxDepth: 1, maxTurns: 30, maxParallel: 4, tools: all but task",
    }
