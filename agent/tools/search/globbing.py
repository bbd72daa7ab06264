"""glob: file names by wcmatch pattern, gitignore-aware, newest first; ripgrep lists the
files (with a name prefilter when it reads the pattern the same way), Python the fallback."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from agent.base.args import Args, arg
from agent.base.record import Target, Tool, ToolContext, ToolResult, cap
from agent.tools.shared import links, walk
from agent.tools.shared.agentignore import for_search
from agent.tools.shared.common import ToolError, gc_paused, guard, resolve, shown
from agent.tools.shared.listing import list_files

GLOB_CAP = 200
_MAGIC = re.compile(r"[*?\[\]{}()!@+]")
_NARROW = walk.NARROW


def _split_pattern(root: Path, pattern: str) -> tuple[Path, str, str]:
    """(directory to list, pattern below it, prefix to print): literal leading parts of the
    pattern become the listing root, so `src/**/*.py` walks only `src`."""
    pattern = pattern.removeprefix("./")
    absolute = os.path.isabs(pattern)
    if absolute:
        root, pattern = Path("/"), pattern.lstrip("/")
    parts = pattern.split("/")
    k = 0
    while k < len(parts) - 1 and not _MAGIC.search(parts[k]):
        k += 1
    prefix = "/".join(parts[:k])
    base = Path(os.path.normpath(root / prefix)) if prefix else root
    return base, "/".join(parts[k:]), ("/" + prefix if absolute else prefix)


def _name_prefilter(pattern: str) -> str:
    """The pattern's last part when it is a plain file-name glob ripgrep reads the same way."""
    name = pattern.rsplit("/", 1)[-1]
    # Braces (`{1..2}`, `{x}`), extglobs and `:` (ripgrep's type-definition separator, also in
    # `[[:digit:]]`) read differently or not at all as a ripgrep type: no prefilter then.
    return "" if "**" in name or re.search(r"[(|,{}:]", name) else name


def _prefilter_decides(pattern: str, name_glob: str) -> bool:
    """True when ripgrep's name prefilter already is the whole match: `**/NAME` where NAME
    uses only `*` and `?`, which ripgrep and wcmatch read alike (any depth, dotfiles too)."""
    simple = name_glob and not re.search(r"[\[\]{}()!@+\\]", name_glob)
    return bool(simple) and pattern == "**/" + name_glob


class _Stamper:
    """Stats the matching names as ripgrep lists them, in the thread reading its output: the
    stats then overlap ripgrep's walk instead of following it (on a large tree each half is
    about as slow as the other)."""

    def __init__(self, base: Path, keep: Callable[[str], bool] | None) -> None:
        self.prefix = str(base).rstrip(os.sep) + os.sep
        self.keep = keep
        self.found: list[tuple[float, str]] = []  # (-mtime, path)

    def add(self, rels: Iterable[str]) -> None:
        for rel in rels:
            if self.keep is None or self.keep(rel):
                try:
                    self.found.append((-os.stat(self.prefix + rel).st_mtime, rel))
                except OSError:
                    self.found.append((-0.0, rel))

    def newest_first(self) -> list[str]:
        """Newest first, path order among equals."""
        return [rel for _, rel in sorted(self.found)]


async def _newest_first(base: Path, rels: list[str], keep: Callable[[str], bool]) -> list[str]:
    """The names `keep` accepts, newest first (for a listing already in hand)."""
    stamper = _Stamper(base, keep)
    await asyncio.to_thread(stamper.add, rels)
    return stamper.newest_first()


def _matcher(pattern: str, flags: int) -> Callable[[str], bool]:
    """wcmatch's own regexes, called directly: its per-path wrapper doubles the cost."""
    from wcmatch import glob as wc

    inc, exc = wc.translate(pattern, flags=flags)
    includes = [re.compile(p) for p in inc]
    excludes = [re.compile(p) for p in exc]

    def match(path: str) -> bool:
        return any(r.fullmatch(path) for r in includes) and not any(
            r.fullmatch(path) for r in excludes
        )

    return match


class GlobArgs(Args):
    pattern: str = arg(doc="Glob pattern, e.g. **/*.py")
    path: str = arg(".", "Directory to search (default: workspace)")


@gc_paused
@guard
async def _glob(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    from wcmatch import glob as wc

    a = GlobArgs.parse(args)
    raw, root = a.pattern, resolve(ctx, a.path)
    if not root.is_dir():
        raise ToolError(f"not a directory: {root}", hint="path must be a directory to search in")
    base, pattern, prefix = _split_pattern(root, raw)
    # `docs/**` where docs -> ~: nothing of the home is read, not even its ignore files
    await asyncio.to_thread(links.enter, ctx, base, "glob")
    flags = wc.GLOBSTAR | wc.BRACE | wc.DOTGLOB | wc.EXTGLOB | wc.FORCEUNIX
    name_glob = _name_prefilter(pattern)
    # Matching again costs as much as the listing on a large tree: skip it where ripgrep's
    # name prefilter already decided.
    decided = walk.rg_for(ctx) is not None and _prefilter_decides(pattern, name_glob)
    matcher = None if decided else _matcher(pattern, flags)
    stamper = _Stamper(base, matcher)
    hide = await asyncio.to_thread(for_search, ctx.cwd, root, base)
    listed = await list_files(ctx, base, name_glob, stamper.add, hide=hide) if base.is_dir() else []
    matched = stamper.newest_first()
    note = ""
    if not matched and "/" not in pattern and not pattern.startswith("**"):
        # `*.py` only matches at the top; say so and show the recursive matches instead.
        matched = await _newest_first(base, listed, _matcher("**/" + pattern, flags))
        if matched:
            note = f"\n[no match for {raw!r} at the top level; showing matches of '**/{pattern}']"
    label = f'glob "{raw[:60]}"'
    if not matched:
        return ToolResult(
            f"No files match {raw!r} in {shown(ctx, root)}", display=f"{label} · 0 files"
        )
    shown_paths = [os.path.join(prefix, p) if prefix else p for p in matched[:GLOB_CAP]]
    more = len(matched) - len(shown_paths)
    header = f"Found {len(matched)} files (newest first)"
    tail = f"\n[{more} more files not shown; {_NARROW}]" if more else ""
    text = cap(header + note + "\n" + "\n".join(shown_paths) + tail, how_to_see_more=_NARROW)
    return ToolResult(text, display=f"{label} · {len(matched)} files")


GLOB = Tool(
    name="glob",
    description=(
        "Find files by name pattern (e.g. `**/*.py`, `src/**/*.{ts,tsx}`). `*` stays within a "
        "directory, `**` spans directories. Respects .gitignore and .agentignore, skips .git, "
        f"lists newest first, at most {GLOB_CAP} paths. Paths are relative to `path` (default: "
        "workspace)."
    ),
    parameters=GlobArgs.schema(),
    run=_glob,
    read_only=True,
    kind="read",
    target=Target("folder", "path", default=".", pattern_arg="pattern"),
    aliases=("Glob", "LS"),
)
