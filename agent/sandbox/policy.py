"""What a sandboxed command may do (setting `sandbox`, flag `--sandbox`): the mode, the paths it
may write (real paths: a symlink in the project cannot widen them), the paths inside them that
stay read-only, what it may not read at all, and what it reaches.

`off` runs commands as they are; `read-only` lets them write nowhere but a private /tmp;
`workspace-write` also lets them write the project, its worktrees and the approved extra
directories — except what git, the agent, other agents and editors read later and act on
outside the sandbox (agent.permissions.later.RUNS_LATER_*: the whole `.git`, `.agent/`,
`.claude/`, `.mcp.json`, `.env*`…), in each writable root and in each worktree of its
`.agent/worktrees`, and each submodule's `.git`. The folders stay read-only whether they exist
yet or not: a missing one is held by an empty folder while commands run (the janitor takes it
away again); a missing file cannot be held without showing in `git status`, so one a command
makes is what trust pinning catches (agent.config.pins) before anything applies it.
Hidden (`hidden`): credential stores, the agent's own folders and what read deny rules name
(agent.sandbox.hidden) read as empty in every mode.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from agent.config.modes import SANDBOX_MODES
from agent.git import repo
from agent.permissions.later import RUNS_LATER_DIRS, RUNS_LATER_FILES, runs_later_file
from agent.permissions.paths import within

MAX_GITMODULES = 64 << 10  # bytes of .gitmodules read
MAX_SUBMODULES = 200
MAX_WORKTREES = 100
_SUBMODULE_PATH = re.compile(r"^\s*path\s*=\s*(.+?)\s*$", re.M)


def default_mode() -> str:
    """workspace-write where the sandbox can work (Linux); off elsewhere (macOS asks first:
    its sandbox-exec is deprecated by Apple, so it is opt-in there)."""
    return "workspace-write" if sys.platform.startswith("linux") else "off"


@dataclass(frozen=True)
class Policy:
    mode: str = "off"
    writable: tuple[str, ...] = ()  # real paths a command may write (workspace-write)
    read_only: tuple[str, ...] = ()  # real paths inside them that stay read-only (they exist)
    missing: tuple[str, ...] = ()  # protected folders that do not exist yet: held empty
    absent: tuple[str, ...] = ()  # protected files that do not exist yet (Seatbelt denies them)
    reopen: tuple[str, ...] = ()  # writable again below a read-only one (.agent/worktrees)
    hidden: tuple[str, ...] = ()  # existing paths a command reads as empty (files and folders)
    shown: tuple[str, ...] = ()  # folders inside hidden ones seen again, read-only (skills)
    network: bool = False
    unix_sockets: bool = False  # may open AF_UNIX sockets (off: no Docker, D-Bus, ssh-agent)
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.mode != "off"

    def describe(self) -> str:
        """One line: the mode, what is writable, the network."""
        if not self.active:
            return "off"
        where = "nothing but a private /tmp"
        if self.mode == "workspace-write" and self.writable:
            where = ", ".join(self.writable) + " and a private /tmp"
        net = "network on" if self.network else "network off"
        return f"{self.mode} (writable: {where}; {net})"


@dataclass(frozen=True)
class Reach:
    """What a sandbox is built from besides its mode, roots and network."""

    unix_sockets: bool = False
    hidden: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()


def _real(p: Path | str) -> str:
    return os.path.realpath(p)


def _git_dirs(root: str) -> list[str]:
    """A `.git` file's repository (a worktree's gitdir and its common directory, a submodule's
    folder): what git reads there is as much this checkout's config as `.git/` itself."""
    dot = os.path.join(root, ".git")
    if os.path.islink(dot) or not os.path.isfile(dot):
        return []
    found = [p for gitdir, _ in repo.at(root) for p in (gitdir, repo.common_dir(gitdir))]
    return [p for p in dict.fromkeys(found) if os.path.isdir(p)]


def _submodules(root: str) -> list[str]:
    """The `.git` of each submodule `.gitmodules` names (a file pointing into `.git/modules`):
    replacing it would point git at a repository of the command's making."""
    try:  # never blocks on a FIFO; a larger file is read as far as git would matter here
        fd = os.open(os.path.join(root, ".gitmodules"), os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return []
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        text = f.read(MAX_GITMODULES).decode("utf-8", "replace")
    out = []
    for m in _SUBMODULE_PATH.finditer(text):
        rel = m.group(1).strip().strip('"')
        p = os.path.normpath(os.path.join(root, rel, ".git"))
        if within(p, (root,)) and os.path.lexists(p):
            out.append(p)
    return out[:MAX_SUBMODULES]


def _protected(root: str, nested: bool = True) -> tuple[list[str], list[str], list[str], list[str]]:
    """(existing read-only paths, missing protected folders, missing protected files, writable
    again) of one root: its
    run-later folders and files, its `.env*`, its submodules' `.git`, the repository a `.git`
    file points to; and, `nested`, each worktree of its `.agent/worktrees` likewise."""
    ro: list[str] = []
    missing: list[str] = []
    reopen: list[str] = []
    for name in RUNS_LATER_DIRS:
        p = os.path.join(root, name)
        (ro if os.path.lexists(p) else missing).append(p)
    files = [os.path.join(root, n) for n in RUNS_LATER_FILES]
    ro += [p for p in files if os.path.lexists(p)]
    absent = [p for p in files if not os.path.lexists(p)]
    with contextlib.suppress(OSError):
        ro += [
            os.path.join(root, n)
            for n in sorted(os.listdir(root))
            if n not in RUNS_LATER_FILES and runs_later_file(n.lower())
        ]
    ro += _git_dirs(root) + _submodules(root)
    worktrees = os.path.join(root, ".agent", "worktrees")
    if nested and os.path.isdir(worktrees) and not os.path.islink(worktrees):
        reopen.append(worktrees)
        with contextlib.suppress(OSError):
            for name in sorted(os.listdir(worktrees))[:MAX_WORKTREES]:
                tree = os.path.join(worktrees, name)
                if os.path.isdir(tree) and not os.path.islink(tree):
                    r, m, a, _ = _protected(tree, nested=False)
                    ro, missing, absent = ro + r, missing + m, absent + a
    return ro, missing, absent, reopen


def check_mode(mode: str) -> None:
    if mode not in SANDBOX_MODES:
        raise ValueError(f"sandbox mode must be one of {', '.join(SANDBOX_MODES)}, not {mode!r}")


def make_policy(
    mode: str,
    roots: list[Path],
    network: bool = False,
    extra: tuple[Path, ...] = (),
    reach: Reach | None = None,
) -> Policy:
    """The policy for `mode` over the writable `roots` (the project root and working directory,
    none when they hold the home directory: see agent.sandbox.runtime) and the approved
    `extra` directories; every path resolved before it is used."""
    check_mode(mode)
    if mode == "off":
        return Policy()
    r = reach or Reach()
    common = {
        "hidden": r.hidden,
        "shown": r.shown,
        "network": network,
        "unix_sockets": r.unix_sockets,
    }
    real_roots = list(dict.fromkeys(_real(p) for p in roots))
    if mode == "read-only":
        return Policy(mode, read_only=tuple(real_roots), **common)  # type: ignore[arg-type]
    extras = [_real(d) for d in extra]
    writable = list(dict.fromkeys([*real_roots, *extras]))
    # every root but a working directory inside another (a subfolder of the project is the
    # project: no placeholders there); the project root and approved folders always
    keep = {*real_roots[:1], *extras}
    ro: list[str] = []
    missing: list[str] = []
    absent: list[str] = []
    reopen: list[str] = []
    for root in writable:
        if root in keep or not within(root, tuple(o for o in writable if o != root)):
            r_, m, a, o = _protected(root)
            ro, missing, absent, reopen = ro + r_, missing + m, absent + a, reopen + o
    return Policy(
        mode,
        writable=tuple(writable),
        read_only=tuple(dict.fromkeys(_real(p) for p in ro)),
        missing=tuple(dict.fromkeys(missing)),
        absent=tuple(dict.fromkeys(absent)),
        reopen=tuple(dict.fromkeys(_real(p) for p in reopen)),
        **common,  # type: ignore[arg-type]
    )
