"""Memory files, `@path` imports, system prompt assembly and the first message's env block (§7).

The system prompt is byte-stable for a session (no dates, no git state): those go into the
first user message instead, so the provider's prefix cache keeps hitting.
"""

from __future__ import annotations

import datetime
import os
import platform
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.paths import Workspace, protected, within
from agent.tokens import estimate, estimate_tools

MEMORY_NAMES = ("AGENT.md", ".agent/AGENT.md", "AGENTS.md", "CLAUDE.md")
MAX_DEPTH = 5  # import levels below a discovered memory file
MAX_CHARS = 40_000  # of one memory file; a runaway import must not eat the context
MEMORY_HEADER = "# Project memory"
_PROMPTS = Path(__file__).parent / "prompts"
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
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


def base_prompt() -> str:
    return (_PROMPTS / "system.md").read_text(encoding="utf-8")


def memory_files(cwd: Path, root: Path, home: Path) -> list[Path]:
    """Memory files, outermost first: ~/.agent/AGENT.md, then root → cwd."""
    found = [home / ".agent" / "AGENT.md"]
    dirs = [cwd, *cwd.parents]
    chain = list(reversed(dirs[: dirs.index(root) + 1])) if root in dirs else [cwd]
    # A `--worktree` checkout lives in root/.agent/worktrees/: its memory is the main repo's.
    chain = [d for d in chain if ".agent" not in d.relative_to(chain[0]).parts]
    for d in chain:
        found += [d / name for name in MEMORY_NAMES]
    seen: set[Path] = set()
    out = []
    for p in found:
        if p.is_file() and p.resolve() not in seen:
            seen.add(p.resolve())
            out.append(p)
    return out


def find_imports(text: str) -> list[str]:
    """`@path` references outside fenced and inline code, in order (paths only, not @names)."""
    out: list[str] = []
    fence = ""
    for line in text.splitlines():
        m = _FENCE.match(line)
        mark = m.group(1) if m else ""
        if fence:  # a closing fence: same character, at least as long, no info string
            if mark and line.strip() == mark and mark[0] == fence[0] and len(mark) >= len(fence):
                fence = ""
            continue
        if mark:
            fence = mark
            continue
        for ref in _IMPORT.findall(_INLINE.sub(" ", line)):
            ref = ref.rstrip(".,;:!?)]}>\"'")
            if ref.startswith("~") or "/" in ref or "." in ref.lstrip("."):
                out.append(ref)
    return out


def load_memory(cwd: Path, root: Path, home: Path | None = None) -> list[MemoryFile]:
    """Every memory file with its imports right after it (depth-first), notes included."""
    home = home or Path.home()
    out: list[MemoryFile] = []
    seen: set[Path] = set()
    ws = Workspace.make(root, home=home)
    roots = (Path(os.path.abspath(root)), ws.root)
    for path in memory_files(cwd, root, home):
        # A repository's files may import from the repository and the user's home (personal
        # notes kept out of git, as in Claude Code); the user's own files from anywhere.
        # Neither reaches secrets: the prompt goes to the provider. Where the file sits decides
        # its scope, not where a symlink points: a repository's AGENT.md -> ~/.agent/AGENT.md
        # is still the repository's.
        scope = (ws.root, ws.home) if within(Path(os.path.abspath(path)), roots) else None
        _load(MemoryFile(path), _Reach(home, ws, scope), (), seen, out)
    return out


@dataclass(frozen=True)
class _Reach:
    home: Path
    ws: Workspace
    scope: tuple[Path, ...] | None  # imports must resolve inside one of these (None: anywhere)

    def refused(self, real: Path, imported: bool = True) -> str:
        """Why `real` (a symlink-resolved path) must stay out of the prompt ("" if it may not)."""
        how = "imported into" if imported else "loaded into"
        why = protected(real, self.ws)
        if why:
            return f"{why}: never {how} the prompt (skipped)"
        if self.scope is not None and not within(real, self.scope):
            what = "import it" if imported else "link to it"
            return f"outside the repository and home: a project's memory cannot {what} (skipped)"
        return ""


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


def _label(path: Path, root: Path, home: Path) -> str:
    for base, prefix in ((root, ""), (home, "~/")):
        try:
            return prefix + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)


def memory_block(files: list[MemoryFile], root: Path, home: Path | None = None) -> str:
    """The memory part of the system prompt ("" when there is none)."""
    home = home or Path.home()
    parts = [f"## {_label(f.path, root, home)}\n{f.text}" for f in files if f.text]
    if not parts:
        return ""
    head = (
        f"{MEMORY_HEADER}\nThe user's memory files (AGENT.md and the files they import). "
        "Follow them unless they conflict with the rules above."
    )
    return "\n\n".join([head, *parts])


def system_prompt(cwd: Path, root: Path, home: Path | None = None) -> str:
    """Base prompt plus the memory files (read once per session: the prefix stays stable)."""
    block = memory_block(load_memory(cwd, root, home), root, home)
    return base_prompt().rstrip() + (f"\n\n{block}" if block else "") + "\n"


def memory_report(cwd: Path, root: Path, home: Path | None = None) -> str:
    """`/memory`: the loaded files as an import tree with sizes, tokens and notes."""
    home = home or Path.home()
    files = load_memory(cwd, root, home)
    if not files:
        return "No memory files. /init writes an AGENT.md for this project."
    lines = []
    for f in files:
        size = f"{len(f.text):,} chars · ~{f.tokens:,} tokens" if f.text else ""
        extra = " · ".join(x for x in (size, f.note) if x)
        lines.append(
            f"{'  ' * f.depth}{'└ @' if f.depth else ''}{_label(f.path, root, home)}  ({extra})"
        )
    total = sum(f.tokens for f in files)
    lines.append(f"total ~{total:,} tokens in the system prompt")
    return "\n".join(lines)


def init_prompt(cwd: Path) -> str:
    """The instruction `/init` sends through the loop: write (or improve) AGENT.md."""
    text = (_PROMPTS / "init.md").read_text(encoding="utf-8")
    existing = [n for n in MEMORY_NAMES if (cwd / n).is_file()]
    if existing:
        note = (
            f"Existing memory files here: {', '.join(existing)}. Read them first and "
            "improve AGENT.md instead of starting over: keep what is still true, fix what "
            "is stale, and fold in useful points from the others."
        )
    else:
        note = "There is no AGENT.md yet: create it."
    return text.replace("{existing}", note).strip()


def context_breakdown(agent: Any) -> dict[str, Any]:
    """`/context` data: tokens by part (system prompt, tools, memory, messages) and the limit."""
    system = str(agent.messages[0].get("content") or "") if agent.messages else ""
    base, _, mem = system.partition(f"\n\n{MEMORY_HEADER}")
    parts = {
        "system prompt": estimate(base),
        "tools": estimate_tools(agent._schemas),
        "memory": estimate(mem),
    }
    total = agent.meter.now(agent.messages, agent._schemas)
    parts["messages"] = max(total - sum(parts.values()), 0)
    policy = agent.compaction
    limit = policy.context_limit if policy else agent.llm.cfg.provider.context_limit
    return {
        "total": total,
        "limit": limit,
        "parts": parts,
        "compact_at": policy.trigger if policy else None,
        "free": max(limit - total, 0),
    }


BAR_GLYPHS = {"system prompt": "█", "tools": "▓", "memory": "▒", "messages": "░"}


def context_report(agent: Any, width: int = 40) -> str:
    """`/context` as text: a bar of the window and the breakdown."""
    d = context_breakdown(agent)
    limit = max(d["limit"], 1)
    bar = "".join(BAR_GLYPHS[k] * round(v * width / limit) for k, v in d["parts"].items())
    bar = (bar + "·" * width)[:width]
    lines = [f"context [{bar}] {d['total']:,} / {d['limit']:,} tokens ({d['total'] / limit:.0%})"]
    for name, value in d["parts"].items():
        lines.append(f"  {BAR_GLYPHS[name]} {name:<14}{value:>10,}")
    lines.append(f"  · {'free':<14}{d['free']:>10,}")
    if d["compact_at"]:
        lines.append(f"auto-compaction at {d['compact_at']:,} tokens")
    return "\n".join(lines)


def git_summary(root: Path) -> str:
    """Branch name read from .git/HEAD (no subprocess: this is on the start-up path)."""
    head = root / ".git" / "HEAD"
    try:
        if (root / ".git").is_file():  # a linked worktree: `gitdir: <repo>/.git/worktrees/<n>`
            gitdir = (root / ".git").read_text(encoding="utf-8").strip().removeprefix("gitdir:")
            head = (root / gitdir.strip()) / "HEAD"
        ref = head.read_text(encoding="utf-8").strip()
    except OSError:
        return "not a git repository" if not (root / ".git").exists() else "git repository"
    if ref.startswith("ref: refs/heads/"):
        return f"git branch {ref.removeprefix('ref: refs/heads/')}"
    return f"git detached HEAD at {ref[:12]}"


def _checkout(cwd: Path, root: Path) -> Path:
    """The git checkout holding cwd: a `--worktree` checkout inside root, or root itself."""
    for d in (cwd, *cwd.parents):
        if d == root:
            break
        if (d / ".git").is_file():
            return d
    return root


def env_block(cwd: Path, root: Path) -> str:
    """Facts that change between sessions: they go in the first user message."""
    today = datetime.date.today().isoformat()
    return (
        f"<env>\ndate: {today}\ncwd: {cwd}\nproject root: {root}\n"
        f"platform: {platform.system()} {platform.release()}\n{git_summary(_checkout(cwd, root))}"
        "\n</env>"
    )
