"""read_file of an image (PNG, JPEG, GIF, WebP): for a model that takes images, the image
itself, sent after the tool results (tool messages carry text only); for one that does not, a
line with its type, size and dimensions. Dimensions come from the file's header (no library);
an image over the limits is scaled down with Pillow (`agent[images]`) or refused with what to
install. Nothing is decoded before its dimensions are checked against MAX_PIXELS (a 640 KB PNG
took 2.2 GB to decode), and a JPEG is decoded at the reduced scale it is sent at. The text
result names the file, so JSON output shows the path, never the data."""

from __future__ import annotations

import io
import struct
import warnings
from pathlib import Path

from agent.base.record import Image, ToolContext, ToolResult
from agent.tools.shared.common import ToolError

TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
         ".webp": "image/webp"}  # fmt: skip
MAX_BYTES = 3_500_000  # of one image sent (base64 adds a third; providers cap 5-20 MB)
MAX_SIDE = 2_000  # pixels: providers scale larger images down anyway
READ_LIMIT = 50 << 20  # a larger file is not read at all
# Pixels decoded at most (4 bytes each, 200 MB): 50 megapixels, a large camera's photo; a JPEG
# counts at the scale it is decoded at (up to 8 times smaller a side)
MAX_PIXELS = 50_000_000
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in _SOF:
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return w, h
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        i += 2 + struct.unpack(">H", data[i + 2 : i + 4])[0]
    return None


def _webp(data: bytes) -> tuple[int, int] | None:
    kind = data[12:16]
    if kind == b"VP8 " and len(data) >= 30:
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if kind == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if kind == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


def dimensions(data: bytes) -> tuple[str, int, int] | None:
    """(kind, width, height) from the header, or None when it is no image of these types."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        return ("PNG", *struct.unpack(">II", data[16:24]))
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return ("GIF", *struct.unpack("<HH", data[6:10]))
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        found = _webp(data)
        return ("WebP", *found) if found else None
    if data[:2] == b"\xff\xd8":
        found = _jpeg(data)
        return ("JPEG", *found) if found else None
    return None


def _fit(size: tuple[int, int], side: int) -> tuple[int, int]:
    w, h = size
    scale = min(1.0, side / max(w, h))
    return max(1, round(w * scale)), max(1, round(h * scale))


def _too_many(w: int, h: int) -> bool:
    return w * h > MAX_PIXELS


def _scaled(data: bytes, desc: str) -> tuple[bytes, str, int, int] | None:
    """The image made small enough to send (Pillow), or None without Pillow; ToolError for one
    that would take more than MAX_PIXELS to decode (checked before any decoding)."""
    try:
        from PIL import Image as Pil  # deferred: the agent[images] extra, ~40 ms
    except ImportError:
        return None
    # Pillow's own bomb check, on the size before a JPEG's reduced decoding: MAX_PIXELS holds
    # below, once the decoding scale is known
    Pil.MAX_IMAGE_PIXELS = MAX_PIXELS * 64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Pil.DecompressionBombWarning)
        try:
            im = Pil.open(io.BytesIO(data))  # reads the header only
        except Pil.DecompressionBombError:
            raise _bomb(desc) from None
    with im:
        im.draft("RGB", (MAX_SIDE, MAX_SIDE))  # a JPEG decodes at 1/2, 1/4 or 1/8 scale
        if _too_many(*im.size):
            raise _bomb(desc)
        im.load()
        side = MAX_SIDE
        while True:  # the full-size image once in memory: each try is made from it, not a copy
            small = im.resize(_fit(im.size, side), reducing_gap=2.0)
            out = io.BytesIO()
            photo = small.mode not in ("RGBA", "LA", "P")
            small.convert("RGB" if photo else "RGBA").save(out, "JPEG" if photo else "PNG")
            if out.tell() <= MAX_BYTES or side < 200:
                return out.getvalue(), "image/jpeg" if photo else "image/png", *small.size
            side = side * 3 // 4


def _bomb(desc: str) -> ToolError:
    return ToolError(
        f"{desc}: more pixels than are decoded here (at most {MAX_PIXELS / 1e6:.0f} megapixels, "
        f"about {MAX_PIXELS * 4 >> 20} MB of memory)",
        can_retry=False,
        hint="scale it down first with bash (e.g. `convert FILE -resize 2000x2000 small.png`), "
        "then read the small copy",
    )


def read_image(path: Path, ctx: ToolContext, name: str) -> ToolResult:
    size = path.stat().st_size
    if size > READ_LIMIT:
        raise ToolError(
            f"{name} is an image of {size >> 20} MB: too large to read", can_retry=False
        )
    data = path.read_bytes()
    found = dimensions(data)
    if found is None:
        raise ToolError(
            f"{name} is not a readable {path.suffix} image (its header says otherwise)",
            can_retry=False,
            hint="inspect it with bash (`file`, `xxd | head`)",
        )
    kind, w, h = found
    desc = f"{name}: {kind} image, {w}×{h}, {max(size // 1024, 1)} KB"
    if not ctx.images:
        return ToolResult(
            f"{desc}. This model does not take images (if it does, set "
            '"tools": {"images": true}); ask the user what it shows.',
            display=f"read_file {name} · {kind} {w}×{h} (not sent: the model takes no images)",
        )
    mime, note = TYPES[path.suffix.lower()], ""
    if size > MAX_BYTES or max(w, h) > MAX_SIDE:
        if kind != "JPEG" and _too_many(w, h):  # the header alone says so: nothing decoded
            raise _bomb(desc)
        scaled = _scaled(data, desc)
        if scaled is None:
            raise ToolError(
                f"{desc}: too large to send (over {MAX_SIDE} px or {MAX_BYTES >> 20} MB)",
                can_retry=False,
                hint="pip install 'agent[images]' to have it scaled down (Pillow)",
            )
        data, mime, w, h = scaled
        note = f", scaled to {w}×{h}"
    return ToolResult(
        f"[{desc}{note}: the image follows the tool results]",
        display=f"read_file {name} · {kind} {w}×{h}",
        image=Image(mime, data, name, w, h),
    )
