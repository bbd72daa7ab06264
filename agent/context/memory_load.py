"""Memory files (§7): discovery from the repository's top down to cwd, and `@path` imports.

Discovery walks from the enclosing git work tree's top (or the project root when there is no
repository) down to cwd, never above the home directory. Everything below that top is the
project's: its files may import from the project, and from the user's home only once the
project is trusted, since what they import goes into the prompt sent to the provider. The
user's own ~/.agent/AGENT.md may import from anywhere. Secrets never load.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent.base.tokens import estimate
from agent.config.trust import TRUST_HINT, is_trusted
from agent.permissions.paths import Workspace, protected, within

MEMORY_NAMES = ("AGENT.md", ".agent/AGENT.md", "AGENTS.md", "CLAUDE.md")
OVERRIDE = "AGENTS.override.md"  # in a directory that has one, read instead of AGENTS.md (Codex)
MAX_DEPTH = 5  # import levels below a discovered memory file
MAX_CHARS = 40_000  # of one memory file; a runaway import must not eat the context
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST = re.compile(r"^ {0,3}([-+*]|\d{1,9}[.)])( +|$)")
_BREAK = re.compile(r"^ {0,3}(#{1,6}(\s|$)|([-*_])( *\3){2,} *$)")  # heading, thematic break
_INLINE = re.compile(r"(`+)(?!`).*?(?<!`)\1")
_IMPORT = re.compile(r"(?:^|(?<=\s))@([^\s`]+)")


@dataclass
class MemoryFile:
    """One memory file as loaded (or why it was not: `note`)."""

    path: Path
    text: str = ""
    depth: int = 0  # 0 = found by discovery; n = imported n levels below one
    parent: Path | None = None
    note: str = ""  # not found / import cycle / too deep / already loaded / unreadable

    @property
    def tokens(self) -> int:
        return estimate(self.text)


def memory_top(root: Path, home: Path) -> Path:
    """Where discovery starts: the top of the git work tree holding `root` (a `.git` directory
    or file), else `root` itself — never the home directory or the filesystem root above it."""
    stops = {home, Path(os.path.realpath(home))}
    for d in (root, *root.parents):
        if d != root and (d in stops or d == d.parent):
            break
        if (d / ".git").exists():
            return d
    return root


def agent_worktree(cwd: Path, root: Path) -> Path | None:
    """The top of the `--worktree` (or /batch) checkout `root/.agent/worktrees/<name>` holding
    `cwd`, or None when cwd is not in one."""
    if not cwd.is_relative_to(root):
        return None
    parts = cwd.relative_to(root).parts
    if len(parts) < 3 or parts[:2] != (".agent", "worktrees"):
        return None
    top = root.joinpath(*parts[:3])
    return top if (top / ".git").is_file() else None


def _chain(cwd: Path, root: Path, home: Path) -> list[Path]:
    """The directories searched, outermost first: the repository's top (or root) → cwd; in a
    worktree of `root`, the worktree's top → cwd."""
    dirs = [cwd, *cwd.parents]
    top = agent_worktree(cwd, root) or memory_top(root, home)
    start = top if top in dirs else root
    chain = list(reversed(dirs[: dirs.index(start) + 1])) if start in dirs else [cwd]
    # Never the agent's own directories (its worktrees, sessions) between the top and cwd.
    return [d for d in chain if ".agent" not in d.relative_to(chain[0]).parts]


def memory_files(cwd: Path, root: Path, home: Path) -> list[Path]:
    """Memory files, outermost first: ~/.agent/AGENT.md, then the repository's top → cwd.

    In a worktree of `root` each level is the worktree's own file (the committed one), or else
    the main checkout's file at the same place (a personal, untracked one)."""
    found = [home / ".agent" / "AGENT.md"]
    wt = agent_worktree(cwd, root)
    for d in _chain(cwd, root, home):
        for name in MEMORY_NAMES:
            own = d / name
            main = root / d.relative_to(wt) / name if wt is not None else own
            if name == "AGENTS.md" and any(p.with_name(OVERRIDE).is_file() for p in (own, main)):
                own, main = own.with_name(OVERRIDE), main.with_name(OVERRIDE)  # Codex's rule
            found.append(own if own.is_file() or not main.is_file() else main)
    seen: set[Path] = set()
    out = []
    for p in found:
        if p.is_file() and p.resolve() not in seen:
            seen.add(p.resolve())
            out.append(p)
    return out


def _prose(text: str) -> Iterator[str]:
    """The lines of markdown outside fenced and indented code blocks (CommonMark, simplified:
    an indented block needs a blank line, a heading or another code line before it; inside a
    list item the indent counts from the item's content)."""
    fence, fence_at = "", 0
    after_break, in_code = True, False  # a paragraph cannot be continued by code
    item = -1  # content column of the list item being continued, -1 outside lists
    for raw in text.splitlines():
        line = raw.expandtabs(4)
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        if fence:  # a closing fence: same character, at least as long, no info string
            m = _FENCE.match(line[min(indent, fence_at) :])
            mark = m.group(1) if m else ""
            if mark and body.rstrip() == mark and mark[0] == fence[0] and len(mark) >= len(fence):
                fence, after_break = "", True
            continue
        if not body:
            after_break = True
            continue
        if item >= 0 and indent < item and after_break and not _LIST.match(line):
            item = -1  # a blank line, then text left of the item's content: the list is over
        base = item if item >= 0 and indent >= item else 0
        if indent - base >= 4 and (after_break or in_code):
            in_code = True
            continue
        in_code = after_break = False
        m = _FENCE.match(line[base:])
        if m:
            fence, fence_at = m.group(1), base
            continue
        lm = _LIST.match(line)
        if lm:
            gap = len(lm.group(2))
            item = lm.end(1) + (gap if 0 < gap <= 4 else 1)
        if _BREAK.match(line[base:]):
            after_break = True
        yield line


def find_imports(text: str) -> list[str]:
    """`@path` references outside code blocks and spans, in order (paths only, not @names)."""
    out: list[str] = []
    for line in _prose(text):
        for ref in _IMPORT.findall(_INLINE.sub(" ", line)):
            ref = ref.rstrip(".,;:!?)]}>\"'")
            if ref.startswith("~") or "/" in ref or "." in ref.lstrip("."):
                out.append(ref)
    return out


def load_memory(
    cwd: Path, root: Path, home: Path | None = None, trusted: bool | None = None
) -> list[MemoryFile]:
    """Every memory file with its imports right after it (depth-first), notes included.

    `trusted`: whether the user trusts the project (Config.trusted); None reads the stored
    decision (~/.agent/trusted.json), which leaves out a run's --trust-project."""
    home = home or Path.home()
    if trusted is None:
        trusted = is_trusted(root)
    out: list[MemoryFile] = []
    seen: set[Path] = set()
    ws = Workspace.make(root, home=home)
    chain = _chain(cwd, root, home)
    # The project: the repository's top (or root) and all below it, as named and as resolved.
    project = tuple(dict.fromkeys(p for d in (chain[0], root) for p in _both(d)))
    user = home / ".agent" / "AGENT.md"
    for path in memory_files(cwd, root, home):
        # Where the file sits decides its scope, not where a symlink points: a repository's
        # AGENT.md -> ~/.agent/AGENT.md is still the repository's (and refused if untrusted).
        reach = _Reach(home, ws, None if path == user else project, trusted)
        _load(MemoryFile(path), reach, (), seen, out)
    return out


def _both(d: Path) -> tuple[Path, Path]:
    return Path(os.path.abspath(d)), Path(os.path.realpath(d))


@dataclass(frozen=True)
class _Reach:
    home: Path
    ws: Workspace
    project: tuple[Path, ...] | None  # the project's directories; None: the user's own file
    trusted: bool  # a trusted project's files may also import from the user's home

    def refused(self, real: Path, imported: bool = True) -> str:
        """Why `real` (a symlink-resolved path) must stay out of the prompt ("" if it may not)."""
        how = "imported into" if imported else "loaded into"
        why = protected(real, self.ws)
        if why:
            return f"{why}: never {how} the prompt (skipped)"
        if self.project is None or within(real, self.project):
            return ""
        what = "import it" if imported else "link to it"
        if not within(real, (self.ws.home,)):
            return f"outside the repository and home: a project's memory cannot {what} (skipped)"
        if self.trusted:
            return ""
        return (
            f"outside the project: an untrusted project's memory cannot {what} "
            f"(skipped; {TRUST_HINT})"
        )


def _load(
    f: MemoryFile, reach: _Reach, chain: tuple[Path, ...], seen: set[Path], out: list[MemoryFile]
) -> None:
    real = f.path.resolve()
    # Discovered files too: an AGENT.md symlinked to .env or ~/.ssh/id_rsa must not load.
    refused = reach.refused(real, imported=bool(chain))
    if refused:
        f.note = refused
    elif real in chain:
        f.note = "import cycle (skipped)"
    elif real in seen:
        f.note = "already loaded above"
    elif f.depth > MAX_DEPTH:
        f.note = f"too deep (imports nest at most {MAX_DEPTH} levels)"
    elif not f.path.is_file():
        f.note = "not found"
    else:
        try:
            f.text = f.path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError as e:
            f.note = f"unreadable: {e.strerror}"
    out.append(f)
    if f.note:
        return
    seen.add(real)
    if len(f.text) > MAX_CHARS:
        f.text, f.note = f.text[:MAX_CHARS], f"cut at {MAX_CHARS} characters"
    for ref in find_imports(f.text):
        target = reach.home / ref[2:] if ref.startswith("~/") else Path(ref)
        target = Path(os.path.normpath(f.path.parent / target))
        child = MemoryFile(target, depth=f.depth + 1, parent=f.path)
        _load(child, reach, (*chain, real), seen, out)
