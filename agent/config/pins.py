"""Trust is of content: what the user saw when they trusted a project, file by file.

Trusting a project records a digest of every trust-bearing file it holds (BEARING: its
settings (ours and Claude Code's `.claude/settings*.json`), hooks, actions, MCP servers,
`.env`, its skills, commands and agent definitions under `.agent/` and `.claude/`, and the
plugin folders its settings list (agent.config.plugins)) in
`~/.agent/trusted.json`, and keeps a copy of each text file (not `.env`: secrets) in the state
directory, to show what changed since. A file added or
changed since then — by a sandboxed command, an edit, a `git pull` — is withheld: not applied
until the user confirms it (agent.config.trust.Trust, and the REPL's question at start).
A settings.local.json holding exactly what the agent wrote from the user's own answers is the
user's, and never withheld.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from agent.config import safefile
from agent.config.statedir import ensure_home, state_home

FILES = (
    ".agent/settings.json",
    ".agent/settings.local.json",
    ".agent/hooks.json",
    ".agent/actions.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".mcp.json",
    ".env",
)
FOLDERS = tuple(
    f"{top}/{kind}" for top in (".agent", ".claude") for kind in ("skills", "commands", "agents")
)
BEARING = (*FILES, *FOLDERS)
MAX_FILES = 20_000  # in the folders together: past it, a folder is never applied unasked
MAX_DIRS = 5_000  # in one folder, links followed
MAX_READ = 32 << 20  # bytes hashed in all; a larger file is named by size and time
KEPT = 256 << 10  # text files up to this size are kept to show a diff later
SHOWN_LINES = 40  # of one file's diff
NO_COPY = (".env",)  # never copied out of the project: it holds secrets
UNVERIFIED = "too-many-files"  # a folder whose files could not all be checked


@dataclass(frozen=True)
class Changes:
    """What differs from the pins: relative paths."""

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    @property
    def withheld(self) -> frozenset[str]:
        return frozenset((*self.added, *self.changed))

    def __len__(self) -> int:
        return len(self.added) + len(self.changed) + len(self.removed)


def _files(root: Path) -> tuple[list[str], list[str]]:
    """The trust-bearing files of `root` that exist (relative; links followed, as the loaders
    follow them), and the folders with more than MAX_FILES files to check (never verified)."""
    out = [rel for rel in FILES if (root / rel).is_file()]
    budget, too_many = MAX_FILES, []
    for folder in (*FOLDERS, *plugin_folders(root)):
        top = root / folder
        if not top.is_dir():
            continue
        seen: set[str] = set()
        for here, dirs, names in os.walk(top, followlinks=True):
            real = os.path.realpath(here)
            if real in seen:  # a link back up: walked already
                dirs[:] = []
                continue
            seen.add(real)
            if len(seen) > MAX_DIRS:  # a link to somewhere vast
                too_many.append(folder)
                break
            dirs.sort()  # all of them: the loaders skip none
            files = [Path(here) / n for n in sorted(names)]
            files = [f for f in files if f.is_file()]
            if len(files) > budget:
                too_many.append(folder)
                break
            budget -= len(files)
            out += [f.relative_to(root).as_posix() for f in files]
    return out, too_many


def plugin_folders(root: Path) -> list[str]:
    """The plugin folders the project's own settings files list (`plugins`, relative to
    `.agent/`), those inside the project, relative to it: pinned like its other folders."""
    out: list[str] = []
    for name in ("settings.json", "settings.local.json"):
        try:
            got = json.loads((root / ".agent" / name).read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        items = got.get("plugins") if isinstance(got, dict) else None
        items = [items] if isinstance(items, str) else items if isinstance(items, list) else []
        for item in items:
            real = os.path.realpath(root / ".agent" / str(item))
            rel = os.path.relpath(real, os.path.realpath(root))
            if isinstance(item, str) and not rel.startswith("..") and rel != ".":
                out.append(Path(rel).as_posix())
    return sorted(set(out))


def scan(root: Path, own: frozenset[str] = frozenset()) -> dict[str, str]:
    """rel path → digest of every trust-bearing file (`own`: files that are the user's)."""
    digests: dict[str, str] = {}
    left = MAX_READ
    files, too_many = _files(root)
    for folder in too_many:  # its files cannot all be checked: it is never the same
        digests[folder] = f"{UNVERIFIED}:{folder}"
    for rel in files:
        if rel in own:
            continue
        found = _digest(root / rel, left)
        if found is not None:
            digests[rel], read = found
            left -= read
    return digests


def digest_of(root: Path, rel: str) -> str | None:
    """One trust-bearing file's digest, as scan records it (None: not a file there)."""
    found = _digest(root / rel, MAX_READ) if (root / rel).is_file() else None
    return found[0] if found is not None else None


def _digest(path: Path, left: int) -> tuple[str, int] | None:
    """(digest, bytes read) of a file; over `left` bytes, its size and time stand in."""
    try:
        st = path.stat()
        if st.st_size > left:
            return f"size:{st.st_size}:{st.st_mtime_ns}", 0
        data = path.read_bytes()
    except OSError:
        return None
    return hashlib.sha256(data).hexdigest(), len(data)


def compare(pinned: dict[str, str], now: dict[str, str]) -> Changes:
    added = tuple(sorted(r for r in now if r not in pinned))
    changed = tuple(
        sorted(
            r for r in now if r in pinned and (pinned[r] != now[r] or now[r].startswith(UNVERIFIED))
        )
    )
    removed = tuple(sorted(r for r in pinned if r not in now))
    return Changes(added, changed, removed)


def keep_copies(root: Path, digests: dict[str, str]) -> None:
    """Copies of the pinned text files, to diff against later (never `.env`)."""
    try:
        home = ensure_home()
    except OSError:
        return
    for rel, digest in digests.items():
        if os.path.basename(rel) in NO_COPY or digest.startswith(("size:", UNVERIFIED)):
            continue
        path = root / rel
        with contextlib.suppress(OSError):
            if path.stat().st_size <= KEPT:
                data = path.read_bytes()
                if hashlib.sha256(data).hexdigest() == digest:
                    safefile.create_new(home, home / "trust" / digest, data, 0o600)


def _copy(digest: str) -> str | None:
    with contextlib.suppress(OSError, ValueError):
        home = state_home()
        return safefile.read_bytes(home, home / "trust" / digest).decode("utf-8")
    return None


def describe(root: Path, pinned: dict[str, str], changes: Changes) -> list[str]:
    """What changed, for the user: a diff of each changed text file, the start of each new one,
    only the names a changed `.env` sets."""
    lines: list[str] = []
    for rel in (*changes.changed, *changes.added):
        new = _text(root / rel)
        verb = "changed" if rel in changes.changed else "added"
        lines.append(f"{rel} ({verb}):")
        if rel in FOLDERS:  # its files could not all be checked
            lines.append(f"  more than {MAX_FILES:,} files: never applied without your yes")
            continue
        if os.path.basename(rel) in NO_COPY:
            names = [ln.split("=", 1)[0].strip() for ln in (new or "").splitlines() if "=" in ln]
            lines.append(f"  sets {', '.join(names) or 'nothing'} (values not shown)")
            continue
        if new is None:
            lines.append("  (not text, or too large to show)")
            continue
        old = _copy(pinned[rel]) if rel in pinned else ""
        if old is None:
            old = ""
            lines.append("  (what it held before was not kept; all of it now:)")
        diff = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=1))
        shown = diff[2:] if len(diff) > 2 else []
        lines += [f"  {ln}" for ln in shown[:SHOWN_LINES]]
        if len(shown) > SHOWN_LINES:
            lines.append(f"  … {len(shown) - SHOWN_LINES} more lines")
    lines += [f"{rel} (removed)" for rel in changes.removed]
    return lines


def _text(path: Path) -> str | None:
    try:
        if path.stat().st_size > KEPT:
            return None
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
