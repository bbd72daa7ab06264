"""Fetching one URL safely for web_fetch.

Only public http(s) addresses are fetched: every hop (redirects are followed by hand) is
resolved first, every resolved address is checked, and the connection goes to the checked
address (pinned, with the original Host header and TLS name) so a second DNS answer cannot swap
in a private one. Settings opt in (`"webFetch": {"allowedHosts": ["host", "host:port"],
"allowPrivateHosts": true}`), reaching the tool as ctx.extra `allowed_hosts` and
`allow_private_hosts` (everything but cloud metadata).
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from agent.tools import ToolContext
from agent.tools.common import ToolError

MAX_BYTES = 2 << 20
TIMEOUT = 30.0  # whole fetch, all hops
MAX_REDIRECTS = 5
USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) agent/1.0"
METADATA = {
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254")
}
IP = ipaddress.IPv4Address | ipaddress.IPv6Address


def httpx_module() -> Any:
    """The HTTP client module: httpx2 (what openai>=3 ships) or httpx (older openai)."""
    try:
        import httpx2

        return httpx2
    except ImportError:
        import httpx

        return httpx


def refusal(ip: IP) -> str | None:
    """Why an address must not be fetched, or None for a public one."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if ip in METADATA:
        return "a cloud metadata address"
    for flag, why in (
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "a link-local address"),
        (ip.is_multicast, "a multicast address"),
        (ip.is_reserved or ip.is_unspecified, "a reserved address"),
        (ip.is_private, "a private address"),
        (not ip.is_global, "not a public address"),
    ):
        if flag:
            return why
    return None


@dataclass
class Hop:
    url: str
    host: str
    port: int
    address: IP


async def check_url(url: str, ctx: ToolContext) -> Hop:
    """Validate scheme and host of one hop and pick the (checked) address to connect to."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise ToolError(f"only http and https URLs can be fetched, not {parts.scheme or url!r}")
    host = (parts.hostname or "").lower()
    if not host:
        raise ToolError(f"no host in URL {url!r}")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as e:  # `:99999`, `:abc`
        raise ToolError(f"bad port in URL {url!r}: {e}", hint="fix the URL") from None
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ToolError(f"cannot resolve {host}: {exc.strerror}", can_retry=True) from None
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    allowed = ctx.extra.get("allowed_hosts") or ()
    named = {host, f"{host}:{port}", f"[{host}]:{port}"}
    for address in addresses:
        why = refusal(address)
        exempt = bool(named & set(allowed)) or (
            ctx.extra.get("allow_private_hosts") is True and address not in METADATA
        )
        if why and not exempt:
            raise ToolError(
                f"refusing to fetch {url}: {host} resolves to {address}, {why}",
                can_retry=False,
                hint="only public http(s) addresses can be fetched; the user can allow this "
                'host with "webFetch": {"allowedHosts": ["host:port"]} in settings',
            )
    return Hop(url, host, port, addresses[0])


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
            return Page(hop.url, response.status_code, "", b"", False, None), urljoin(
                hop.url, response.headers["location"]
            )
        body, truncated = bytearray(), False
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > MAX_BYTES:
                del body[MAX_BYTES:]
                truncated = True
                break
        ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
        page = Page(hop.url, response.status_code, ctype, bytes(body), truncated, None)
        page.charset = response.charset_encoding
        return page, None
    finally:
        await response.aclose()


async def fetch(url: str, ctx: ToolContext) -> Page:
    httpx = httpx_module()
    timeout = float(ctx.extra.get("web_timeout", TIMEOUT))
    headers = {"User-Agent": USER_AGENT, "Accept": "text/html,text/plain;q=0.9,*/*;q=0.5"}
    # trust_env=False: a proxy would resolve names itself and defeat the address checks.
    async with httpx.AsyncClient(
        timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
        headers=headers, follow_redirects=False, trust_env=False,
    ) as client:  # fmt: skip
        for _ in range(MAX_REDIRECTS + 1):
            page, target = await _get(client, await check_url(url, ctx))
            if target is None:
                return page
            url = target
    raise ToolError(f"more than {MAX_REDIRECTS} redirects", can_retry=False)


def decode_body(page: Page) -> str:
    """Body text: the declared charset, a <meta charset>, UTF-8, else a stated guess."""
    from agent.tools.textio import decode_output

    charset = page.charset
    if not charset and "html" in page.content_type:
        meta = re.search(rb"<meta[^>]+charset=[\"']?([\w-]+)", page.body[:4096], re.I)
        charset = meta.group(1).decode("ascii") if meta else None
    if charset:
        try:
            return page.body.decode(charset, errors="replace")
        except LookupError:
            pass
    return decode_output(page.body)[0]
