"""HTML made Markdown (agent.tools.web.htmltext over the html-to-markdown library): a
documentation page as a reader needs it, and pages built to hurt finishing with bounded output;
a hostile page also end to end through web_fetch, whose 2 MB cap on the body stays."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from web_server import QuietHandler, serve

from agent.base.record import RESULT_CAP, ToolContext
from agent.tools.web import htmltext
from agent.tools.web import tools as web

BASE = "https://docs.example.org/guide/start/index.html"
DATA_PNG = (  # a 1x1 PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
DOC = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Widgets &mdash;
 Guide</title><style>.x {{ color: red }}</style>
<script>window.tracking = "script text";</script></head>
<body>
<header><div role="navigation"><a href="/">Home</a> <a href="/blog/">Blog link</a></div></header>
<nav class="sidebar"><ul><li><a href="../install/">Sidebar install</a></li></ul></nav>
<main><article>
<h1 id="widgets">Widgets</h1>
<p>Read the <a href="../install/">installation notes</a>, the
<a href="/api/widget.html#Widget.spin">API</a> and <a href="https://example.org/faq">the FAQ</a>.
Call <code>spin()</code> first; see <a href="#options">options</a>.
<a href="javascript:openChat()">Chat with us</a>.</p>
<h2 id="steps">Steps</h2>
<ol>
  <li>Install the package
    <ul><li>with pip<li>or with conda</ul>
  <li>Configure it
</ol>
<h3 id="options">Options</h3>
<table>
  <thead><tr><th>Option</th><th>Default</th><th>Meaning</th></tr></thead>
  <tbody>
    <tr><td><code>speed</code></td><td>1</td><td>Turns per second</td></tr>
    <tr><td><code>color</code><td><em>none</em><td>See <a href="colors.html">colors</a></tr>
  </tbody>
</table>
<pre><code class="language-rust">let w = <a href="/api/struct.Widget.html">Widget</a>::new();
if w.speed() &lt; 2 {{ w.spin(); }}</code></pre>
<pre class="lang-python">def first():
    pass


def second():
    return "two"
</pre>
<p><img src="/img/diagram.png" alt="How widgets spin"><img src="/pixel.gif">
<img src="data:image/png;base64,{DATA_PNG}" alt="Inline logo"></p>
<details><summary>More</summary><p>Folded text.</p></details>
<div role="tabpanel" hidden><p>The conda tab.</p></div>
<iframe src="https://ads.example/"></iframe><noscript>Enable JavaScript</noscript>
<svg><text>svg drawing</text></svg>
</article></main>
</body></html>"""


def test_a_documentation_page() -> None:
    title, body = htmltext.html_to_markdown(DOC, BASE)
    assert title == "Widgets — Guide"
    assert body.startswith("# Widgets\n\nRead the [installation notes]")
    for expected in [
        # links made absolute; one back into this page, or to javascript:, is its text
        "Read the [installation notes](https://docs.example.org/guide/install/), the "
        "[API](https://docs.example.org/api/widget.html#Widget.spin) and "
        "[the FAQ](https://example.org/faq).",
        "Call `spin()` first; see options. Chat with us.",
        "## Steps",
        # the lists nest though their <li> were never closed (an HTML5 parser)
        "1. Install the package\n   - with pip\n   - or with conda\n2. Configure it",
        "### Options",
        "| Option | Default | Meaning |\n| --- | --- | --- |\n"
        "| `speed` | 1 | Turns per second |\n"
        "| `color` | *none* | See [colors](https://docs.example.org/guide/start/colors.html) |",
        # a link inside code stays code; blank lines in code stay
        "```rust\nlet w = Widget::new();\nif w.speed() < 2 { w.spin(); }\n```",
        '```python\ndef first():\n    pass\n\n\ndef second():\n    return "two"\n```',
        "![How widgets spin](https://docs.example.org/img/diagram.png)",
        "Inline logo",  # a data: image: its alt text, not kilobytes of base64
        "Folded text.",
        "The conda tab.",  # an inactive tab is kept: documentation puts code in them
    ]:
        assert expected in body, expected
    for dropped in [
        "script text", "color: red", "Home", "Blog link", "Sidebar install", "pixel.gif",
        DATA_PNG[:20], "ads.example", "Enable JavaScript", "svg drawing", "javascript:",
    ]:  # fmt: skip
        assert dropped not in body, dropped
    assert not [line for line in body.splitlines() if line != line.rstrip()]


def test_small_fragments() -> None:
    assert htmltext.html_to_markdown("", "") == ("", "")
    assert htmltext.html_to_markdown("<title>only</title>", "")[0] == "only"
    odd = '<p><a href="mailto:a@b.example">mail</a> <a href="//cdn.example/x">cdn</a></p>'
    assert htmltext.html_to_markdown(odd, "https://h/")[1] == (
        "[mail](mailto:a@b.example) [cdn](https://cdn.example/x)"
    )


def test_nesting_and_colspan_guards() -> None:
    deep = "<ul><li>a" * 12 + "<blockquote>" * 12 + "q" + "</blockquote>" * 12 + "</ul>" * 12
    defused = htmltext.defuse(deep + '<td colspan="1000"><td COLSPAN = 5000><td colspan=7>')
    assert defused.count("<ul>") + defused.count("<blockquote>") == htmltext.NESTING
    assert defused.count("<div>") == defused.count("</div>") == 24 - htmltext.NESTING
    assert defused.endswith('<td colspan="99"><td COLSPAN = 99><td colspan=7>')
    assert htmltext.defuse("<ul><li>x</ul></ul></ul><ul><li>y</ul>").count("div") == 0


def bounded(html: str, seconds: float = 30) -> str:
    """The Markdown of a hostile page, checked to come in time (the library has no timeout
    to stop it, so the test's own pytest timeout is the backstop)."""
    start = time.monotonic()
    _, body = htmltext.html_to_markdown(html, "https://h.example/p")
    assert time.monotonic() - start < seconds
    return body


def test_deep_nesting_and_unclosed_tags() -> None:
    divs = bounded("<p>top</p>" + "<div>" * 100_000 + "deep" + "</div>" * 100_000 + "<p>end</p>")
    assert divs.startswith("top")  # what lies past the library's depth limit may be lost
    assert len(divs) < 100
    unclosed = bounded("<b><i><a href='x'><code><ul><li><table><tr><td>" * 20_000 + "text")
    assert len(unclosed) < 2_000_000


def test_nested_quotes_and_lists_do_not_multiply_the_page() -> None:
    lines = 100_000
    quotes = bounded("<blockquote>" * 60 + "x<br>" * lines)
    assert max(line.count(">") for line in quotes.splitlines()) == htmltext.NESTING
    assert len(quotes) < (2 * htmltext.NESTING + 2) * lines
    lists = bounded("<ul><li>" * 300 + "x<br>" * lines)
    assert len(lists) < (2 * htmltext.NESTING + 4) * lines


def test_huge_pages_and_attributes() -> None:
    wide = bounded("<table>" + '<tr><td colspan="1000">x</td></tr>' * 20_000 + "</table>")
    assert len(wide) < 20_000 * (4 * htmltext.SPAN + 10)  # not 1,000 cells a row
    long_href = bounded(f'<p><a href="/{"x" * 3_000_000}">t</a><img alt="{"y" * 500_000}" src=i>')
    assert long_href.startswith("[t](https://h.example/xxx")
    paragraph = "<p>Some <b>bold</b> words and a <a href='/l'>link</a>.</p>\n"
    big = bounded("<title>Big</title>" + paragraph * (5_000_000 // len(paragraph)))
    assert big.count("[link](https://h.example/l)") == 5_000_000 // len(paragraph)


class Handler(QuietHandler):
    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path == "/hostile":  # 3 MB: more than web_fetch reads
            body = ("<blockquote>" * 50 + "<p>line</p>" * 300_000).encode()
            self.reply(200, body, "text/html")
        elif path == "/doc":
            self.reply(200, DOC.encode(), "text/html; charset=utf-8")
        else:
            self.reply(404, b"?", "text/plain")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve(Handler) as where:
        yield where


async def test_web_fetch_of_a_page(server: str, tmp_path: object) -> None:
    ctx = ToolContext(cwd=tmp_path, allowed_hosts=frozenset({server}))
    doc = await web.WEB_FETCH.run({"url": f"http://{server}/doc"}, ctx)
    assert doc.output.startswith(f"URL: http://{server}/doc\nTitle: Widgets — Guide\n")
    assert f"[API](http://{server}/api/widget.html#Widget.spin)" in doc.output
    hostile = await web.WEB_FETCH.run({"url": f"http://{server}/hostile"}, ctx)
    assert not hostile.is_error, hostile.output
    assert "2,097,152 bytes, cut at the 2 MB cap" in hostile.output
    assert len(hostile.output) <= RESULT_CAP


def test_the_library_is_imported_only_when_a_page_is_converted() -> None:
    code = (
        "import sys\nfrom agent.tools.builtin import builtin_tools\nbuiltin_tools()\n"
        "import agent.tools.web.tools\nprint('html_to_markdown' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]
