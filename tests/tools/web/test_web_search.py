"""web_search through a search API (Brave, Tavily, SearXNG — local servers speaking their JSON
here) or the ddgs library; when none answers, one line says why and how to configure one
(issue 20). No page scraping of our own."""

from __future__ import annotations

import json
import sys
import threading
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from web_server import QuietHandler, serve

from agent.base.record import ToolContext
from agent.config.settings import restrict_untrusted
from agent.config.view import Settings, WebSearch
from agent.tools.web import tools as web

ROWS = [{"title": "asyncio — Async I/O", "url": "https://docs.python.org/3/library/asyncio.html"}]


class Handler(QuietHandler):
    seen: list[tuple[str, str, dict[str, str], bytes]] = []  # noqa: RUF012 - on purpose
    release = threading.Event()  # /silent holds its request until set (a minute at most)
    let_go: list[str] = []  # noqa: RUF012 - on purpose: requests /silent has let go of

    def _answer(self, body: bytes) -> None:
        Handler.seen.append((self.command, self.path, dict(self.headers), body))
        path = self.path.split("?")[0]
        if path.startswith("/silent"):
            # this test's event and list: a request an earlier test held lets go into its own
            release, let_go = Handler.release, Handler.let_go
            release.wait(60)
            let_go.append(self.path)
            return
        if path == "/brave":
            rows = [{**r, "description": "concurrent <code>"} for r in ROWS]
            data: Any = {"web": {"results": rows}}
        elif path == "/tavily":
            data = {"results": [{**r, "content": "  write\nconcurrent code "} for r in ROWS]}
        elif path == "/searx/search":
            data = {"results": [*({**r, "content": "searx"} for r in ROWS), {"title": "no url"}]}
        else:
            self.reply(429, b'{"error": "rate limited"}', "application/json")
            return
        self.reply(200, json.dumps(data).encode(), "application/json")

    def do_GET(self) -> None:
        self._answer(b"")

    def do_POST(self) -> None:
        self._answer(self.rfile.read(int(self.headers.get("Content-Length") or 0)))


@pytest.fixture
def server() -> Iterator[str]:
    Handler.seen.clear()
    Handler.let_go, Handler.release = [], threading.Event()  # new ones for each test
    try:
        with serve(Handler) as address:
            yield address
    finally:
        Handler.release.set()


@pytest.fixture(autouse=True)
def no_ddgs(monkeypatch: pytest.MonkeyPatch) -> None:
    """ddgs would reach the real web: it is absent unless a test brings a stand-in."""
    monkeypatch.setitem(sys.modules, "ddgs", None)


def ctx_for(tmp_path: Path, **search: str) -> ToolContext:
    return ToolContext(cwd=tmp_path, web_search=WebSearch(**search), web_timeout=1.0)


async def run(ctx: ToolContext, query: str = "python asyncio & co", **more: Any) -> Any:
    return await web.WEB_SEARCH.run({"query": query, **more}, ctx)


async def test_brave_sends_the_key_and_reads_its_results(
    tmp_path: Path, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "brave-key")
    result = await run(ctx_for(tmp_path, provider="brave", url=f"http://{server}/brave"), limit=3)
    assert result.output.splitlines() == [
        "1. asyncio — Async I/O",
        "   https://docs.python.org/3/library/asyncio.html",
        "   concurrent <code>",
    ]
    assert result.display == 'web_search "python asyncio & co" · 1 result (brave)'
    method, path, headers, _ = Handler.seen[-1]
    assert method == "GET" and headers["X-Subscription-Token"] == "brave-key"
    assert parse_qs(urlsplit(path).query) == {"q": ["python asyncio & co"], "count": ["3"]}


async def test_tavily_posts_the_query_with_a_bearer_key(
    tmp_path: Path, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_TAVILY", "tv-key")
    ctx = ctx_for(tmp_path, provider="tavily", url=f"http://{server}/tavily", key_env="MY_TAVILY")
    result = await run(ctx)
    assert "   write concurrent code" in result.output.splitlines()
    method, _, headers, body = Handler.seen[-1]
    assert (method, headers["Authorization"]) == ("POST", "Bearer tv-key")
    assert json.loads(body) == {"query": "python asyncio & co", "max_results": 8}


async def test_searxng_needs_only_its_url(tmp_path: Path, server: str) -> None:
    result = await run(ctx_for(tmp_path, provider="searxng", url=f"http://{server}/searx"))
    assert result.output.count("https://") == 1  # the row without a URL is skipped
    assert parse_qs(urlsplit(Handler.seen[-1][1]).query)["format"] == ["json"]


@pytest.mark.parametrize(
    ("search", "why"),
    [
        ({"provider": "brave"}, "brave: BRAVE_API_KEY is not set"),
        ({"provider": "searxng"}, "searxng: needs its URL"),
        ({"provider": "bing"}, "bing: unknown provider 'bing'"),
        ({"provider": "searxng", "url": "http://{server}/down"}, "searxng: RuntimeError: HTTP 429"),
        ({"provider": "searxng", "url": "http://{server}/silent"}, "searxng: no answer within 1 s"),
        ({}, "ddgs: not installed (pip install 'agent[search]')"),
    ],
)
async def test_when_no_backend_answers_one_line_says_why_and_how(
    tmp_path: Path, server: str, search: dict[str, str], why: str
) -> None:
    search = {k: v.format(server=server) for k, v in search.items()}
    started = time.monotonic()
    result = await run(ctx_for(tmp_path, **search))
    assert time.monotonic() - started < 30  # not the minute /silent holds a request
    assert not Handler.let_go  # a silent server was never waited for
    assert result.is_error and why in result.output
    assert "ddgs: not installed" in result.output  # the fallback was tried too
    assert "set webSearch.provider to brave, tavily or searxng" in result.output
    assert "can_retry: false" in result.output


async def test_ddgs_answers_when_no_api_is_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, int]] = []

    class DDGS:
        def __init__(self, timeout: int) -> None:
            self.timeout = timeout

        def text(self, query: str, max_results: int) -> list[dict[str, str]]:
            calls.append((query, max_results))
            return [{"title": "Result", "href": "https://r.example/", "body": "about it"}]

    monkeypatch.setitem(sys.modules, "ddgs", types.SimpleNamespace(DDGS=DDGS))
    result = await run(ctx_for(tmp_path), limit=2)
    assert result.output.splitlines() == ["1. Result", "   https://r.example/", "   about it"]
    assert result.display.endswith("(ddgs)") and calls == [("python asyncio & co", 2)]
    brave = await run(ctx_for(tmp_path, provider="brave"))  # no key: ddgs takes over
    assert brave.display.endswith("(ddgs)")


def test_settings_choose_the_backend_and_a_project_cannot() -> None:
    raw = {"webSearch": {"provider": "SearXNG", "url": " http://localhost:8888 "}}
    assert Settings(raw).web_search == WebSearch("searxng", "http://localhost:8888", "")
    kept, dropped = restrict_untrusted(Path(".agent/settings.json"), raw)
    assert "webSearch" in dropped and "webSearch" not in kept  # where your queries go
