"""ripgrep's `--null` output (`-l`, `-c`, or `-n` with context) read as per-file hits."""

from __future__ import annotations

import os
import re

from agent.tools.shared.walk import FileHits

_COUNT_ROW = re.compile(rb"([^\0]*)\0(\d+)\n")
_CONTENT_ROW = re.compile(rb"([^\0]*)\0(\d+)([:-])([^\n]*)\n?")


def rel_path(raw: bytes) -> str:
    return os.fsdecode(raw).removeprefix("./")


def parse_rg(out: bytes, mode: str) -> list[FileHits]:
    """ripgrep `--null` output (-l, -c or -n with context) as per-file hits."""
    if mode == "files":  # one decode, one replace, one split: per-path work doubles the cost
        names = os.fsdecode(out).replace("\0./", "\0").removeprefix("./").split("\0")
        return [FileHits(p) for p in names if p and p != "\n"]
    if mode == "count":  # `path\0count\n`: a path may hold a newline, never a NUL
        return [FileHits(rel_path(m.group(1)), int(m.group(2))) for m in _COUNT_ROW.finditer(out)]
    by_path: dict[bytes, FileHits] = {}
    hits = FileHits("")
    last = None
    pos, end = 0, len(out)
    while pos < end:
        if out.startswith(b"--\n", pos):  # a group separator between context blocks
            pos += 3
            continue
        # ripgrep's "<path>: WARNING: stopped searching binary file" follows that file's rows
        warned = last is not None and out.startswith(last + b": WARNING: ", pos)
        m = None if warned else _CONTENT_ROW.match(out, pos)
        if m is None:  # a warning (or anything else that is not a row): skip its line
            nl = out.find(b"\n", pos + (len(last) if warned and last else 0))
            pos = end if nl < 0 else nl + 1
            continue
        pos = m.end()
        path = m.group(1)
        if path != last:  # ripgrep writes each file's lines together
            last = path
            hits = by_path.setdefault(path, FileHits(rel_path(path)))
        is_match = m.group(3) == b":"
        text = m.group(4).decode("utf-8", "replace")
        hits.lines.append((int(m.group(2)), is_match, text.removesuffix("\r")))
        hits.count += is_match
    return list(by_path.values())
