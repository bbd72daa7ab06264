"""Fetching one URL safely for web_fetch.

Only public http(s) addresses are fetched: every hop (redirects are followed by hand) is
resolved first, every resolved address is checked, and the connection goes to the checked
address (pinned, with the original Host header and TLS name) so a second DNS answer cannot swap
in a private one. Settings opt in (`"webFetch": {"allowedHosts": ["host", "host:port"],
"allowPrivateHosts": true}`), reaching the tool as ToolContext `allowed_hosts` and
`allow_private_hosts` (everything but cloud metadata). An IPv6 address standing for an IPv4
one (mapped, compatible, 6to4, NAT64) is judged as that IPv4 address. Malformed URLs and URLs
with credentials are refused; non-ASCII host names are sent in their IDNA form.

The permission rules judge every hop too: the gate judged the first URL (in its canonical form,
`canonical_url`: the scheme added, the host as it is connected to), and each redirect target is
judged the same way through ToolContext.judge_target before its name is even resolved, so a
redirect cannot carry a request to a host the rules deny or that nobody approved.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import socket
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, urljoin, urlsplit, urlunsplit

from agent.base.record import ToolContext
from agent.tools.shared.common import ToolError
from agent.tools.web.addresses import IP, is_metadata, refusal

MAX_BYTES = 2 << 20
TIMEOUT = 30.0  # whole fetch, all hops
MAX_REDIRECTS = 5
USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) agent/1.0"
_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOST_NAME = re.compile(rf"(?=.{{1,253}}$)(?:{_LABEL}\.)*{_LABEL}\.?")
_NUMERIC = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}")


def httpx_module() -> Any:
    """The HTTP client module: httpx2 (what openai>=3 ships) or httpx (older openai)."""
    try:
        import httpx2

        return httpx2
    except ImportError:
        import httpx

        return httpx


@dataclass
class Hop:
    url: str
    host: str
    port: int
    address: IP


def parse_url(url: str) -> tuple[SplitResult, str, int]:
    """Split and check one URL: (parts with an ASCII host and no credentials, host, port)."""

    def invalid(why: str, hint: str = "fix the URL") -> ToolError:
        return ToolError(f"invalid URL: {url!r} ({why})", can_retry=False, hint=hint)

    try:
        parts = urlsplit(url)
    except ValueError as exc:  # `http://[::1::2]/`, `http://[1.2.3.4]/`
        raise invalid(str(exc)) from None
    if parts.scheme not in ("http", "https"):
        raise ToolError(f"only http and https URLs can be fetched, not {parts.scheme or url!r}")
    host = (parts.hostname or "").lower()
    if not host:
        raise invalid("no host")
    if "@" in parts.netloc:  # also `https://github.com@evil.example/`: the host is evil.example
        raise invalid(
            f"it has a user name or password before the host {host}",
            hint="web_fetch sends no credentials; remove the `user@` part",
        )
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as e:  # `:99999`, `:abc`
        raise ToolError(f"bad port in URL {url!r}: {e}", hint="fix the URL") from None
    if "[" not in parts.netloc:  # a bracketed IPv6 literal was checked by urlsplit
        try:
            host = _ascii_host(host)
        except UnicodeError as exc:
            raise invalid(f"bad host name {host!r}: {exc}") from None
        if not _HOST_NAME.fullmatch(host):
            raise invalid(f"bad host name {host!r}")
        if _NUMERIC.fullmatch(host):  # 2130706433, 0x7f.1: the resolver reads them as IPv4
            with contextlib.suppress(OSError):
                host = socket.inet_ntoa(socket.inet_aton(host))  # as rules and users write it
        netloc = host if parts.port is None else f"{host}:{parts.port}"
        parts = parts._replace(netloc=netloc)
    return parts, host, port


def _ascii_host(host: str) -> str:
    """A non-ASCII host name in its IDNA (punycode) form, as DNS and the Host header need it."""
    if host.isascii():
        return host
    try:
        import idna  # IDNA 2008 with UTS 46 mapping, as browsers do; httpx depends on it
    except ImportError:
        return host.encode("idna").decode("ascii")
    try:
        return str(idna.encode(host, uts46=True).decode("ascii"))
    except idna.IDNAError as exc:
        raise UnicodeError(str(exc)) from None


def canonical_url(raw: str) -> str:
    """The URL web_fetch fetches for what the model wrote: a bare domain gets `https://`, the
    host its lower-case IDNA form (the one connected to), so that the permission rules judge
    that; a URL the tool would refuse is returned as written (with the scheme added)."""
    url = raw.strip()
    if "://" not in url and not url.startswith(("mailto:", "file:", "data:")):
        url = ("https:" if url.startswith("//") else "https://") + url  # a bare domain
    try:
        parts, _, _ = parse_url(url)
    except ToolError:
        return url
    return urlunsplit(parts)


async def check_url(url: str, ctx: ToolContext) -> Hop:
    """Validate scheme and host of one hop and pick the (checked) address to connect to."""
    parts, host, port = parse_url(url)
    url = urlunsplit(parts)
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ToolError(f"cannot resolve {host}: {exc.strerror}", can_retry=True) from None
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    allowed = ctx.allowed_hosts
    named = {host, f"{host}:{port}", f"[{host}]:{port}"}
    for address in addresses:
        why = refusal(address)
        exempt = bool(named & set(allowed)) or (
            ctx.allow_private_hosts and not is_metadata(address)
        )
        if why and not exempt:
            raise ToolError(
                f"refusing to fetch {url}: {host} resolves to {address}, {why}",
                can_retry=False,
                hint="only public http(s) addresses can be fetched; the user can allow this "
                'host with "webFetch": {"allowedHosts": ["host:port"]} in settings',
            )
    first = addresses[0]
    if isinstance(first, ipaddress.IPv6Address) and first.ipv4_mapped is not None:
        first = first.ipv4_mapped  # connect over IPv4, where the mapped address leads anyway
    return Hop(url, host, port, first)


@dataclass
class Page:
    url: str
    status: int
    content_type: str
    body: bytes
    truncated: bool
    charset: str | None


async def _get(client: Any, hop: Hop) -> tuple[Page, str | None]:
    """One request to the pinned address; returns the page and a redirect target if any."""
    parts = urlsplit(hop.url)
    host = f"[{hop.address}]" if hop.address.version == 6 else str(hop.address)
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    pinned = urlunsplit(parts._replace(netloc=netloc))
    header_host = parts.netloc.rsplit("@", 1)[-1]
    extensions = {"sni_hostname": hop.host} if parts.scheme == "https" else {}
    request = client.build_request(
        "GET", pinned, headers={"Host": header_host}, extensions=extensions
    )
    response = await client.send(request, stream=True)
    try:
        if response.is_redirect and response.headers.get("location"):
            location = response.headers["location"]
            try:
                target = urljoin(hop.url, location)
            except ValueError as exc:  # `Location: http://[::1::2]/`
                raise ToolError(
                    f"invalid URL: {location!r} ({exc}) in the redirect from {hop.url}",
                    can_retry=False,
                ) from None
            return Page(hop.url, response.status_code, "", b"", False, None), target
        return await read_page(hop.url, response), None
    finally:
        await response.aclose()


async def read_page(url: str, response: Any) -> Page:
    """A streamed response's body, at most MAX_BYTES of it, with its type and charset."""
    body, truncated = bytearray(), False
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > MAX_BYTES:
            del body[MAX_BYTES:]
            truncated = True
            break
    ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
    return Page(url, response.status_code, ctype, bytes(body), truncated, response.charset_encoding)


async def fetch(url: str, ctx: ToolContext) -> Page:
    """The page at `url`, following redirects by hand; the network time of all hops together
    is bounded (asyncio.TimeoutError), the time a person takes to answer a prompt is not."""
    httpx = httpx_module()
    timeout = ctx.web_timeout or TIMEOUT
    left = timeout + 5  # the client times each step; this bounds the whole
    headers = {"User-Agent": USER_AGENT, "Accept": "text/html,text/plain;q=0.9,*/*;q=0.5"}
    # trust_env=False: a proxy would resolve names itself and defeat the address checks.
    async with httpx.AsyncClient(
        timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
        headers=headers, follow_redirects=False, trust_env=False,
    ) as client:  # fmt: skip
        previous = ""
        for _ in range(MAX_REDIRECTS + 1):
            if previous:
                await _judge_redirect(ctx, previous, url)
            started = time.monotonic()
            page, target = await asyncio.wait_for(_hop(client, url, ctx), left)
            left = max(left - (time.monotonic() - started), 0.001)
            if target is None:
                return page
            previous, url = url, target
    raise ToolError(f"more than {MAX_REDIRECTS} redirects", can_retry=False)


async def _hop(client: Any, url: str, ctx: ToolContext) -> tuple[Page, str | None]:
    return await _get(client, await check_url(url, ctx))


async def _judge_redirect(ctx: ToolContext, previous: str, url: str) -> None:
    """A redirect target goes through the permission rules as the first URL did (asking when
    they ask), before anything is sent there — its name is not even looked up."""
    parse_url(url)  # a target the tool refuses anyway is refused before anyone is asked
    if ctx.judge_target is None:  # no permission gate ran this call (a direct run, tests)
        return
    refused = await ctx.judge_target(url, f"redirected from {previous}")
    if refused is not None:
        raise ToolError(
            f"refused to follow the redirect from {previous} to {url}: {refused}",
            can_retry=False,
            hint="nothing was sent there; do not fetch that URL another way — tell the user "
            "where the page redirects if it matters",
        )
