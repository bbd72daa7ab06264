"""The model's real context window, asked of the server once and kept.

A local or self-hosted server (llama.cpp, vLLM, Ollama, a custom endpoint) runs a model with
whatever window it was started with: the 128,000 a preset assumes can be 2,048. Before the
first request the agent asks, cheaply: llama.cpp `/props` (`n_ctx`), the `/v1/models` entry
(vLLM `max_model_len`, llama.cpp `meta.n_ctx`), Ollama `/api/show` (`num_ctx`, else the model's
`context_length`). The answer, or a window learned from a context-overflow error, is kept per
base URL and model in the state directory (`windows.json`), so later runs (`-c` included) ask
nothing. A `contextLimit` you set wins over all of it.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from typing import Any

from agent.config import safefile
from agent.config.load import Config
from agent.config.statedir import ensure_home, state_home
from agent.context.compaction import Policy
from agent.core.llm import LLM
from agent.tools.web.fetching import httpx_module

CACHE = "windows.json"
ASKS = frozenset({"llamacpp", "vllm", "ollama", "custom"})  # hosted presets know their windows
PROBE_TIMEOUT = 3.0  # all the questions together: a server that hangs costs no more
UNKNOWN_FOR = 86_400.0  # a server that did not say is asked again after a day


def _key(base_url: str, model: str) -> str:
    return f"{base_url.rstrip('/')}|{model}"


def _table() -> dict[str, Any]:
    try:
        data = json.loads((state_home() / CACHE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def cached(base_url: str, model: str) -> int | None:
    """The window kept for this server and model: None when never asked (or long ago), 0 when
    the server did not say the last time (asked again after a day)."""
    entry = _table().get(_key(base_url, model))
    if not isinstance(entry, dict):
        return None
    n = entry.get("n_ctx")
    if not isinstance(n, int) or n < 0:
        return None
    if n == 0 and time.time() - float(entry.get("time", 0)) > UNKNOWN_FOR:
        return None
    return n


def remember(base_url: str, model: str, n_ctx: int, source: str) -> None:
    """Keep a window (from the server, or learned from an overflow error); best effort."""
    table = _table()
    table[_key(base_url, model)] = {"n_ctx": n_ctx, "source": source, "time": int(time.time())}
    try:
        home = ensure_home()
        data = json.dumps(table, indent=1, sort_keys=True).encode("utf-8")
        safefile.write_atomic(home, home / CACHE, data, 0o600)
    except OSError:
        pass  # next run asks again


def _root(base_url: str) -> str:
    base = base_url.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


async def probe(base_url: str, model: str, api_key: str) -> int | None:
    """Ask the server for the window it runs `model` with; None when it does not say."""
    httpx = httpx_module()
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    root = _root(base_url)
    # A plain-http server (llama.cpp, Ollama, vLLM on this machine) is never reached over TLS
    # here (no proxy, no redirect followed), so no CA store is loaded for it: 55 ms a start.
    tls = not root.startswith("http://")
    async with httpx.AsyncClient(
        timeout=PROBE_TIMEOUT, headers=headers, trust_env=False, verify=tls
    ) as c:
        for ask in (_props, _models, _ollama):
            try:
                n = await ask(c, root, base_url.rstrip("/"), model)
            except (httpx.HTTPError, ValueError, KeyError, TypeError, AttributeError):
                n = None
            if n:
                return n
    return None


async def _props(c: Any, root: str, base: str, model: str) -> int | None:
    r = await c.get(f"{root}/props")
    data = r.json() if r.status_code == 200 else {}
    settings = data.get("default_generation_settings") or {}
    return _int(settings.get("n_ctx") or data.get("n_ctx"))


async def _models(c: Any, root: str, base: str, model: str) -> int | None:
    r = await c.get(f"{base}/models")
    rows = r.json().get("data", []) if r.status_code == 200 else []
    rows = [m for m in rows if m.get("id") == model] or rows[:1]
    for m in rows:
        meta = m.get("meta") or {}
        n = _int(m.get("max_model_len") or meta.get("n_ctx") or m.get("context_length"))
        if n:
            return n
    return None


async def _ollama(c: Any, root: str, base: str, model: str) -> int | None:
    r = await c.post(f"{root}/api/show", json={"model": model})
    if r.status_code != 200:
        return None
    data = r.json()
    for line in str(data.get("parameters") or "").splitlines():
        name, _, value = line.partition(" ")
        if name == "num_ctx":
            return _int(value.strip())
    info = data.get("model_info") or {}
    return _int(next((v for k, v in info.items() if k.endswith(".context_length")), None))


def _int(value: Any) -> int | None:
    try:
        n = int(value)
    except (TypeError, ValueError):
        return None
    return n if n > 0 else None


def _asks(cfg: Config, policy: Policy | None) -> bool:
    """Whether the window is the server's to say: not for a hosted preset (it knows), nor when
    the user set contextLimit, nor without auto-compaction."""
    return policy is not None and "contextLimit" not in cfg.settings and cfg.provider.name in ASKS


def kept_policy(cfg: Config, policy: Policy | None) -> Policy | None:
    """`policy` with the window kept from an earlier run (no network: a file read)."""
    if policy is None or not _asks(cfg, policy):
        return policy
    n = cached(cfg.base_url, cfg.model)
    return replace(policy, context_limit=n) if n else policy


async def server_policy(llm: LLM, policy: Policy | None) -> Policy | None:
    """`policy` with the window the server really runs (kept, or asked once); unchanged for a
    hosted preset, a `contextLimit` the user set, or a server that does not say."""
    cfg = llm.cfg
    if policy is None or not _asks(cfg, policy):
        return policy
    n = cached(cfg.base_url, llm.model)
    if n is None:
        try:
            n = await asyncio.wait_for(probe(cfg.base_url, llm.model, cfg.api_key), PROBE_TIMEOUT)
        except asyncio.TimeoutError:
            n = None
        remember(cfg.base_url, llm.model, n or 0, "server" if n else "unknown")
    return replace(policy, context_limit=n) if n else policy


def learned(llm: LLM, policy: Policy | None) -> None:
    """Keep a window an overflow error taught (so `-c` starts from it)."""
    if policy is not None:
        remember(llm.cfg.base_url, llm.model, policy.context_limit, "overflow")
