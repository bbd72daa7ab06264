"""Which addresses web_fetch may reach: public ones. Loopback, private, link-local, multicast,
reserved and cloud metadata addresses are refused, also when an IPv6 address stands for an
IPv4 one (mapped, compatible, 6to4, NAT64): that one is judged. The fetch itself, and where
settings open private hosts, is agent.tools.web.fetching."""

from __future__ import annotations

import ipaddress

METADATA = {
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254")
}
IP = ipaddress.IPv4Address | ipaddress.IPv6Address
_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated IPv4-compatible ::a.b.c.d
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052's well-known prefix


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
