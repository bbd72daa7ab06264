"""web_search against a local server that misbehaves: a silent server (the error says it timed
out), one dripping bytes (one deadline for the whole search), a huge page (read up to the cap),
a charset given only in <meta>, and void or stray tags inside titles and snippets."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_server import QuietHandler, serve

from agent.base.record import ToolContext
from agent.tools import fetching, htmltext, web

RESULT = (
    '<div class="result"><a class="result__a" href="https://x.example/{n}">{title}</a>'
    '<a class="result__snippet">{snippet}</a></div>'
)


class Handler(QuietHandler):
    def head(self, ctype: str = "text/html", length: int | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.end_headers()

    def do_GET(self) -> None:
        # The tool stops reading at its cap or deadline: that is the point, not an error.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.route(self.path.split("?")[0])

    def route(self, path: str) -> None:
        if path == "/silent":
            time.sleep(4)
            return
        if path == "/drip":
            self.head()
            for _ in range(40):
                self.wfile.write(b"<p>drip</p>")
                self.wfile.flush()
                time.sleep(0.25)
            return
        if path == "/huge":
            one = RESULT.format(n=1, title="First", snippet="kept").encode()
            filler = b"<p>" + b"x" * 1000 + b"</p>\n"
            count = (8 << 20) // len(filler)
            self.head(length=len(one) + count * len(filler))
            self.wfile.write(one)
            for _ in range(count):
                self.wfile.write(filler)
            return
        if path == "/meta":
            body = '<meta charset="windows-1251">' + RESULT.format(
                n=2, title="Привет мир", snippet="café"
            )
            self.head("text/html")  # no charset in the header
            self.wfile.write(body.encode("cp1251", errors="replace"))
            return
        if path == "/tags":
            body = RESULT.format(
                n=3,
                title="Title <wbr/>B</b></i> tail",
                snippet="first<br/>second <b>x</b> two<br>line",
            )
            self.head()
            self.wfile.write(body.encode())
            return
        self.send_response(404)
        self.end_headers()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve(Handler) as where:
        yield where


def ctx_for(tmp_path: Path, server: str, path: str) -> ToolContext:
    return ToolContext(cwd=tmp_path, web_search_url=f"http://{server}{path}", web_timeout=1.0)


async def test_a_silent_server_times_out_with_a_message(tmp_path: Path, server: str) -> None:
    result = await web.WEB_SEARCH.run({"query": "q"}, ctx_for(tmp_path, server, "/silent"))
    assert result.is_error
    assert "web search timed out after 1 s" in result.output


async def test_dripping_bytes_cannot_stretch_the_deadline(tmp_path: Path, server: str) -> None:
    t0 = time.monotonic()
    result = await web.WEB_SEARCH.run({"query": "q"}, ctx_for(tmp_path, server, "/drip"))
    assert time.monotonic() - t0 < 3  # 40 drips at 0.25 s would take 10 s
    assert "timed out after 1 s" in result.output


async def test_a_huge_page_is_read_up_to_the_cap(
    tmp_path: Path, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[int] = []
    real = fetching.read_page

    async def spy(url: str, response: object) -> fetching.Page:
        page = await real(url, response)
        seen.append(len(page.body))
        return page

    monkeypatch.setattr(web, "read_page", spy)
    ctx = ctx_for(tmp_path, server, "/huge")
    ctx.web_timeout = 10.0
    result = await web.WEB_SEARCH.run({"query": "q"}, ctx)
    assert result.output.startswith("1. First\n   https://x.example/1\n   kept")
    assert seen == [fetching.MAX_BYTES]  # 8 MB sent, 2 MB read


async def test_a_meta_charset_is_honoured(tmp_path: Path, server: str) -> None:
    result = await web.WEB_SEARCH.run({"query": "q"}, ctx_for(tmp_path, server, "/meta"))
    assert result.output.splitlines()[0] == "1. Привет мир"


async def test_void_and_stray_tags_do_not_end_a_field(tmp_path: Path, server: str) -> None:
    result = await web.WEB_SEARCH.run({"query": "q"}, ctx_for(tmp_path, server, "/tags"))
    lines = result.output.splitlines()
    assert lines[0] == "1. Title B tail"
    assert lines[2] == "   first second x two line"
    assert (
        htmltext.parse_duckduckgo(RESULT.format(n=4, title="<span/>T", snippet="s"))[0]["title"]
        == "T"
    )
