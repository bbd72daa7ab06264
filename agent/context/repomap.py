"""The repository map of a session (agent.code.repomap): its files are read in the background
from the start, the first user message carries the map (a `<repo-map>` block after the
environment block, so the system prompt stays the same whatever the files hold), and /map
shows it for the conversation as it is.

The map is personalised toward the files the message or the conversation names and toward the
identifiers in the message, and fits `repoMap.tokens` (0: no map)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
from collections.abc import Set
from pathlib import Path

from agent.base.messages import Message
from agent.base.record import Tool, ToolContext
from agent.base.words import plural
from agent.code.cache import TagCache
from agent.code.index import Index, tags_for
from agent.code.repomap import repo_map
from agent.tools.shared.listing import indexable_files

WAIT = 3.0  # seconds the first message waits for a cold index before using what is read
MAX_FILES = 10_000  # files read for the map, the shallowest first
_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]{2,}")


def _shallow_first(rels: list[str]) -> list[str]:
    return sorted(rels, key=lambda r: (r.count("/"), r))[:MAX_FILES]


class RepoMapper:
    """Reads the project's code once per session (then from memory and the cache)."""

    def __init__(self, root: Path, tokens: int, ctx: ToolContext) -> None:
        self.root, self.tokens, self.ctx = root, tokens, ctx
        self.stopped = threading.Event()
        self.partial = Index()
        self.task: asyncio.Task[Index] | None = None
        # a map of the home directory or / would read everything the user owns
        self.nowhere = root in (Path.home(), Path(root.anchor))

    def warm(self, asked: bool = False) -> None:
        """Start reading the files in the background (needs a running event loop); only
        when the map is on, or `asked` for."""
        if self.nowhere or (self.tokens <= 0 and not asked) or self.task is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self.partial = Index()
        self.task = loop.create_task(self._read(self.partial))

    async def _read(self, into: Index) -> Index:
        # what read_file asks about first (`.env.local.js`) never reaches the map
        rels = _shallow_first(await indexable_files(self.ctx, self.root))
        stop = self.stopped.is_set
        cache = TagCache.default()
        return await asyncio.to_thread(tags_for, self.root, rels, cache, stop=stop, into=into)

    async def index(self, wait: float = WAIT, fresh: bool = False) -> tuple[Index, bool]:
        """The files' tags, and whether all were read (else what was read in `wait` s)."""
        if fresh and self.task is not None and self.task.done():
            self.task = None
        self.warm(asked=True)
        if self.task is None:
            return Index(), True
        try:
            return await asyncio.wait_for(asyncio.shield(self.task), wait), True
        except TimeoutError:
            return Index(files=dict(self.partial.files)), False
        except Exception:  # a listing or a grammar that failed: no map, never a failed turn
            return Index(), True

    async def render(
        self, message: str, seen: Set[str] = frozenset(), tokens: int = 0, fresh: bool = False
    ) -> str:
        """The map for a conversation about `message` that has the files `seen` (relative to
        the root); "" when there is nothing to map."""
        tokens = tokens or self.tokens
        if tokens <= 0:
            return ""
        index, whole = await self.index(fresh=fresh)
        files = index.files
        focus = {rel for rel in files if rel in message} | (seen & files.keys())
        names = set(_WORD.findall(message[:200_000]))
        text = await asyncio.to_thread(
            repo_map, files, tokens, focus_files=focus, focus_names=names
        )
        if text and not whole:
            text += f"\n(from the first {plural(len(files), 'file')} read; more on the next /map)"
        return text

    async def block(self, message: str) -> str:
        """The `<repo-map>` block for a session's first message ("" for none)."""
        text = await self.render(message)
        return f"<repo-map>\n{text}\n</repo-map>" if text else ""

    def close(self) -> None:
        """Stop reading (the session ends): the worker thread stops after its current file."""
        self.stopped.set()

    def relative(self, paths: Set[str]) -> set[str]:
        """Absolute or workspace-relative paths as the map's (relative to the root)."""
        out = set()
        for p in paths:
            full = os.path.normpath(os.path.join(self.ctx.cwd, p))
            rel = os.path.relpath(full, self.root)
            if not rel.startswith(".."):
                out.add(rel.replace(os.sep, "/"))
        return out


def files_in(messages: list[Message], tools: dict[str, Tool]) -> set[str]:
    """The files the conversation's calls read or edited (as their arguments name them)."""
    out: set[str] = set()
    for m in messages:
        for c in m.get("tool_calls") or []:
            fn = c.get("function", {})
            tool = tools.get(fn.get("name", ""))
            if tool is None or not (tool.reads_a_file or tool.kind == "edit"):
                continue
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except ValueError:
                continue
            if isinstance(args, dict) and tool.target is not None:
                out.update(tool.edited_files(args) or (tool.target.value(args),))
    return out
