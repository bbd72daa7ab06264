"""Random UUIDs as text without the `uuid` module (it loads `platform`: ~5 ms of a start that
only needs a fresh id)."""

from __future__ import annotations

import os


def uuid4() -> str:
    """A random (version 4, RFC 4122 variant) UUID in its usual text form."""
    b = bytearray(os.urandom(16))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
