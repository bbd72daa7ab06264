"""The repository map of a session (agent.code.repomap): its files are read in the background
from the start, the first user message carries the map (a `<repo-map>` block after the
environment block, so the system prompt stays the same whatever the files hold), and /map
shows it for the conversation as it is.

The map is personalised toward the files the message or the conversation names and toward the
identifiers in the message, and fits `repoMap.tokens` (0: no map)."""

from __future__ import annotations

import asyncio
import contextlib
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
from agent.config import safefile
from agent.config.statedir import project_state, state_home
from agent.git.index import entry_count
from agent.tools.shared.listing import indexable_files

WAIT = 3.0  # seconds /map waits for a cold index before showing what is read
MAX_FILES = 10_000  # files read for the map, the shallowest first
# A run with one message (one-shot) reads no more files than this for a map it could only use
# at once: more are not read in time, and reading them slows the run down
ONE_MESSAGE_FILES = 3_000
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
        self.drawing: asyncio.Task[str] | None = None  # the whole map, for the conversation
        self.delivered = False  # a message carried the map
        self.kept: str | None = None  # the last whole map, still true (None: not looked at)
        self.one_message = False  # a one-shot run: no later message for a late map to join
        # a map of the home directory or / would read everything the user owns
        self.nowhere = root in (Path.home(), Path(root.anchor))

    def warm(self, asked: bool = False) -> None:
        """Start reading the files in the background (needs a running event loop); only
        when the map is on, or `asked` for."""
        if self.nowhere or (self.tokens <= 0 and not asked) or self.task is not None:
            return
        if not asked and self.kept is None:
            self.kept = saved_map(self.root, self.tokens)  # the files are as they were
        if not asked and self.kept:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self.partial = Index()
        self.task = loop.create_task(self._read(self.partial))

    async def _read(self, into: Index) -> Index:
        if self.one_message and (entry_count(str(self.root / ".git" / "index")) or 0) > (
            ONE_MESSAGE_FILES
        ):  # a map it could not use in time: not even the listing (its git index says)
            return into
        # what read_file asks about first (`.env.local.js`) never reaches the map
        rels = _shallow_first(await indexable_files(self.ctx, self.root, tracked=True))
        if self.one_message and len(rels) > ONE_MESSAGE_FILES:
            into.left = len(rels)  # it could not be ready for the message: no work for nothing
            return into
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

    async def block(self, message: str, wait: float) -> str:
        """The `<repo-map>` block for this message: the map drawn for the session's first
        message, when it is ready within `wait` s; else "" and it joins a later message (a
        session that ends first leaves it to the next one: the last whole map is kept for the
        project while its git index is unchanged). "" once a message carried it."""
        if self.delivered or self.tokens <= 0 or self.nowhere:
            return ""
        if self.kept:  # nothing to draw: the files are as they were when it was drawn
            self.delivered = True
            return f"<repo-map>\n{self.kept}\n</repo-map>"
        if self.drawing is None:
            self.drawing = asyncio.ensure_future(self._whole(message))
        try:
            text = await asyncio.wait_for(asyncio.shield(self.drawing), wait)
        except TimeoutError:
            text = saved_map(self.root, self.tokens) if not self.delivered else ""
        except Exception:  # a listing or a grammar that failed: no map, never a failed turn
            text = ""
        if text:
            self.delivered = True
        return f"<repo-map>\n{text}\n</repo-map>" if text else ""

    async def _whole(self, message: str) -> str:
        """The map of every file, steered toward the first message; when it was drawn whole,
        the map steered toward nothing is kept for the next session."""
        self.warm(asked=True)
        if self.task is None:
            return ""
        index = await asyncio.shield(self.task)
        files = index.files
        focus = {rel for rel in files if rel in message}
        names = set(_WORD.findall(message[:200_000]))
        text = await asyncio.to_thread(
            repo_map, files, self.tokens, focus_names=names, focus_files=focus
        )
        if text and not index.left and not self.stopped.is_set():  # kept unsteered
            plain = await asyncio.to_thread(repo_map, files, self.tokens)
            await asyncio.to_thread(save_map, self.root, self.tokens, plain)
        return text

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


def _signature(root: Path) -> str:
    """What the project's files are, cheaply: its git index and HEAD as they are now ("" when
    it is no git repository: no map is kept for it)."""
    git = root / ".git"
    try:
        st = (git / "index").stat()
        head = (git / "HEAD").read_text(encoding="utf-8", errors="replace")[:200]
    except OSError:
        return ""
    return f"{st.st_mtime_ns}:{st.st_size}:{head.strip()}"


def _kept(root: Path) -> Path:
    return project_state(root) / "repo-map.json"


def save_map(root: Path, tokens: int, text: str) -> None:
    """Keep the last whole map of the project for the next session's first message."""
    sig = _signature(root)
    if sig:
        data = json.dumps({"sig": sig, "tokens": tokens, "text": text}).encode()
        with contextlib.suppress(OSError):  # a map not kept is drawn again next time
            safefile.make_dirs(state_home(), _kept(root).parent)
            safefile.write_atomic(state_home(), _kept(root), data, 0o600, sync=False)


def saved_map(root: Path, tokens: int) -> str:
    """The kept map, while the project's git index and HEAD are as they were then."""
    sig = _signature(root)
    try:
        kept = json.loads(_kept(root).read_text(encoding="utf-8")) if sig else {}
    except (OSError, ValueError):
        return ""
    ok = isinstance(kept, dict) and kept.get("sig") == sig and kept.get("tokens") == tokens
    return str(kept.get("text") or "") if ok else ""
