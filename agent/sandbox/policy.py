"""What a sandboxed command may do (setting `sandbox`, flag `--sandbox`): the mode, the paths it
may write (real paths: a symlink in the project cannot widen them), the protected paths inside
them that stay read-only, and whether it reaches the network.

`off` runs commands as they are; `read-only` lets them write nowhere but a private /tmp;
`workspace-write` also lets them write the project, its worktrees and the approved extra
directories — except `.git/hooks`, `.git/config`, `.agent/` (worktrees excepted) and `.env*`
files, which a command could use to run code later or to loosen the agent's own settings.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

MODES = ("off", "read-only", "workspace-write")
# Inside a writable root, these stay read-only (when the root holds them).
PROTECTED_DIRS = (".git/hooks", ".agent")
PROTECTED_FILES = (".git/config",)
ENV_GLOB = ".env*"  # top-level dotenv files of each writable root


def default_mode() -> str:
    """workspace-write where the sandbox can work (Linux); off elsewhere (macOS asks first:
    its sandbox-exec is deprecated by Apple, so it is opt-in there)."""
    return "workspace-write" if sys.platform.startswith("linux") else "off"


@dataclass(frozen=True)
class Policy:
    mode: str = "off"
    writable: tuple[str, ...] = ()  # real paths a command may write (workspace-write)
    read_only: tuple[str, ...] = ()  # real paths inside them that stay read-only (they exist)
    guard_dirs: tuple[str, ...] = ()  # protected directories that do not exist yet: kept empty
    reopen: tuple[str, ...] = ()  # writable again below a read-only one (.agent/worktrees)
    network: bool = False
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.mode != "off"

    def describe(self) -> str:
        """One line: the mode, what is writable, the network."""
        if not self.active:
            return "off"
        where = "nothing but a private /tmp"
        if self.mode == "workspace-write":
            where = ", ".join(self.writable) + " and a private /tmp"
        net = "network on" if self.network else "network off"
        return f"{self.mode} (writable: {where}; {net})"


def _real(p: Path | str) -> str:
    return os.path.realpath(p)


def _protected(root: str) -> tuple[list[str], list[str], list[str]]:
    """(existing read-only paths, missing protected directories, writable again) of one root."""
    ro: list[str] = []
    missing: list[str] = []
    reopen: list[str] = []
    git = os.path.join(root, ".git")
    for rel in PROTECTED_DIRS:
        p = os.path.join(root, rel)
        if os.path.lexists(p):
            ro.append(p)
        elif rel != ".git/hooks" or os.path.isdir(git):
            missing.append(p)
    for rel in PROTECTED_FILES:
        p = os.path.join(root, rel)
        if os.path.lexists(p):
            ro.append(p)
    with contextlib.suppress(OSError):
        ro += [os.path.join(root, n) for n in sorted(os.listdir(root)) if n.startswith(".env")]
    worktrees = os.path.join(root, ".agent", "worktrees")
    if os.path.isdir(worktrees) and not os.path.islink(worktrees):
        reopen.append(worktrees)
    return ro, missing, reopen


def make_policy(
    mode: str, roots: list[Path], network: bool = False, extra: tuple[Path, ...] = ()
) -> Policy:
    """The policy for `mode` over the project `roots` (root and working directory) and the
    approved `extra` directories; every path resolved before it is used."""
    if mode not in MODES:
        raise ValueError(f"sandbox mode must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "off":
        return Policy()
    real_roots = list(dict.fromkeys(_real(r) for r in roots))
    if mode == "read-only":
        return Policy(mode, writable=(), read_only=tuple(real_roots), network=network)
    writable = list(dict.fromkeys([*real_roots, *(_real(d) for d in extra)]))
    ro, missing, reopen = [], [], []
    for root in writable:
        r, m, o = _protected(root)
        ro += r
        missing += m
        reopen += o
    return Policy(
        mode,
        writable=tuple(writable),
        read_only=tuple(dict.fromkeys(_real(p) for p in ro)),
        guard_dirs=tuple(dict.fromkeys(missing)),
        reopen=tuple(dict.fromkeys(_real(p) for p in reopen)),
        network=network,
    )
