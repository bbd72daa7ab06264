"""web_fetch and web_search: public web pages as readable text, search results (websearch).

The address checks and the fetch itself live in fetching.py. Bodies are decoded as the HTML
standard says (BOM, header charset, <meta>, else UTF-8 if valid, else windows-1252 for HTML);
binary bodies are refused with advice to download them instead.
"""

from __future__ import annotations

import asyncio
import codecs
import re
import shlex
from typing import Any
from urllib.parse import urlsplit

from agent.base.args import Args, arg
from agent.base.record import RESULT_CAP, Target, Tool, ToolContext, ToolResult, cap
from agent.base.words import plural
from agent.tools.shared.common import ToolError, guard
from agent.tools.shared.textio import decode_output, utf8_ok
from agent.tools.web.fetching import TIMEOUT, Page, canonical_url, fetch, httpx_module
from agent.tools.web.htmltext import html_to_markdown
from agent.tools.web.search import SearchUnavailable, search

_TEXTUAL = re.compile(r"^text/|json|xml|javascript|yaml|csv|toml")
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")  # the HTML standard's binary bytes
_SIGNATURES = (
    b"%PDF-", b"PK\x03\x04", b"\x1f\x8b", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"\x7fELF",
)  # fmt: skip
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([\w.:-]+)", re.I)


def is_html(page: Page) -> bool:
    """Declared HTML, or a body without a Content-Type that starts like an HTML document."""
    if page.content_type:
        return "html" in page.content_type
    start = page.body.removeprefix(codecs.BOM_UTF8).lstrip()[:100].lower()
    return start.startswith((b"<!doctype html", b"<html"))


def body_encoding(page: Page) -> str | None:
    """The codec the body declares (a BOM, the header's charset, an HTML <meta>), or None."""
    for bom, name in _BOMS:
        if page.body.startswith(bom):
            return name
    declared = _codec(page.charset)
    if declared or not is_html(page):
        return declared
    meta = _META.search(page.body[:4096])  # <meta charset> and <meta http-equiv content=...>
    found = _codec(meta.group(1).decode("ascii")) if meta else None
    # A <meta> readable as ASCII cannot really be UTF-16: the HTML standard reads it as UTF-8.
    return "utf-8" if found and found.startswith("utf-16") else found


def _codec(label: str | None) -> str | None:
    """Python's codec for a charset label; like browsers, Latin-1 and ASCII mean windows-1252."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
    except LookupError:
        return None
    return "cp1252" if name in ("iso8859-1", "latin-1", "ascii") else name


def decode_body(page: Page) -> str:
    """Body text in the declared charset; else UTF-8 if valid, else windows-1252 for HTML (the
    HTML standard's default) and a stated cp1251/GB18030 guess for anything else."""

    encoding = body_encoding(page)
    if encoding is None and utf8_ok(page.body):
        encoding = "utf-8"
    if encoding is None and is_html(page):
        encoding = "cp1252"
    if encoding is None:
        return decode_output(page.body)[0]
    return page.body.decode(encoding, errors="replace").removeprefix("\ufeff")


def is_binary(page: Page, text: str) -> bool:
    """Binary data, not text: a known file signature; NUL bytes in a declared text type; in an
    untyped or other body, control bytes text does not have."""
    if (body_encoding(page) or "").startswith(("utf-16", "utf-32")):
        return False  # their NUL bytes are text
    head = page.body[:4096]
    if head.startswith(_SIGNATURES):
        return True
    if is_html(page) or _TEXTUAL.search(page.content_type):
        return b"\0" in head
    return bool(_CONTROL.search(head))  # (undecodable bytes alone: Latin-1 text, say)


def relevant(text: str, prompt: str, budget: int) -> tuple[str, str]:
    """The blocks of a long page that share the most words with `prompt`, in page order."""
    terms = {w for w in re.findall(r"\w{3,}", prompt.lower())}
    blocks = [b for b in text.split("\n\n") if b.strip()]
    if not terms or len(blocks) < 2:
        return text, ""
    scored = sorted(
        range(1, len(blocks)),
        key=lambda i: -sum(blocks[i].lower().count(t) for t in terms),
    )
    keep, used = {0}, len(blocks[0])
    for i in scored:
        if used + len(blocks[i]) + 2 > budget:
            continue
        keep.add(i)
        used += len(blocks[i]) + 2
    picked = "\n\n".join(blocks[i] for i in sorted(keep))
    return (
        picked,
        f"[page shortened: {len(keep)} of {len(blocks)} blocks, those closest to the prompt]",
    )


def render_page(page: Page, prompt: str, room: int = RESULT_CAP) -> tuple[str, str]:
    """(text for the model, title) of a fetched page: within the result cap, or all of it up
    to `room` when the loop saves long results (a prompt still picks the relevant parts)."""

    text = decode_body(page)
    title = ""
    if is_binary(page, text):
        kind = page.content_type or "no Content-Type"
        size = f"{len(page.body):,} bytes" + (" or more" if page.truncated else "")
        raise ToolError(
            f"{page.url} is binary, not text ({kind}, {size})",
            can_retry=False,
            hint="web_fetch shows web pages and text only; to save the file, download it with "
            f"bash: curl -L -o FILE {shlex.quote(page.url)}",
        )
    if is_html(page):
        title, text = html_to_markdown(text, page.url)
    size = f"{len(page.body):,} bytes" + (", cut at the 2 MB cap" if page.truncated else "")
    header = [f"URL: {page.url}"] + ([f"Title: {title}"] if title else [])
    header.append(f"[{page.status} · {page.content_type or 'unknown type'} · {size}]")
    budget = RESULT_CAP - sum(len(h) + 1 for h in header) - 200
    note = ""
    if prompt and len(text) > budget:
        text, note = relevant(text, prompt, budget)
        room = RESULT_CAP
    body = "\n".join(header) + "\n\n" + text + (f"\n\n{note}" if note else "")
    more = "pass a prompt naming what you need to get the relevant parts"
    return cap(body, room, how_to_see_more=more), title


class FetchArgs(Args):
    url: str
    prompt: str = arg("", "What to look for on the page")


@guard
async def _web_fetch(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    a = FetchArgs.parse(args)
    url, prompt = canonical_url(a.url), a.prompt  # the URL as the permission rules judged it
    httpx = httpx_module()
    limit = ctx.web_timeout or TIMEOUT
    try:
        page = await fetch(url, ctx)  # bounded inside (not the time a prompt waits)
    except httpx.InvalidURL as exc:  # a URL httpx cannot send, e.g. in a redirect
        raise ToolError(f"invalid URL: {url!r} ({exc})", can_retry=False) from None
    except (asyncio.TimeoutError, httpx.TimeoutException):
        raise ToolError(f"fetching {url} timed out after {limit:g} s", can_retry=True) from None
    except httpx.HTTPError as exc:
        why = str(exc) or type(exc).__name__  # an exception is always truthy; its text may be ""
        raise ToolError(f"fetching {url} failed: {why}", can_retry=True) from None
    if page.status >= 400:
        excerpt = decode_body(page)[:300].strip()
        excerpt = "" if is_binary(page, excerpt) else excerpt
        raise ToolError(
            f"HTTP {page.status} for {page.url}" + (f": {excerpt}" if excerpt else ""),
            can_retry=page.status in (408, 425, 429) or page.status >= 500,
        )
    text, _ = await asyncio.to_thread(render_page, page, prompt, ctx.result_room)
    where = urlsplit(page.url)
    short = (where.netloc + where.path)[:70]
    return ToolResult(text, display=f"web_fetch {short} · {page.status} · {_size(len(page.body))}")


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    return f"{n / 1024:.0f} KB" if n < 1 << 20 else f"{n / (1 << 20):.1f} MB"


class SearchArgs(Args):
    query: str
    limit: int = arg(8, "Number of results (default 8, max 20)", minimum=1)


@guard
async def _web_search(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    a = SearchArgs.parse(args)
    query, limit = a.query.strip(), min(a.limit, 20)
    if not query:
        raise ToolError("the query is empty")
    try:
        hits, backend = await search(query, limit, ctx.web_search, ctx.web_timeout or 15.0)
    except SearchUnavailable as e:
        hint = "tell the user how to configure one"
        raise ToolError(str(e), can_retry=False, hint=hint) from None
    label = f'web_search "{query[:50]}"'
    if not hits:
        return ToolResult(f"No results for {query!r}.", display=f"{label} · 0 results")
    lines = []
    for n, hit in enumerate(hits, 1):
        lines += [f"{n}. {hit.title}", f"   {hit.url}"]
        if hit.snippet:
            lines.append(f"   {hit.snippet}")
    text = cap("\n".join(lines), how_to_see_more="use a smaller limit")
    return ToolResult(text, display=f"{label} · {plural(len(hits), 'result')} ({backend})")


WEB_FETCH = Tool(
    name="web_fetch",
    description=(
        "Fetch a public http(s) URL and return it as readable text (HTML converted to "
        "markdown). Private, loopback and link-local addresses are refused. `prompt`: what you "
        "are looking for; on long pages the parts most related to it are kept."
    ),
    parameters=FetchArgs.schema(),
    run=_web_fetch,
    read_only=True,  # for the disk; it sends the URL out, which the target makes ask
    kind="network",
    target=Target("url", "url", canonical=canonical_url),  # each redirect is judged too
    aliases=("WebFetch",),
)

WEB_SEARCH = Tool(
    name="web_search",
    description=(
        "Search the web (the configured search API, or DuckDuckGo and other engines). "
        "Returns titles, URLs and snippets."
    ),
    parameters=SearchArgs.schema(),
    run=_web_search,
    read_only=True,  # for the disk; a network tool sends the query out: it is asked about
    kind="network",
    aliases=("WebSearch",),
    rare=True,  # a coding session seldom searches the web: it waits behind tool_search
)

TOOLS: tuple[Tool, ...] = (WEB_FETCH, WEB_SEARCH)
