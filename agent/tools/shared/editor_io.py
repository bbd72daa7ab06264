"""What an editor hosting the agent (agent.editor, ACP) offers the tools: its file buffers —
read_file sees unsaved changes, write_file and edit_file land in the editor — and its
terminals, where bash runs its foreground commands. Without an editor the tools use the disk
and their own processes."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agent.base.record import ToolContext
from agent.tools.shared.binkinds import BINARY_EXTENSIONS

BUFFER_MAX = 2 << 20  # a larger file is read from disk (an editor buffer of it would be slow)


@dataclass(frozen=True)
class TerminalRun:
    """A command run in an editor's terminal: its exit code (None: timed out and killed), its
    output (stdout and stderr together, as a terminal shows them), whether the editor cut it."""

    code: int | None
    output: str
    truncated: bool
    seconds: float


class EditorIO(Protocol):
    """The editor side; `read` and `write` are called from worker threads (never the loop's)."""

    def read(self, path: Path) -> str | None:
        """The editor's text of `path` (unsaved changes included); None: use the disk."""
        ...

    def write(self, path: Path, text: str) -> bool:
        """Write `text` through the editor (it updates its buffer and saves); False: not done,
        write the disk."""
        ...

    def remember(self, path: Path, text: str) -> None:
        """read_file showed the model this text of `path`."""
        ...

    def changed(self, path: Path, text: str) -> bool:
        """Whether the buffer's `text` differs from what read_file last showed (the user typed
        since): an edit must not overwrite what the model never saw."""
        ...

    async def run(self, argv: list[str], cwd: str, timeout: float) -> TerminalRun | None:
        """Run `argv` in an editor terminal; None when the editor has no terminals."""
        ...


def editor_of(ctx: ToolContext | None) -> EditorIO | None:
    editor = ctx.editor if ctx is not None else None
    return editor if editor is not None and hasattr(editor, "read") else None  # type: ignore[return-value]


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
