"""web_fetch edge cases against a local http.server on 127.0.0.1: IPv4 addresses in IPv6
disguise, charsets without a declaration, binary bodies and malformed URLs."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from web_server import QuietHandler, serve

from agent.base.record import ToolContext, ToolResult
from agent.tools.web import fetching
from agent.tools.web import tools as web

LATIN1 = "<html><body><p>café naïve “quoted”</p></body></html>"
UTF16 = "\ufeff<html><body><p>Grüße</p></body></html>"


class Handler(QuietHandler):
    def do_GET(self) -> None:
        port = self.server.server_address[1]
        routes: dict[str, tuple[int, bytes, str | None]] = {
            "/page": (200, b"<html><title>ok</title><p>fine</p></html>", "text/html"),
            "/latin1": (200, LATIN1.encode("cp1252"), "text/html"),
            "/latin1-header": (200, LATIN1.encode("cp1252"), "text/html; charset=ISO-8859-1"),
            "/latin1-untyped": (200, b"<!DOCTYPE html>" + LATIN1.encode("cp1252"), None),
            "/utf8": (200, "<p>Привет, café</p>".encode(), "text/html"),
            "/utf16-bom": (200, UTF16.encode("utf-16-le"), "text/html"),
            "/meta": (200, '<meta charset="koi8-r"><p>Привет</p>'.encode("koi8_r"), "text/html"),
            "/http-equiv": (
                200,
                '<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">'
                "<p>Привет</p>".encode("cp1251"),
                "text/html",
            ),
            "/blob": (200, b"\x00\x01\x02\x03binary\xff\xfe" * 10, None),
            "/octet": (200, b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 56, "application/octet-stream"),
            "/octet-text": (200, b"plain words", "application/octet-stream"),
            "/untyped-text": (200, b"just text", None),
            "/untyped-latin1": (200, "café résumé naïve".encode("cp1252"), None),
            "/nul-text": (200, b"text\x00with a NUL", "text/plain"),
            "/pdf": (200, b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\nendobj\n", "application/pdf"),
            "/missing-blob": (404, b"\x00\x01\x02gone", "application/octet-stream"),
        }
        redirects = {
            "/to-mapped-metadata": "http://[::ffff:169.254.169.254]/latest/meta-data/",
            "/to-mapped-loopback": f"http://[::ffff:127.0.0.2]:{port}/page",
            "/to-bad": "http://[::1::2]/",
        }
        path = urlsplit(self.path).path
        if path in routes:
            self.reply(*routes[path])
        elif path in redirects:
            self.reply(302, b"", "text/plain", Location=redirects[path])
        else:
            self.reply(404, b"?", "text/plain")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve(Handler) as where:
        yield where


@pytest.fixture
def ctx(server: str, tmp_path: Path) -> ToolContext:
    """Only the test server's host:port is exempt from the private-address refusal."""
    return ToolContext(cwd=tmp_path, allowed_hosts=frozenset({server}), web_timeout=3)


@pytest.fixture
def opened(tmp_path: Path) -> ToolContext:
    """allowPrivateHosts: everything but cloud metadata."""
    return ToolContext(cwd=tmp_path, allow_private_hosts=True, web_timeout=3)


async def fetch(ctx: ToolContext, url: str) -> ToolResult:
    return await web.WEB_FETCH.run({"url": url}, ctx)


# --- IPv4 addresses written as IPv6 ---------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("::ffff:169.254.169.254", "metadata"),
        ("::ffff:10.0.0.1", "private"),
        ("::ffff:169.254.1.1", "link-local"),
        ("::169.254.169.254", "metadata"),  # IPv4-compatible
        ("::127.0.0.1", "loopback"),
        ("2002:a9fe:a9fe::", "metadata"),  # 6to4
        ("2002:7f00:1::1", "loopback"),
        ("2002:c0a8:101::", "private"),
        ("64:ff9b::a9fe:a9fe", "metadata"),  # NAT64
        ("64:ff9b::7f00:1", "loopback"),
        ("64:ff9b::a00:1", "private"),
        ("::", "reserved"),
        ("::1", "loopback"),
        ("::ffff:8.8.8.8", None),
        ("64:ff9b::808:808", None),  # reaches 8.8.8.8 through a NAT64 gateway
        # (a public 6to4 address like 2002:808:808::1 is left out: Python's own table calls
        # all of 2002::/16 private in some patch releases, so its verdict varies by version)
    ],
)
def test_embedded_ipv4_judged_as_ipv4(address: str, why: str | None) -> None:
    ip = ipaddress.ip_address(address)
    found = fetching.refusal(ip)
    assert (found is None) if why is None else (found is not None and why in found), found
    assert fetching.is_metadata(ip) == (why == "metadata")


@pytest.mark.parametrize(
    "host",
    ["::ffff:169.254.169.254", "::169.254.169.254", "2002:a9fe:a9fe::", "64:ff9b::a9fe:a9fe"],
)
async def test_metadata_in_ipv6_form_refused_even_when_private_hosts_are_allowed(
    opened: ToolContext, host: str
) -> None:
    result = await fetch(opened, f"http://[{host}]/latest/meta-data/")
    assert result.is_error
    assert "metadata" in result.output
    assert "can_retry: false" in result.output


async def test_mapped_addresses_on_every_hop(
    ctx: ToolContext, opened: ToolContext, server: str
) -> None:
    port = server.split(":")[1]
    mapped = await fetch(opened, f"http://[::ffff:127.0.0.1]:{port}/page")
    assert not mapped.is_error, mapped.output  # allowed, and connected over IPv4
    assert "fine" in mapped.output
    closed = ToolContext(cwd=ctx.cwd)
    for url in (f"http://[::ffff:127.0.0.1]:{port}/page", f"http://[64:ff9b::7f00:1]:{port}/"):
        refused = await fetch(closed, url)
        assert refused.is_error
        assert "loopback" in refused.output
    hop = await fetch(opened, f"http://{server}/to-mapped-metadata")
    assert hop.is_error
    assert "metadata" in hop.output
    hop = await fetch(ctx, f"http://{server}/to-mapped-loopback")
    assert hop.is_error
    assert "loopback" in hop.output


async def test_settings_exemption_keeps_mapped_metadata_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.app import build
    from agent.base.events import Recorder
    from agent.config.load import Flags
    from agent.ui.startup import configure

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home" / ".agent").mkdir(parents=True)
    settings = {"webFetch": {"allowPrivateHosts": True}}
    (tmp_path / "home" / ".agent" / "settings.json").write_text(json.dumps(settings))
    env = {"AGENT_BASE_URL": "http://127.0.0.1:9/v1", "AGENT_API_KEY": "k", "AGENT_MODEL": "m"}
    run = build(configure(Flags(), env, tmp_path), Recorder())
    run.agent.ctx.web_timeout = 3
    result = await fetch(run.agent.ctx, "http://[::ffff:169.254.169.254]/")
    assert result.is_error
    assert "metadata" in result.output


# --- charsets -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/latin1", "café naïve “quoted”"),  # no charset: windows-1252, the HTML default
        ("/latin1-header", "café naïve “quoted”"),  # ISO-8859-1 means windows-1252
        ("/latin1-untyped", "café naïve “quoted”"),
        ("/utf8", "Привет, café"),  # no charset but valid UTF-8
        ("/utf16-bom", "Grüße"),
        ("/meta", "Привет"),
        ("/http-equiv", "Привет"),
    ],
)
async def test_charsets(ctx: ToolContext, server: str, path: str, expected: str) -> None:
    result = await fetch(ctx, f"http://{server}{path}")
    assert not result.is_error, result.output
    assert result.output.endswith(expected), result.output


# --- binary bodies --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/blob", "no Content-Type, 120 bytes"),
        ("/octet", "application/octet-stream, 64 bytes"),
        ("/nul-text", "text/plain, 15 bytes"),
        ("/pdf", "application/pdf, "),
    ],
)
async def test_binary_refused(ctx: ToolContext, server: str, path: str, kind: str) -> None:
    result = await fetch(ctx, f"http://{server}{path}")
    assert result.is_error
    assert f"http://{server}{path} is binary, not text ({kind}" in result.output
    assert f"curl -L -o FILE http://{server}{path}" in result.output
    assert "\0" not in result.output


async def test_text_without_a_useful_type_is_shown(ctx: ToolContext, server: str) -> None:
    for path, text in (
        ("/octet-text", "plain words"),
        ("/untyped-text", "just text"),
        ("/untyped-latin1", "café résumé naïve"),  # not UTF-8, still text
    ):
        result = await fetch(ctx, f"http://{server}{path}")
        assert not result.is_error, result.output
        assert result.output.endswith(text)


async def test_binary_error_page_has_no_excerpt(ctx: ToolContext, server: str) -> None:
    result = await fetch(ctx, f"http://{server}/missing-blob")
    assert result.is_error
    assert f"HTTP 404 for http://{server}/missing-blob" in result.output
    assert "\0" not in result.output


# --- malformed URLs -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://[::1::2]/", "does not appear to be an IPv4 or IPv6 address"),
        ("http://[1.2.3.4]/", "IPv4 address cannot be in brackets"),
        ("http://", "no host"),
        ("http:///path", "no host"),
        ("http://:80/", "no host"),
        ("http://exa mple.com/", "bad host name 'exa mple.com'"),
        ("http://a..b/", "bad host name"),
        ("http://-a.example/", "bad host name"),
        ("http://user:secret@127.0.0.1/", "user name or password"),
        ("https://github.com@127.0.0.1/", "before the host 127.0.0.1"),
    ],
)
async def test_malformed_urls(ctx: ToolContext, url: str, why: str) -> None:
    result = await fetch(ctx, url)
    assert result.is_error
    assert f"invalid URL: {url!r}" in result.output
    assert why in result.output
    assert "can_retry: false" in result.output


async def test_malformed_redirect_and_credentials_on_the_test_server(
    ctx: ToolContext, server: str
) -> None:
    bad = await fetch(ctx, f"http://{server}/to-bad")
    assert bad.is_error
    assert "invalid URL: 'http://[::1::2]/'" in bad.output
    creds = await fetch(ctx, f"http://user:pw@{server}/page")
    assert creds.is_error
    assert "user name or password" in creds.output
    scheme_relative = await fetch(ctx, f"//{server}/page")  # gets https: and fails TLS, cleanly
    assert scheme_relative.output.startswith(("URL: https://", "Error: fetching https://"))


def test_non_ascii_hosts_become_idna() -> None:
    parts, host, port = fetching.parse_url("http://Bücher.example:8080/straße?q=1")
    assert (host, port) == ("xn--bcher-kva.example", 8080)
    assert parts.geturl() == "http://xn--bcher-kva.example:8080/straße?q=1"
    parts, host, _ = fetching.parse_url("https://[::FFFF:127.0.0.1]/")
    assert host == "::ffff:127.0.0.1"
    assert parts.geturl() == "https://[::FFFF:127.0.0.1]/"
