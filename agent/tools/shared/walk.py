"""Which files a search sees: the ripgrep binary and its flags, and a pure-Python walker that
applies the same rules (gitignore files, .git/info/exclude, `-g` overrides, no symlinks).

Both backends search hidden files but never `.git`, and honour what ripgrep honours by default:
`.gitignore`, `.git/info/exclude`, git's global excludes file (core.excludesFile), `.ignore`
and `.rgignore` (highest precedence, and like `.ignore` not stopped at a repository root).
Inside a git repository the ignore files from the repository root down apply; outside one, only
the ignore files at and below the search root.
"""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agent.base.record import ToolContext
from agent.tools.shared.common import ToolError
from agent.tools.shared.gitglob import IgnoreRules

VCS_MARKERS = (".git", ".jj")  # a directory holding either is a repository root for ripgrep
ALWAYS_SKIP = "!.git"
RG_OUTPUT_CAP = 32 << 20  # stop reading ripgrep beyond this (a pattern matching everything)
RG_TIMEOUT = 120.0
NARROW = "narrow the pattern, or pass path/glob to search fewer files"


@functools.lru_cache(maxsize=1)
@dataclass(slots=True)  # tens of thousands per search: slots halve the cost of making them
class FileHits:
    """What one file contributed: matching-line count, and the shown lines in order."""

    path: str  # relative to the search root, `/`-separated
    count: int = 0
    lines: list[tuple[int, bool, str]] = field(default_factory=list)  # (number, is_match, text)


def find_rg() -> str | None:
    """The ripgrep binary: the one installed with this package first, then any on PATH."""
    name = "rg.exe" if os.name == "nt" else "rg"
    candidates = [Path(sys.executable).parent / name, Path(sysconfig.get_path("scripts")) / name]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("rg")


def rg_for(ctx: ToolContext) -> str | None:
    """The ripgrep binary to use, or None for the Python fallback (which ctx.search_backend
    can force)."""
    return None if ctx.search_backend == "python" else find_rg()


def in_repository(root: Path) -> bool:
    return any(_has_vcs(str(d)) for d in (root, *root.parents))


def _has_vcs(directory: str) -> bool:
    return any(os.path.exists(os.path.join(directory, m)) for m in VCS_MARKERS)


def rg_base_args(root: Path, globs: list[str]) -> list[str]:
    """ripgrep flags that define the searched file set (kept equal to `Walker`)."""
    args = ["--no-config", "--hidden", "--color=never"]
    if not in_repository(root):
        args += ["--no-require-git", "--no-ignore-parent"]
    for glob in [*globs, ALWAYS_SKIP]:  # `!.git` last: the last matching override wins
        args += ["--glob", glob]
    return args


@dataclass(frozen=True)
class Level:
    """The ignore rules one directory contributes."""

    base: str  # absolute directory, no trailing slash
    gitignore: IgnoreRules | None
    exclude: IgnoreRules | None
    has_git: bool
    dot: IgnoreRules | None = None  # .ignore
    custom: IgnoreRules | None = None  # .rgignore


def _gitconfig_excludes(text: str) -> str | None:
    """ripgrep's reading of core.excludesFile: any `excludesfile = …` line."""
    for line in text.splitlines():
        key, eq, value = line.strip().partition("=")
        if eq and key.strip().lower() == "excludesfile" and value.strip().strip('"'):
            return os.path.expanduser(value.strip().strip('"'))
    return None


def global_excludes(home: str, xdg: str) -> IgnoreRules | None:
    """git's global excludes file, found the way ripgrep finds it."""
    config_dir = os.path.join(xdg, "git") if xdg else os.path.join(home, ".config", "git")
    for config in (os.path.join(home, ".gitconfig"), os.path.join(config_dir, "config")):
        try:
            with open(config, encoding="utf-8", errors="replace") as f:
                found = _gitconfig_excludes(f.read())
        except OSError:
            continue
        if found:
            return IgnoreRules.from_file(found)
    return IgnoreRules.from_file(os.path.join(config_dir, "ignore"))


class Walker:
    """Lists the files ripgrep would search under `root` with the flags of `rg_base_args`."""

    def __init__(
        self, root: Path, globs: list[str], prune: Callable[[str, bool], bool] | None = None
    ) -> None:
        self.root = str(root.resolve())
        self.prune = prune  # (rel, is_dir) -> skip it too: the agent's ignore files (agentignore)
        self.cut = len(self.root.rstrip(os.sep)) + 1  # strips "root/" off an entry path
        self.require_git = in_repository(root)
        self.overrides = IgnoreRules([*globs, ALWAYS_SKIP])
        # Override globs read like gitignore lines turned around: `*.py` includes, `!x` excludes.
        self.includes = len(self.overrides.rules) - self.overrides.whitelists
        self.parents: tuple[Level, ...] = ()
        self.global_rules = global_excludes(
            os.path.expanduser("~"), os.environ.get("XDG_CONFIG_HOME", "")
        )
        if self.require_git:  # the ignore files of directories above the root apply too
            ancestors = list(Path(self.root).parents)[::-1]
            self.parents = tuple(self._level(str(d)) for d in ancestors)

    def _level(self, directory: str) -> Level:
        git = os.path.join(directory, ".git")
        exclude = os.path.join(git, "info", "exclude")
        return Level(
            base=directory.rstrip("/") or "",
            gitignore=IgnoreRules.from_file(os.path.join(directory, ".gitignore")),
            exclude=IgnoreRules.from_file(exclude) if os.path.isdir(git) else None,
            has_git=self.require_git and _has_vcs(directory),
            dot=IgnoreRules.from_file(os.path.join(directory, ".ignore")),
            custom=IgnoreRules.from_file(os.path.join(directory, ".rgignore")),
        )

    def _ignored(self, levels: tuple[Level, ...], path: str, is_dir: bool) -> bool:
        """ripgrep's precedence: overrides; then the nearest .rgignore, .ignore, .gitignore,
        .git/info/exclude and the global excludes, in that order (the first that decides)."""
        rel = path[self.cut :]
        found = self.overrides.match(rel, is_dir)
        if found is not None:
            return not found  # a plain -g glob re-includes; a `!glob` excludes
        if self.includes and not is_dir:
            return True  # with include globs, files matching none of them are skipped
        any_git = not self.require_git or any(level.has_git for level in levels)
        custom = dot = gitignore = exclude = None
        saw_git = False
        for level in reversed(levels):
            sub = path[len(level.base) + 1 :]
            if custom is None and level.custom:
                custom = level.custom.match(sub, is_dir)
            if dot is None and level.dot:
                dot = level.dot.match(sub, is_dir)
            if any_git and not saw_git:  # git's rules above a repository root stop there
                if gitignore is None and level.gitignore:
                    gitignore = level.gitignore.match(sub, is_dir)
                if exclude is None and level.exclude:
                    exclude = level.exclude.match(sub, is_dir)
            saw_git = saw_git or level.has_git
        for verdict in (custom, dot, gitignore, exclude):
            if verdict is not None:
                return verdict
        return bool(any_git and self.global_rules and self.global_rules.match(rel, is_dir))

    def files(self) -> Iterator[str]:
        """Paths relative to the root, in no particular order; symlinks are not followed."""
        stack = [(self.root, (*self.parents, self._level(self.root)))]
        while stack:
            directory, levels = stack.pop()
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            for entry in entries:
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                    is_file = not is_dir and entry.is_file(follow_symlinks=False)
                except OSError:
                    continue
                if not (is_dir or is_file) or self._ignored(levels, entry.path, is_dir):
                    continue
                if self.prune is not None and self.prune(entry.path[self.cut :], is_dir):
                    continue
                if is_dir:
                    stack.append((entry.path, (*levels, self._level(entry.path))))
                else:
                    yield entry.path[self.cut :]

    def children(self) -> list[tuple[str, bool, bool, bool]]:
        """The root's own entries, symbolic links too: (name, is a directory, is or leads to
        one, skipped by the ignore rules or as `.git`)."""
        levels = (*self.parents, self._level(self.root))
        out = []
        with os.scandir(self.root) as entries:
            for entry in entries:
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                    leads = is_dir or entry.is_dir()
                except OSError:
                    is_dir = leads = False
                out.append((entry.name, is_dir, leads, self._ignored(levels, entry.path, is_dir)))
        return out


def _drain(
    proc: subprocess.Popen[bytes], limit: int, on_chunk: Callable[[bytes], None] | None = None
) -> tuple[bytes, bool, bytes]:
    """Read ripgrep's output in a thread: it writes many small chunks, and an event-loop
    wakeup per chunk costs more than the search itself on large trees. `on_chunk` sees each
    chunk as it comes (in this thread), to work while ripgrep is still walking."""
    assert proc.stdout is not None
    assert proc.stderr is not None
    out = bytearray()
    fd = proc.stdout.fileno()
    while chunk := os.read(fd, 1 << 20):
        if on_chunk is not None:
            on_chunk(chunk)
        out += chunk
        if len(out) > limit:
            return bytes(out), True, b""
    return bytes(out), False, proc.stderr.read(1 << 16)


async def run_rg(
    rg: str, args: list[str], cwd: Path, on_chunk: Callable[[bytes], None] | None = None
) -> tuple[bytes, bool]:
    """Run ripgrep without blocking the loop; returns (stdout, cut short). Kills it on cancel."""
    proc = subprocess.Popen(  # noqa: ASYNC220 - spawning is quick; reading happens in a thread
        [rg, *args], cwd=cwd, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    finished = False
    try:
        out, cut, err = await asyncio.wait_for(
            asyncio.to_thread(_drain, proc, RG_OUTPUT_CAP, on_chunk), RG_TIMEOUT
        )
        finished = not cut
    except asyncio.TimeoutError:
        raise ToolError(f"search timed out after {RG_TIMEOUT:.0f} s", hint=NARROW) from None
    finally:
        if not finished:  # cut short, timed out or cancelled: do not leave ripgrep running
            proc.kill()
        await asyncio.to_thread(proc.wait)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    if proc.returncode == 2 and not out and not cut:
        message = err.decode("utf-8", "replace").strip().removeprefix("rg: ")
        raise ToolError(
            f"ripgrep failed: {message[:1000]}",
            hint="the pattern is a Rust regex: escape special characters like ( [ { . * + ?",
        )
    return out, cut
