"""The process that parses files for agent.code.bounded: `python -m agent.code.worker`, one
request per line on stdin (a file's absolute path, its language, the bytes it must hold), one
reply per line on stdout (its tags, nothing, or the limit it hit).

It holds its own limits, set by the kernel: an address space of MEMORY bytes and CPU_SECONDS
of CPU time per file. A hostile file can only end this process (SIGXCPU, or an allocation
that fails), never the agent: tree-sitter runs in C holding the GIL, where no timeout or signal
of the agent's own could reach it.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from typing import Any, BinaryIO

from agent.code.languages import BY_NAME
from agent.code.tags import MAX_BYTES, extract

CPU_SECONDS = 10  # of CPU time one file may take
MEMORY = 512 << 20  # bytes of address space for the whole process
BINARY_SNIFF = 8192  # a NUL byte in the first bytes: not source code


def _limit(kind: int, soft: int) -> None:
    try:
        _, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(kind, (soft, hard))
    except (ValueError, OSError):  # a platform without it (RLIMIT_AS on macOS): the parent's
        pass  # wall clock still bounds the time


def _cpu_used() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def reply(request: dict[str, Any]) -> dict[str, Any]:
    """What one request gets: {"tags": …}, {"refused": why}, or {} (nothing to say: unreadable,
    binary, without the needle, no grammar)."""
    lang = BY_NAME.get(str(request.get("lang")))
    if lang is None:
        return {}
    try:
        with open(str(request["path"]), "rb") as f:
            src = f.read(MAX_BYTES + 1)
    except OSError:
        return {}
    if len(src) > MAX_BYTES:
        return {"refused": f"over {MAX_BYTES // 1_000_000} MB"}
    needle = str(request.get("needle", "")).encode("latin-1")
    if b"\0" in src[:BINARY_SNIFF] or (needle and needle not in src):
        return {}
    # the CPU clock starts again for each file: the limit is the whole seconds used so far
    # plus the budget (whole seconds: a file gets between CPU_SECONDS - 1 and CPU_SECONDS)
    budget = max(1, min(int(request.get("cpu", CPU_SECONDS)), CPU_SECONDS))  # never more
    _limit(resource.RLIMIT_CPU, int(_cpu_used()) + budget)
    try:
        tags = extract(lang, src)
        return {"tags": tags.data()} if tags is not None else {}
    except MemoryError:
        return {"refused": f"over {MEMORY >> 20} MB of memory"}
    except RecursionError:
        return {"refused": "nested too deeply"}


def serve(requests: BinaryIO, out: BinaryIO) -> None:
    for line in requests:
        try:
            answer = reply(json.loads(line))
        except (ValueError, KeyError, TypeError):
            answer = {}
        out.write(json.dumps(answer, separators=(",", ":")).encode() + b"\n")
        out.flush()


def main() -> None:
    _limit(resource.RLIMIT_AS, MEMORY)
    _limit(resource.RLIMIT_CORE, 0)  # SIGXCPU and abort() would leave a core file behind
    out = os.fdopen(os.dup(1), "wb")  # the replies' own copy of stdout
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # anything else printed misses the replies
    serve(sys.stdin.buffer, out)


if __name__ == "__main__":
    main()
