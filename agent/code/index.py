"""The tags of many files at once: from this process's memory, else the cache, else parsed
(and stored). The caller lists the files; this module reads, parses and remembers them.

Parsing is bounded (agent.code.bounded): a file over MAX_BYTES, or one that takes more time or
memory than the budget, is left out and named with the limit it hit — remembered like tags,
so that it is not parsed again until it changes."""

from __future__ import annotations

import json
import os
import stat
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent.base.words import plural
from agent.code.bounded import Parsed, Worker, borrow, give_back
from agent.code.cache import SCHEMA, Row, TagCache
from agent.code.languages import Lang, installed, lang_of, version
from agent.code.tags import MAX_BYTES, FileTags

# abs path → (mtime_ns, size, its tags or the limit it hit)
_MEMO: dict[str, tuple[int, int, FileTags | str]] = {}
_MEMO_MAX = 50_000
_LOCK = threading.Lock()
BATCH = 200  # parsed files stored per transaction


@dataclass
class Index:
    """What was found: tags per file (relative path), the files nothing could read by type."""

    files: dict[str, FileTags] = field(default_factory=dict)
    no_grammar: Counter[str] = field(default_factory=Counter)  # extension → files
    left: int = 0  # supported files not read: stopped (a deadline, the session ending)
    parsed: int = 0  # of `files`, made now (the others came from memory or the cache)
    refused: dict[str, str] = field(default_factory=dict)  # relative path → the limit it hit

    def refused_note(self, where: str = ".") -> str:
        """One line naming the files left out and the limit each hit ("" for none); paths
        below `where` as the workspace shows them."""
        if not self.refused:
            return ""
        items = sorted(self.refused.items())
        named = ", ".join(
            f"{rel if where == '.' else where + '/' + rel} ({why})" for rel, why in items[:5]
        )
        more = f" and {len(items) - 5} more" if len(items) > 5 else ""
        return f"{plural(len(items), 'file')} left out, over a parsing limit: {named}{more}"


def _stamp(lang: Lang) -> str:
    return f"{SCHEMA}:{lang.name}:{version(lang)}"


def _remember(path: str, mtime: int, size: int, tags: FileTags | str) -> None:
    with _LOCK:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        _MEMO[path] = (mtime, size, tags)


def _from_store(
    path: str, mtime: int, size: int, stamp: str, row: Row | None
) -> FileTags | str | None:
    """The stored tags, or the limit the file hit when it was parsed (None: parse it)."""
    if row is None or row[0] != mtime or row[1] != size or row[2] != stamp:
        return None
    try:
        data = json.loads(row[3])
        return str(data["refused"]) if "refused" in data else FileTags.of(data)
    except (ValueError, KeyError, TypeError):
        return None  # an unreadable row: parse again


class _Parser:
    """The files a call parses, one process borrowed for them all (agent.code.bounded)."""

    def __init__(self, needle: bytes, stop: Callable[[], bool] | None) -> None:
        self.needle, self.stop = needle, stop
        self.worker: Worker | None = None

    def parse(self, path: str, lang: Lang, size: int) -> Parsed:
        if size > MAX_BYTES:  # generated or minified: not worth a process
            return Parsed(refused=f"over {MAX_BYTES // 1_000_000} MB")
        if self.worker is None:
            self.worker = borrow()
        return self.worker.parse(path, lang, self.needle, self.stop)

    def done(self) -> None:
        if self.worker is not None:
            give_back(self.worker)


def tags_for(
    base: Path,
    rels: Iterable[str],
    cache: TagCache,
    *,
    stop: Callable[[], bool] | None = None,
    needle: bytes = b"",
    into: Index | None = None,
) -> Index:
    """Tags of the files `rels` (relative to `base`, a folder or the file's own folder).

    `stop` is asked between files: when it says so, the rest are counted in `left`. `needle`
    skips files without those bytes when they would have to be parsed (a symbol lookup).
    `into` is filled as files are read, for a caller that may use it before the end."""
    index = into if into is not None else Index()
    root = os.path.abspath(base)  # the parsing process is elsewhere: absolute paths only
    prefix = root.rstrip(os.sep) + os.sep
    wanted: list[tuple[str, str, Lang]] = []
    for rel in rels:
        lang = lang_of(rel)
        if lang is None or not installed(lang):
            index.no_grammar[os.path.splitext(rel)[1].lower()] += 1
        else:
            wanted.append((rel, prefix + rel, lang))
    parser = _Parser(needle, stop)
    try:
        _read(index, wanted, root, cache, parser)
    finally:
        parser.done()
    return index


def _read(
    index: Index, wanted: list[tuple[str, str, Lang]], root: str, cache: TagCache, parser: _Parser
) -> None:
    stored: dict[str, Row] | None = None
    fresh: list[tuple[str, Row]] = []
    for i, (rel, path, lang) in enumerate(wanted):
        if parser.stop is not None and parser.stop():
            index.left = len(wanted) - i
            break
        try:
            st = os.lstat(path)
        except OSError:
            continue
        # a FIFO would block its reader for good; a link may lead anywhere (as ripgrep, which
        # lists none, a listing from git's index must not read through one)
        if not stat.S_ISREG(st.st_mode):
            continue
        mtime, size = st.st_mtime_ns, st.st_size
        memo = _MEMO.get(path)
        if memo is not None and memo[0] == mtime and memo[1] == size:
            _found(index, rel, memo[2])
            continue
        if stored is None:  # one query for the whole folder, only when memory missed
            stored = cache.load(root if len(wanted) > 1 else path)
        stamp = _stamp(lang)
        tags = _from_store(path, mtime, size, stamp, stored.get(path))
        if tags is None:
            parsed = parser.parse(path, lang, size)
            if parsed.stopped:
                index.left = len(wanted) - i
                break
            tags = parsed.tags or parsed.refused
            if not tags:
                continue
            if isinstance(tags, FileTags):
                index.parsed += 1
            if parsed.lasting:
                data = tags.data() if isinstance(tags, FileTags) else {"refused": tags}
                fresh.append((path, (mtime, size, stamp, json.dumps(data))))
            if len(fresh) >= BATCH:
                cache.store(fresh)
                fresh = []
        _remember(path, mtime, size, tags)
        _found(index, rel, tags)
    cache.store(fresh)


def _found(index: Index, rel: str, tags: FileTags | str) -> None:
    if isinstance(tags, FileTags):
        index.files[rel] = tags
    else:
        index.refused[rel] = tags
