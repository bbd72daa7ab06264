"""The tags of many files at once: from this process's memory, else the cache, else parsed
(and stored). The caller lists the files; this module reads, parses and remembers them."""

from __future__ import annotations

import json
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent.code.cache import SCHEMA, Row, TagCache
from agent.code.languages import Lang, installed, lang_of, version
from agent.code.tags import MAX_BYTES, FileTags, extract

_MEMO: dict[str, tuple[int, int, FileTags]] = {}  # abs path → (mtime_ns, size, tags)
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


def _stamp(lang: Lang) -> str:
    return f"{SCHEMA}:{lang.name}:{version(lang)}"


def _remember(path: str, mtime: int, size: int, tags: FileTags) -> None:
    with _LOCK:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        _MEMO[path] = (mtime, size, tags)


def _from_store(path: str, mtime: int, size: int, stamp: str, row: Row | None) -> FileTags | None:
    if row is None or row[0] != mtime or row[1] != size or row[2] != stamp:
        return None
    try:
        return FileTags.of(json.loads(row[3]))
    except (ValueError, KeyError, TypeError):
        return None  # an unreadable row: parse again


def _parse(path: str, lang: Lang, needle: bytes) -> FileTags | None:
    """Parse one file (None: unreadable, binary, too large, or without `needle`)."""
    try:
        with open(path, "rb") as f:
            src = f.read(MAX_BYTES + 1)
    except OSError:
        return None
    if len(src) > MAX_BYTES or b"\0" in src[:8192] or (needle and needle not in src):
        return None
    return extract(lang, src)


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
    prefix = str(base).rstrip(os.sep) + os.sep
    wanted: list[tuple[str, str, Lang]] = []
    for rel in rels:
        lang = lang_of(rel)
        if lang is None or not installed(lang):
            index.no_grammar[os.path.splitext(rel)[1].lower()] += 1
        else:
            wanted.append((rel, prefix + rel, lang))
    stored: dict[str, Row] | None = None
    fresh: list[tuple[str, Row]] = []
    for i, (rel, path, lang) in enumerate(wanted):
        if stop is not None and stop():
            index.left = len(wanted) - i
            break
        try:
            st = os.stat(path)
        except OSError:
            continue
        mtime, size = st.st_mtime_ns, st.st_size
        memo = _MEMO.get(path)
        if memo is not None and memo[0] == mtime and memo[1] == size:
            index.files[rel] = memo[2]
            continue
        if stored is None:  # one query for the whole folder, only when memory missed
            stored = cache.load(str(base) if len(wanted) > 1 else path)
        stamp = _stamp(lang)
        tags = _from_store(path, mtime, size, stamp, stored.get(path))
        if tags is None:
            tags = _parse(path, lang, needle)
            if tags is None:
                continue
            index.parsed += 1
            fresh.append((path, (mtime, size, stamp, json.dumps(tags.data()))))
            if len(fresh) >= BATCH:
                cache.store(fresh)
                fresh = []
        _remember(path, mtime, size, tags)
        index.files[rel] = tags
    cache.store(fresh)
    return index
