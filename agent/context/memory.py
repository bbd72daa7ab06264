"""Memory files, `@path` imports, system prompt assembly and the first message's env block (§7).

The system prompt is byte-stable for a session (no dates, no git state): those go into the
first user message instead, so the provider's prefix cache keeps hitting.
"""

from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path

from agent.base.tokens import estimate
from agent.context.memory_load import (
    MAX_CHARS,
    MAX_DEPTH,
    MEMORY_NAMES,
    MemoryFile,
    find_imports,
    load_memory,
    memory_files,
    memory_top,
)

__all__ = [
    "MAX_CHARS",
    "MAX_DEPTH",
    "MEMORY_HEADER",
    "MEMORY_NAMES",
    "MemoryFile",
    "find_imports",
    "load_memory",
    "memory_files",
    "memory_top",
]

MEMORY_HEADER = "# Project memory"
_PROMPTS = Path(__file__).parents[1] / "prompts"


def base_prompt() -> str:
    return (_PROMPTS / "system.md").read_text(encoding="utf-8")


def _label(path: Path, root: Path, home: Path, top: Path | None = None) -> str:
    """The path from the project root (`../AGENT.md` above it in the repository), else `~/`."""
    if path.is_relative_to(root):
        return path.relative_to(root).as_posix()
    if top is not None and path.is_relative_to(top):
        return Path(os.path.relpath(path, root)).as_posix()
    if path.is_relative_to(home):
        return "~/" + path.relative_to(home).as_posix()
    return str(path)


def memory_block(files: list[MemoryFile], root: Path, home: Path | None = None) -> str:
    """The memory part of the system prompt ("" when there is none)."""
    home = home or Path.home()
    top = memory_top(root, home)
    parts = [f"## {_label(f.path, root, home, top)}\n{f.text}" for f in files if f.text]
    if not parts:
        return ""
    head = (
        f"{MEMORY_HEADER}\nThe user's memory files (AGENT.md and the files they import). "
        "Follow them unless they conflict with the rules above."
    )
    return "\n\n".join([head, *parts])


def system_prompt(
    cwd: Path, root: Path, home: Path | None = None, trusted: bool | None = None, language: str = ""
) -> str:
    """Base prompt plus the memory files (read once per session: the prefix stays stable), and
    the reply language when one is set (`language` setting, /lang). `trusted` is Config.trusted
    (None: the stored trust decision, see load_memory)."""
    block = memory_block(load_memory(cwd, root, home, trusted), root, home)
    lang = language_line(language)
    # the memory block last: /context counts what follows its header as memory
    return base_prompt().rstrip() + "".join(f"\n\n{x}" for x in (lang, block) if x) + "\n"


LANGUAGES = {
    "en": "English", "ru": "Russian", "zh": "Chinese", "es": "Spanish", "de": "German",
    "fr": "French", "ja": "Japanese", "ko": "Korean", "pt": "Portuguese", "it": "Italian",
    "uk": "Ukrainian", "tr": "Turkish", "ar": "Arabic", "hi": "Hindi", "pl": "Polish",
    "nl": "Dutch", "vi": "Vietnamese", "id": "Indonesian", "cs": "Czech", "sv": "Swedish",
}  # fmt: skip


def language_name(code: str) -> str:
    """ "ru" → "Russian"; a name or an unknown code is kept as written."""
    return LANGUAGES.get(code.lower().split("-")[0], code) if code else ""


def language_line(code: str) -> str:
    """The system prompt's line for the reply language ("" for none)."""
    if not code or code == "off":
        return ""
    if code == "auto":
        return "Reply in the language the user writes in."
    return (
        f"Reply in {language_name(code)}, whatever language the user writes in; code, "
        "identifiers, commands and quoted output stay as they are."
    )


def memory_report(
    cwd: Path, root: Path, home: Path | None = None, trusted: bool | None = None
) -> str:
    """`/memory`: the loaded files as an import tree with sizes, tokens and notes."""
    home = home or Path.home()
    files = load_memory(cwd, root, home, trusted)
    top = memory_top(root, home)
    if not files:
        return "No memory files. /init writes an AGENT.md for this project."
    lines = []
    for f in files:
        size = f"{len(f.text):,} chars · ~{f.tokens:,} tokens" if f.text else ""
        extra = " · ".join(x for x in (size, f.note) if x)
        tree = f"{'  ' * f.depth}{'└ @' if f.depth else ''}"
        lines.append(f"{tree}{_label(f.path, root, home, top)}  ({extra})")
    total = estimate(memory_block(files, root, home))  # what /context counts as memory
    lines.append(f"total ~{total:,} tokens in the system prompt (headers included)")
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
