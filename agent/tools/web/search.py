"""Where web_search gets its results: a search API you configure (`webSearch.provider`: Brave,
Tavily or a SearXNG instance, the key from the environment), else the `ddgs` metasearch library
(DuckDuckGo and other engines; `pip install 'agent[search]'`). No page scraping of our own: a
result page changes shape without notice, a maintained library or an API does not.

When no backend answers, SearchUnavailable says why each failed and how to configure one.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any

from agent.config.view import WebSearch
from agent.tools.web.fetching import USER_AGENT, httpx_module

APIS = {  # provider -> (default URL, environment variable of the key)
    "brave": ("https://api.search.brave.com/res/v1/web/search", "BRAVE_API_KEY"),
    "tavily": ("https://api.tavily.com/search", "TAVILY_API_KEY"),
    "searxng": ("", ""),  # your instance's URL; no key
}
HOW = (
    "configure one: set webSearch.provider to brave, tavily or searxng in ~/.agent/settings.json "
    '(e.g. {"webSearch": {"provider": "brave"}} with BRAVE_API_KEY set, or {"webSearch": '
    '{"provider": "searxng", "url": "http://localhost:8888"}}), or pip install \'agent[search]\' '
    "for DuckDuckGo and other engines through ddgs"
)


@dataclass(frozen=True)
class Hit:
    title: str
    url: str
    snippet: str


class SearchUnavailable(Exception):
    """No backend answered: the message says why, and how to configure one."""


async def search(query: str, limit: int, cfg: WebSearch, timeout: float) -> tuple[list[Hit], str]:
    """(results, the backend that gave them), trying the configured API, then ddgs."""
    failures: list[str] = []
    backends = ([cfg.provider] if cfg.provider and cfg.provider != "ddgs" else []) + ["ddgs"]
    for name in backends:
        try:
            hits = await asyncio.wait_for(_one(name, query, limit, cfg, timeout), timeout)
            return hits[:limit], name
        except asyncio.TimeoutError:
            failures.append(f"{name}: no answer within {timeout:g} s")
        except _Skip as e:
            failures.append(f"{name}: {e}")
        except Exception as e:  # an API's error, a library's: said, then the next backend
            failures.append(f"{name}: {type(e).__name__}: {str(e)[:200]}")
    raise SearchUnavailable(f"no search backend answered ({'; '.join(failures)}); {HOW}")


class _Skip(Exception):
    """This backend cannot be used here (not installed, no key, no URL)."""


async def _one(name: str, query: str, limit: int, cfg: WebSearch, timeout: float) -> list[Hit]:
    if name == "ddgs":
        return await asyncio.to_thread(_ddgs, query, limit, timeout)
    if name not in APIS:
        raise _Skip(f"unknown provider {name!r} (known: {', '.join([*APIS, 'ddgs'])})")
    default_url, default_env = APIS[name]
    url = cfg.url or default_url
    if not url:
        raise _Skip('needs its URL: "webSearch": {"provider": "searxng", "url": "http://…"}')
    env = cfg.key_env or default_env
    key = os.environ.get(env, "") if env else ""
    if env and not key:
        raise _Skip(f"{env} is not set")
    return await _api(name, url, key, query, limit, timeout)


async def _api(name: str, url: str, key: str, query: str, limit: int, timeout: float) -> list[Hit]:
    httpx = httpx_module()
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
    async with httpx.AsyncClient(timeout=timeout, headers=headers, trust_env=False) as client:
        if name == "brave":
            r = await client.get(
                url, params={"q": query, "count": limit}, headers={"X-Subscription-Token": key}
            )
        elif name == "tavily":
            body = {"query": query, "max_results": limit}
            r = await client.post(url, json=body, headers={"Authorization": f"Bearer {key}"})
        else:  # searxng
            r = await client.get(f"{url.rstrip('/')}/search", params={"q": query, "format": "json"})
        if r.status_code != 200:
            raise RuntimeError(f"HTTP {r.status_code}: {r.text[:200]}")
        data = r.json()
    rows = (data.get("web") or {}).get("results", []) if name == "brave" else data.get("results")
    fields = ("title", "url", "description" if name == "brave" else "content")
    return _hits(rows, fields)


def _ddgs(query: str, limit: int, timeout: float) -> list[Hit]:
    try:
        from ddgs import DDGS  # deferred: the optional `search` extra (~12 MB with its deps)
    except ImportError:
        raise _Skip("not installed (pip install 'agent[search]')") from None
    rows = DDGS(timeout=max(int(timeout), 1)).text(query, max_results=limit)
    return _hits(rows, ("title", "href", "body"))


def _hits(rows: Any, fields: tuple[str, str, str]) -> list[Hit]:
    """Results from a backend's JSON rows; rows without a URL are skipped."""
    title, url, snippet = fields
    out = []
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict) and isinstance(row.get(url), str) and row[url]:
            text = " ".join(str(row.get(snippet) or "").split())
            out.append(Hit(" ".join(str(row.get(title) or row[url]).split()), row[url], text))
    return out
