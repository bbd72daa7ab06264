"""Helpers shared by the built-in tools: path resolution, error guarding (a ToolError, an
argument the tool cannot take), what a cancelled tool had produced."""

from __future__ import annotations

import functools
import gc
import os
from pathlib import Path
from typing import Any

from agent.base.args import ArgError
from agent.base.record import Execute, ToolContext, ToolResult, error


class ToolError(Exception):
    """An expected failure inside a tool; `guard` turns it into an error result."""

    def __init__(self, what: str, *, can_retry: bool = True, hint: str = "") -> None:
        super().__init__(what)
        self.what = what
        self.can_retry = can_retry
        self.hint = hint

    def result(self) -> ToolResult:
        return error(self.what, can_retry=self.can_retry, hint=self.hint)


def keep_partial(exc: BaseException, output: str) -> None:
    """Attach what a cancelled tool had produced to its CancelledError, so the model and the
    terminal still see it. The same exception object keeps propagating (asyncio.timeout and
    TaskGroup look at its exact type, so no subclass)."""
    exc.partial_output = output  # type: ignore[attr-defined]


def take_partial(exc: BaseException) -> str:
    """What a cancelled tool had produced, once: the layers above see the same exception (a
    subagent's cancelled bash must not become its parent's task result)."""
    output: str = getattr(exc, "partial_output", "")
    if output:
        exc.partial_output = ""  # type: ignore[attr-defined]
    return output


def gc_paused(fn: Execute) -> Execute:
    """Run a tool with the cyclic garbage collector paused: a search makes tens of thousands
    of small objects (one per file found), which set off collection after collection over the
    whole heap — a third of a large grep's own time — while none of them can form a cycle."""

    @functools.wraps(fn)
    async def run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        was = gc.isenabled()
        gc.disable()
        try:
            return await fn(args, ctx)
        finally:
            if was:
                gc.enable()

    return run


def guard(fn: Execute) -> Execute:
    """Wrap a tool run so expected failures (ToolError, an argument it cannot take, OSError)
    come back as error values."""

    @functools.wraps(fn)
    async def run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            return await fn(args, ctx)
        except (ToolError, ArgError) as exc:
            return exc.result()
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            return error(f"{exc.strerror or exc}{where}", can_retry=False, kind="system", exc=exc)

    return run


def resolve(ctx: ToolContext, raw: str) -> Path:
    """A model-given path as an absolute path: `~` expanded, relative to the workspace."""
    if not raw.strip():
        raise ToolError("the path is empty", hint="give a file path relative to the workspace")
    if "\0" in raw:
        raise ToolError("the path contains a NUL character", hint="no file name can hold one")
    path = Path(os.path.expanduser(raw))
    if not path.is_absolute():
        path = Path(ctx.cwd) / path
    # normpath, not resolve(): keep symlinks in place so writes go through them deliberately.
    return Path(os.path.normpath(path))


def shown(ctx: ToolContext, path: Path) -> str:
    """How a path is printed back: relative to the workspace when inside it."""
    try:
        return str(path.relative_to(Path(ctx.cwd)))
    except ValueError:
        return str(path)


def did_you_mean(path: Path, ctx: ToolContext) -> str:
    """A cheap hint for a missing path: similar names in its directory, or the missing parent."""
    import difflib

    parent = path.parent
    while not parent.is_dir() and parent != parent.parent:
        parent = parent.parent
    if parent != path.parent:
        return f"directory {path.parent} does not exist (nearest existing: {parent})"
    try:
        names = os.listdir(parent)
    except OSError:
        return ""
    if len(names) > 5000:  # too many to compare cheaply
        return ""
    close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    if not close:
        return f"no similar names in {parent}; use glob to search for the file"
    return "did you mean: " + ", ".join(shown(ctx, parent / name) for name in close)
