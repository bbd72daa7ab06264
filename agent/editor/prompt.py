"""An ACP prompt (content blocks) as the loop takes it: the user's text with the files the
editor attached (its buffers, unsaved changes included) and the images pasted into it."""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp.schema import (
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from agent.base.record import Image

EMBED_CAP = 100_000  # characters of one attached buffer
IMAGE_CAP = 20 << 20  # bytes of one pasted image


def path_of(uri: str) -> str:
    """The file path of a `file://` URI (else the URI as it is)."""
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def shown(path: str, cwd: Path) -> str:
    """A path as the model should see it: relative inside the project."""
    try:
        return str(Path(path).resolve().relative_to(cwd.resolve()))
    except (ValueError, OSError):
        return path


def convert(blocks: list[Any], cwd: Path) -> tuple[str, list[Image], list[str]]:
    """(the message text, images, problems to tell the user) of a prompt's blocks."""
    words: list[str] = []
    attached: list[str] = []
    images: list[Image] = []
    problems: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            words.append(block.text)
        elif isinstance(block, ResourceContentBlock):  # a link: the file is read from disk
            path = path_of(block.uri)
            words.append(f"@{shown(path, cwd)}" if " " not in path else f"`{path}`")
        elif isinstance(block, EmbeddedResourceContentBlock):
            attached.append(_embedded(block.resource, cwd))
        elif isinstance(block, ImageContentBlock):
            image = _image(block, len(images) + 1)
            if isinstance(image, str):
                problems.append(image)
            else:
                images.append(image)
        else:
            problems.append(f"a {getattr(block, 'type', 'content')} block was left out")
    text = " ".join(w for w in words if w).strip()
    return "\n\n".join([text, *attached]).strip(), images, problems


def _embedded(resource: TextResourceContents | BlobResourceContents, cwd: Path) -> str:
    label = shown(path_of(resource.uri), cwd)
    if isinstance(resource, TextResourceContents):
        body = resource.text
        if len(body) > EMBED_CAP:
            body = body[:EMBED_CAP] + f"\n[… cut: {len(resource.text):,} characters in all]"
        return f'<file path="{label}">\n{body.rstrip()}\n</file>'
    size = len(resource.blob) * 3 // 4
    kind = resource.mime_type or "binary"
    return f'<file path="{label}">\n[{kind} content, about {size:,} bytes, not shown]\n</file>'


def _image(block: ImageContentBlock, n: int) -> Image | str:
    try:
        data = base64.b64decode(block.data, validate=True)
    except (binascii.Error, ValueError):
        return "a pasted image was not valid base64 and was left out"
    if len(data) > IMAGE_CAP:
        return f"a pasted image of {len(data) >> 20} MB was left out (over {IMAGE_CAP >> 20} MB)"
    name = Path(path_of(block.uri)).name if block.uri else f"pasted image {n}"
    return Image(block.mime_type, data, name)
