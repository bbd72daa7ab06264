"""What the permission gate judged for the call running in this task: every path its verdict
was reached on (as the tools name it, and as the kernel resolved it then) and the workspace's
directories.

A file tool decides where it writes a moment after the verdict; a link swapped in between (a
background command flipping a folder into a link to `~`) would send the write somewhere no one
judged. The tools check their real target against these paths, and walk to it from the
workspace directory that holds it (agent.tools.shared.atomic). A ContextVar, like CALL_ID: the gate
sets it around the rest of the call's pipeline, in that call's own task.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class Judged:
    paths: frozenset[str]  # lexical and real paths the verdict was reached on
    dirs: tuple[str, ...]  # the workspace's directories (real paths): where walks start


JUDGED: ContextVar[Judged | None] = ContextVar("agent_judged", default=None)


@contextlib.contextmanager
def judging(paths: tuple[str, ...], dirs: tuple[str, ...]) -> Iterator[None]:
    """Within: the running call was judged on `paths` (none: nothing to hold a write to)."""
    token = JUDGED.set(Judged(frozenset(paths), dirs) if paths else None)
    try:
        yield
    finally:
        JUDGED.reset(token)
