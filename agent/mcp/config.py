"""MCP server declarations: `mcpServers` in settings files and a project's `.mcp.json` (SPEC §10).

Shape (the same in both places): `{"mcpServers": {name: {...}}}` with
- stdio: `command`, `args`, `env`, `cwd`;
- streamable HTTP: `"type": "http"`, `url`, `headers`;
- SSE (the older HTTP transport): `"type": "sse"`, `url`, `headers`;
- either: `timeout` (seconds to connect, default `mcpTimeout` or 30), `toolTimeout` (seconds per
  call, default `mcpToolTimeout` or 600), `disabled`, `deferTools` (true: its tools wait behind
  tool_search; false: always sent; absent: as the setting `tools.search` decides).
Each spec says whether the user declared it (`own`, from agent.config.mcpfiles.own_servers):
only then are its tools' annotations (`readOnlyHint`) trusted to spare a permission prompt —
the MCP specification has clients treat annotations from untrusted servers as untrusted.
`${VAR}` and `${VAR:-default}` are expanded in every string (command, args, env, cwd, url,
headers) from the environment and the `.env` files. Nothing here imports the `mcp` SDK.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from typing import Any

from agent.config.view import Settings

DEFAULT_TIMEOUT = 30.0
DEFAULT_TOOL_TIMEOUT = 600.0
HTTP_TYPES = ("http", "streamable-http", "streamableHttp", "streamable_http")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_UNTRUSTED = "project not trusted; run with --trust-project or answer the trust prompt"


@dataclass(frozen=True)
class ServerSpec:
    """One server to connect to, validated and with variables expanded."""

    name: str
    transport: str  # "stdio" | "http" | "sse" | "sdk" (the driving program's: agent.sdk)
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    tool_timeout: float = DEFAULT_TOOL_TIMEOUT
    own: bool = False  # the user declared it: its tools' readOnlyHint is trusted
    defer_tools: bool | None = None  # `deferTools`; None: as `tools.search` says


def load_specs(
    settings: Settings, env: dict[str, str], own: frozenset[str] = frozenset()
) -> tuple[list[ServerSpec], list[str]]:
    """Validated specs (sorted by name: a stable tool order) and one warning per bad entry;
    `own` names the servers the user declared (Config.mcp_own)."""
    servers = settings.mcp_servers
    connect, call = settings.mcp_timeouts
    timeout = _seconds(connect, DEFAULT_TIMEOUT)
    tool_timeout = _seconds(call, DEFAULT_TOOL_TIMEOUT)
    specs: list[ServerSpec] = []
    warnings: list[str] = []
    for name in sorted(servers):
        raw = servers[name]
        if isinstance(raw, dict) and raw.get("disabled") is True:
            continue
        missing: list[str] = []
        try:
            spec = _spec(str(name), raw, _Expander(env, missing), timeout, tool_timeout)
        except ValueError as e:
            warnings.append(f"mcpServers.{name}: {e}; server skipped")
            continue
        warnings += [
            f"mcpServers.{name}: ${{{v}}} is not set (expanded to nothing)" for v in missing
        ]
        specs.append(replace(spec, own=name in own))
    return specs, warnings


@dataclass
class _Expander:
    env: dict[str, str]
    missing: list[str]

    def __call__(self, value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise ValueError(f"{where} must be a string")

        def one(m: re.Match[str]) -> str:
            if m.group(1) in self.env:
                return self.env[m.group(1)]
            if m.group(2) is None:
                self.missing.append(m.group(1))
            return m.group(2) or ""

        return _VAR.sub(one, value)

    def mapping(self, value: Any, where: str) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ValueError(f"{where} must be an object of strings")
        return {str(k): self(v, f"{where}.{k}") for k, v in value.items()}


def _spec(name: str, raw: Any, x: _Expander, timeout: float, tool_timeout: float) -> ServerSpec:
    if not isinstance(raw, dict):
        raise ValueError("expected an object")
    kind = raw.get("type") or ("http" if "url" in raw else "stdio")
    common: dict[str, Any] = {
        "timeout": _seconds(raw.get("timeout"), timeout),
        "tool_timeout": _seconds(raw.get("toolTimeout"), tool_timeout),
    }
    defer = raw.get("deferTools")
    if defer is not None and not isinstance(defer, bool):
        raise ValueError('"deferTools" must be true or false')
    common["defer_tools"] = defer
    if kind in HTTP_TYPES or kind == "sse":
        transport = "sse" if kind == "sse" else "http"
        url = x(raw.get("url") or "", "url")
        if not url.startswith(("http://", "https://")):
            raise ValueError(
                f'"type": "{transport}" needs a "url" starting with http:// or https://'
            )
        headers = x.mapping(raw.get("headers"), "headers")
        return ServerSpec(name, transport, url=url, headers=headers, **common)
    if kind == "sdk":  # in the program that drives this agent (agent.sdk): by its name
        return ServerSpec(name, "sdk", **common)
    if kind != "stdio":
        raise ValueError(f'unsupported "type": {kind!r} (use "stdio", "http" or "sse")')
    if not raw.get("command"):
        raise ValueError('needs a "command" (stdio) or "type": "http" with a "url"')
    args = raw.get("args") or []
    if not isinstance(args, list):
        raise ValueError('"args" must be a list of strings')
    cwd = raw.get("cwd")
    return ServerSpec(
        name,
        "stdio",
        command=x(raw["command"], "command"),
        args=tuple(x(a, "args[]") for a in args),
        env=x.mapping(raw.get("env"), "env"),
        cwd=os.path.expanduser(x(cwd, "cwd")) if cwd else None,
        **common,
    )


def _seconds(value: Any, default: float) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    return default
