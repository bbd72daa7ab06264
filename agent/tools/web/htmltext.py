"""HTML made Markdown for web_fetch by the html-to-markdown library (an HTML5 parser and
converter in Rust): headings, nested lists, tables, code blocks fenced with their language,
links and images made absolute against the page's URL; scripts, styles, navigation and forms
left out.

This module owns what the library is asked for and the little it does not do: the page's
<title>; links that lead nowhere from the text (javascript:, back into this same page, inside
code) written as their text; images without alt text left out; trailing spaces trimmed. And
two guards against pages built to blow up: a cap on how deeply lists, quotes and preformatted
blocks nest (each level indents or fences every line below it: a 2 MB page of 60 nested quotes
over 400,000 lines took the library 2 GB and 8 s), and on colspan (the library repeats a cell
up to 1,000 times: 2 MB of such cells made 120 MB of Markdown).
"""

from __future__ import annotations

import html as entities
import re
from typing import Any, cast

NESTING = 10  # lists, quotes and <pre> nested deeper are written flat; documentation: far less
SPAN = 99  # the widest colspan kept
# Left out with their content, beyond what the library's clean-up already drops (scripts,
# styles, templates, forms, <nav>): an iframe would be a bare link, an object or canvas the
# fallback text a browser does not show, an inline SVG its drawing as a data: image.
DROPPED = ["[role=navigation]", "nav", "svg", "iframe", "object", "canvas"]

_NESTED = re.compile(r"<(/?)(?:ul|ol|blockquote|pre)\b", re.I)
_COLSPAN = re.compile(r"(\scolspan\s*=\s*[\"']?\s*)\d{3,}", re.I)
_TITLE = re.compile(r"<title\b[^<>]{0,500}>([^<]*)", re.I)  # bounded: no quadratic search
_SPACE = re.compile(r"\s+")
_NOT_LINKS = ("javascript:", "vbscript:", "data:")
_CODE = frozenset({"code", "pre", "kbd", "samp"})
_CONTINUE = {"type": "continue"}


class _Visitor:
    """Called back by the library for each link and image. Answers are the dict form of the
    library's VisitResult: it ignores VisitResult objects returned from Python."""

    def __init__(self, page_url: str) -> None:
        self.page = page_url.partition("#")[0]

    def visit_link(self, ctx: Any, href: str, text: str, title: str) -> dict[str, str]:
        target, hash_sign, _ = href.partition("#")  # href is already absolute
        in_code = ctx.parent_tag in _CODE  # a link inside a code block would break it
        same_page = bool(hash_sign) and target in ("", self.page)  # a heading's own anchor
        if in_code or same_page or href.lower().startswith(_NOT_LINKS):
            return {"type": "custom", "output": text}
        return _CONTINUE

    def visit_image(self, ctx: Any, src: str, alt: str, title: str) -> dict[str, str]:
        return _CONTINUE if alt.strip() else {"type": "skip"}  # decoration, or a tracking pixel


def defuse(html: str) -> str:
    """`html` with lists, quotes and <pre> nested more than NESTING deep made <div>s (their
    items stay, at the deepest level kept; counted on the tags as written: close enough for a
    guard), and colspans over SPAN cut to it."""
    depth = 0

    def tag(match: re.Match[str]) -> str:
        nonlocal depth
        if match.group(1):
            depth = max(depth - 1, 0)
            return "</div" if depth >= NESTING else match.group(0)
        depth += 1
        return "<div" if depth > NESTING else match.group(0)

    return _COLSPAN.sub(rf"\g<1>{SPAN}", _NESTED.sub(tag, html))


def page_title(html: str) -> str:
    """The text of the first <title>, entities decoded and whitespace collapsed."""
    found = _TITLE.search(html)
    return _SPACE.sub(" ", entities.unescape(found.group(1))).strip() if found else ""


def html_to_markdown(html: str, base_url: str = "") -> tuple[str, str]:
    """(title, Markdown body) of an HTML document; links resolved against `base_url`."""
    # deferred: ~25 ms (the library's Rust module and its option classes): only web_fetch
    # of an HTML page needs it, and most sessions fetch none
    from html_to_markdown import ConversionOptions, convert

    options = ConversionOptions(
        base_url=base_url or None,
        bullets="-",  # one marker at every level
        compact_tables=True,  # unpadded: one wide cell would pad every row of its column
        extract_metadata=False,  # it would also write the page's <meta> as YAML front matter
        inline_data_media="alt_text_only",  # a data: image is kilobytes of base64
        hidden_content="reachable",  # keeps inactive tabs: documentation puts code in them
        exclude_selectors=DROPPED,
    )
    visitor = cast(Any, _Visitor(base_url))  # the stub wants every visit_* method
    result = convert(defuse(html), options, visitor=visitor)
    # Line by line: a regex for trailing blanks backtracks quadratically over a long run of them
    lines = (line.rstrip(" \t") for line in (result.content or "").split("\n"))
    return page_title(html), "\n".join(lines).strip()
