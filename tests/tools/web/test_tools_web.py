"""web_fetch and web_search against a local http.server on 127.0.0.1 (no other network)."""

from __future__ import annotations

import ipaddress
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from web_server import QuietHandler, serve

from agent.base.record import RESULT_CAP, ToolContext, ToolResult
from agent.tools.web import fetching, htmltext
from agent.tools.web import tools as web

PAGE = """<!doctype html><html><head><title>Test &amp; Page</title>
<style>body { color: red }</style><script>var secret = "script text";</script></head>
<body><nav><a href="/home">Navigation link</a></nav>
<h1>Main heading</h1><p>Intro with a <a href="/docs/intro">relative link</a> and
<strong>bold</strong>, <em>italic</em>, <code>inline_code()</code> &lt;tags&gt; &#x27;q&#x27;.</p>
<h2>Lists</h2><ul><li>apple</li><li>banana<ul><li>nested</li></ul></li></ul>
<ol><li>first</li><li>second</li></ol>
<pre><code class="language-python">def f(x):
    return x &lt; 2
</code></pre>
<blockquote>quoted words</blockquote>
<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
<a href="javascript:void(0)">js link</a><img src="x.png" alt="a diagram"></body></html>"""


class Handler(QuietHandler):
    seen: list[str] = []  # noqa: RUF012 - shared on purpose: requests the server received
    answered: list[str] = []  # noqa: RUF012 - on purpose: /slow's answers, once sent
    release = threading.Event()  # /slow answers once it is set (a minute at most)

    def do_GET(self) -> None:
        Handler.seen.append(self.path)
        path = urlsplit(self.path).path
        port = self.server.server_address[1]
        routes = {
            "/page": (200, PAGE.encode(), "text/html; charset=utf-8"),
            "/big": (200, b"a" * (3 << 20), "text/plain"),
            "/json": (200, b'{"key": "value"}', "application/json"),
            "/image": (200, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "image/png"),
            "/missing": (404, b"no such page", "text/plain"),
            "/broken": (503, b"try later", "text/plain"),
            "/cp1251": (200, "<p>Привет</p>".encode("cp1251"), "text/html; charset=windows-1251"),
        }
        redirects = {
            "/to-private": f"http://127.0.0.2:{port}/page",
            "/to-page": "/page",
            "/loop": "/loop",
        }
        if path in routes:
            self.reply(*routes[path])
        elif path in redirects:
            self.reply(302, b"", "text/plain", Location=redirects[path])
        elif path == "/slow":
            Handler.release.wait(60)
            self.reply(200, b"late", "text/plain")
            Handler.answered.append(self.path)
        elif path == "/long":
            blocks = [f"<p>Filler paragraph {i} " + "lorem ipsum " * 40 + "</p>" for i in range(60)]
            blocks.insert(45, "<p>The zebra configuration flag is documented here.</p>")
            self.reply(200, "".join(blocks).encode(), "text/html")
        else:
            self.reply(404, b"?", "text/plain")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve(Handler) as where:
        yield where


@pytest.fixture
def ctx(server: str, tmp_path: object) -> ToolContext:
    """Only the test server's host:port is exempt from the private-address refusal."""
    return ToolContext(cwd=tmp_path, allowed_hosts=frozenset({server}))


async def fetch(ctx: ToolContext, url: str, **kw: object) -> ToolResult:
    return await web.WEB_FETCH.run({"url": url, **kw}, ctx)


async def test_html_to_markdown(ctx: ToolContext, server: str) -> None:
    result = await fetch(ctx, f"http://{server}/page")
    out = result.output
    assert out.startswith(f"URL: http://{server}/page\nTitle: Test & Page\n[200 · text/html · ")
    for expected in [
        "# Main heading",
        f"Intro with a [relative link](http://{server}/docs/intro) and **bold**, *italic*, "
        "`inline_code()` <tags> 'q'.",
        "## Lists",
        "- apple\n- banana\n  - nested",
        "1. first\n2. second",
        "```python\ndef f(x):\n    return x < 2\n```",
        "> quoted words",
        "| k | v |\n| --- | --- |\n| a | 1 |",
        f"js link![a diagram](http://{server}/x.png)",
    ]:
        assert expected in out, expected
    for dropped in ["script text", "color: red", "Navigation link"]:
        assert dropped not in out
    assert result.display == f"web_fetch {server}/page · 200 · {len(PAGE.encode())} B"


async def test_size_cap(ctx: ToolContext, server: str) -> None:
    result = await fetch(ctx, f"http://{server}/big")
    assert "2,097,152 bytes, cut at the 2 MB cap" in result.output
    assert len(result.output) <= RESULT_CAP
    assert "characters cut" in result.output


async def test_redirects(ctx: ToolContext, server: str) -> None:
    followed = await fetch(ctx, f"http://{server}/to-page")
    assert followed.output.startswith(f"URL: http://{server}/page\n")
    private = await fetch(ctx, f"http://{server}/to-private")
    assert private.is_error
    assert "127.0.0.2" in private.output
    assert "loopback" in private.output
    assert "can_retry: false" in private.output
    loop = await fetch(ctx, f"http://{server}/loop")
    assert loop.is_error
    assert "more than 5 redirects" in loop.output


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "gopher://h/"])
async def test_non_http_schemes_refused(ctx: ToolContext, url: str) -> None:
    result = await fetch(ctx, url)
    assert result.is_error
    assert "only http and https" in result.output


async def test_private_addresses_refused_after_resolution(ctx: ToolContext, server: str) -> None:
    port = server.split(":")[1]
    by_name = await fetch(ctx, f"http://localhost:{port}/page")  # only 127.0.0.1:port is allowed
    assert by_name.is_error
    assert "localhost resolves to" in by_name.output
    closed = ToolContext(cwd=ctx.cwd)
    direct = await fetch(closed, f"http://{server}/page")
    assert direct.is_error
    assert "loopback" in direct.output
    decimal = await fetch(closed, f"http://2130706433:{port}/page")  # 127.0.0.1 in disguise
    assert decimal.is_error
    assert "127.0.0.1" in decimal.output
    opened = ToolContext(cwd=ctx.cwd, allow_private_hosts=True)
    assert not (await fetch(opened, f"http://localhost:{port}/page")).is_error
    metadata = await fetch(opened, "http://169.254.169.254/latest/meta-data/")
    assert metadata.is_error
    assert "metadata" in metadata.output


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("127.0.0.5", "loopback"),
        ("169.254.10.10", "link-local"),
        ("169.254.169.254", "metadata"),
        ("100.64.0.1", "not a public"),
        ("224.0.0.1", "multicast"),
        ("0.0.0.0", "reserved"),
        ("::1", "loopback"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("fd00:ec2::254", "metadata"),
        ("::ffff:127.0.0.1", "loopback"),
        ("8.8.8.8", None),
        ("2606:4700:4700::1111", None),
    ],
)
def test_refusal(address: str, why: str | None) -> None:
    found = fetching.refusal(ipaddress.ip_address(address))
    assert (found is None) if why is None else (found is not None and why in found)


async def test_timeout(ctx: ToolContext, server: str) -> None:
    ctx.web_timeout = 1
    Handler.release.clear()
    try:
        t0 = time.monotonic()
        result = await fetch(ctx, f"http://{server}/slow")
        assert time.monotonic() - t0 < 30  # not the minute the server would take
        assert not Handler.answered  # its answer was never waited for
    finally:
        Handler.release.set()
    assert result.is_error
    assert "timed out" in result.output
    assert "can_retry: true" in result.output


async def test_content_types_and_errors(ctx: ToolContext, server: str) -> None:
    data = await fetch(ctx, f"http://{server}/json")
    assert data.output.endswith('{"key": "value"}')
    image = await fetch(ctx, f"http://{server}/image")
    assert image.is_error
    assert "is binary, not text (image/png" in image.output
    missing = await fetch(ctx, f"http://{server}/missing")
    assert missing.is_error
    assert "HTTP 404" in missing.output
    assert "can_retry: false" in missing.output
    broken = await fetch(ctx, f"http://{server}/broken")
    assert broken.is_error
    assert "HTTP 503" in broken.output
    assert "can_retry: true" in broken.output
    legacy = await fetch(ctx, f"http://{server}/cp1251")
    assert legacy.output.endswith("Привет")


async def test_prompt_keeps_relevant_parts(ctx: ToolContext, server: str) -> None:
    plain = await fetch(ctx, f"http://{server}/long")
    assert "zebra" not in plain.output  # lost in the cut middle of a long page
    focused = await fetch(ctx, f"http://{server}/long", prompt="zebra configuration")
    assert "The zebra configuration flag is documented here." in focused.output
    assert "Filler paragraph 0" in focused.output
    assert "page shortened" in focused.output
    assert len(focused.output) <= RESULT_CAP


def test_markdown_helpers() -> None:
    title, body = htmltext.html_to_markdown("<h3>T</h3><p>a&nbsp;b</p>", "http://h/")
    assert (title, body) == ("", "### T\n\na b")


async def test_settings_open_a_local_host(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from agent.app import build
    from agent.base.events import Recorder
    from agent.config.load import Flags
    from agent.ui.startup import configure

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home" / ".agent").mkdir(parents=True)
    settings = {"webFetch": {"allowedHosts": [server.upper()]}}
    (tmp_path / "home" / ".agent" / "settings.json").write_text(json.dumps(settings))
    env = {"AGENT_BASE_URL": "http://127.0.0.1:9/v1", "AGENT_API_KEY": "k", "AGENT_MODEL": "m"}
    run = build(configure(Flags(), env, tmp_path), Recorder())
    page = await fetch(run.agent.ctx, f"http://{server}/page")
    assert not page.is_error, page.output
    refused = await fetch(ToolContext(cwd=tmp_path), f"http://{server}/page")
    assert 'webFetch": {"allowedHosts"' in refused.output


async def test_a_bad_port_is_a_clear_error(ctx: ToolContext) -> None:
    for url in ("https://example.com:99999/", "http://example.com:abc/"):
        result = await fetch(ctx, url)
        assert result.is_error
        assert f"bad port in URL {url!r}" in result.output
        assert "ValueError" not in result.output
