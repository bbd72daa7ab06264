"""Fetching one URL safely for web_fetch.

Only public http(s) addresses are fetched: every hop (redirects are followed by hand) is
resolved first, every resolved address is checked, and the connection goes to the checked
address (pinned, with the original Host header and TLS name) so a second DNS answer cannot swap
in a private one. Settings opt in (`"webFetch": {"allowedHosts": ["host", "host:port"],
"allowPrivateHosts": true}`), reaching the tool as ToolContext `allowed_hosts` and
`allow_private_hosts` (everything but cloud metadata). An IPv6 address standing for an IPv4
one (mapped, compatible, 6to4, NAT64) is judged as that IPv4 address. Malformed URLs and URLs
with credentials are refused; non-ASCII host names are sent in their IDNA form.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, urljoin, urlsplit, urlunsplit

from agent.base.record import ToolContext
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
_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated IPv4-compatible ::a.b.c.d
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052's well-known prefix
_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOST_NAME = re.compile(rf"(?=.{{1,253}}$)(?:{_LABEL}\.)*{_LABEL}\.?")


def httpx_module() -> Any:
    """The HTTP client module: httpx2 (what openai>=3 ships) or httpx (older openai)."""
    try:
        import httpx2

        return httpx2
    except ImportError:
        import httpx

        return httpx


def embedded_ipv4(ip: IP) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for: IPv4-mapped, IPv4-compatible, 6to4 or NAT64."""
    if isinstance(ip, ipaddress.IPv4Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if (ip in _COMPATIBLE and int(ip) > 1) or ip in _NAT64:  # :: and ::1 are IPv6's own
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def judged(ip: IP) -> list[IP]:
    """The addresses that decide whether `ip` may be fetched: a mapped or NAT64 address is its
    IPv4 address (that is where packets go); compatible and 6to4 ones are judged both ways."""
    v4 = embedded_ipv4(ip)
    if v4 is None:
        return [ip]
    only_v4 = ip in _NAT64 or (isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None)
    return [v4] if only_v4 else [v4, ip]


def is_metadata(ip: IP) -> bool:
    """A cloud metadata address, also written as IPv6: the one thing allowPrivateHosts keeps out."""
    return any(a in METADATA for a in judged(ip))


def refusal(ip: IP) -> str | None:
    """Why an address must not be fetched, or None for a public one."""
    for one in judged(ip):
        why = _refusal(one)
        if why:
            return why if one is ip else f"{why} (IPv4 {one})"
    return None


def _refusal(ip: IP) -> str | None:
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
    httpx = httpx_module()
    timeout = ctx.web_timeout or TIMEOUT
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
