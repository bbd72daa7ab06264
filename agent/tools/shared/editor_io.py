"""What an editor hosting the agent (agent.editor, ACP) offers the tools: its file buffers —
read_file sees unsaved changes, write_file and edit_file land in the editor — and its
terminals, where bash runs its foreground commands. Without an editor the tools use the disk
and their own processes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from agent.base.record import ToolContext
from agent.tools.shared.binkinds import BINARY_EXTENSIONS

if TYPE_CHECKING:  # annotations only
    from agent.base.parts import EditorIO

BUFFER_MAX = 2 << 20  # a larger file is read from disk (an editor buffer of it would be slow)


def editor_of(ctx: ToolContext | None) -> EditorIO | None:
    return ctx.editor if ctx is not None else None


async def buffer_text(path: Path, ctx: ToolContext) -> str | None:
    """The editor's buffer of a text file for read_file, or None: read the disk (no editor,
    not a regular file, too big, or a kind read_file treats apart)."""
    editor = editor_of(ctx)
    if editor is None or not await asyncio.to_thread(path.is_file):
        return None
    size = (await asyncio.to_thread(path.stat)).st_size
    if size > BUFFER_MAX or path.suffix.lower().lstrip(".") in BINARY_EXTENSIONS:
        return None
    real = await asyncio.to_thread(path.resolve)
    text = await asyncio.to_thread(editor.read, real)
    if text is not None:
        editor.remember(real, text)
    return text
