"""The session's sandbox: its policy, whether this machine can enforce it, and the command line
that runs one command inside it. Nothing claims a sandbox it does not have: when the kernel
refuses, `problem` says why (once, at start) and commands run unsandboxed, asked about as
before.

A project whose root holds the home directory (`~` itself, `/`, or a dotfiles repository at
`~`) gets nothing writable from the sandbox (commands may still write a working directory
below home, and the approved extra directories), and its commands are asked about as without a
sandbox — unless the user says otherwise for this run (`--sandbox workspace-write`).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent.base.events import Notice, Sink
from agent.config.load import Config
from agent.permissions.paths import within
from agent.sandbox.hidden import hidden_paths, matched, own_dirs
from agent.sandbox.janitor import Janitor, Support, prepare
from agent.sandbox.linux import bwrap_args, find_bwrap, probe
from agent.sandbox.policy import Policy, Reach, check_mode, default_mode, make_policy
from agent.sandbox.seatbelt import seatbelt_argv

SANDBOX_ARG = "sandbox"  # bash's argument: false runs the command outside (always asked)
HOME_WARNING = (
    "the project folder {root} holds your home directory: sandboxed commands may not write "
    "in it and commands that write are asked about (to let them, run with --sandbox "
    "workspace-write)"
)
# Signs in a failed command's output that the sandbox stopped it.
_BLOCKED = re.compile(
    r"Read-only file system|Permission denied|Operation not permitted|Network is unreachable|"
    r"Temporary failure in name resolution|Could not resolve host|Name or service not known|"
    r"getaddrinfo|No address associated|Failed to establish a new connection|nodename nor "
    r"servname|EROFS|EACCES|ENETUNREACH|EAI_AGAIN|Connection refused|ECONNREFUSED|EPERM"
)


@dataclass
class Sandbox:
    mode: str = "off"
    roots: tuple[Path, ...] = ()  # the project root and the working directory
    network: bool = False
    extra: tuple[Path, ...] = ()  # approved extra directories (writable too)
    problem: str = ""  # why the sandbox cannot work here ("" = it works, or it is off)
    runner: str = ""  # bwrap's path (Linux)
    hooks: bool = False  # hooks run inside too (sandbox.hooks)
    mcp: bool = False  # stdio MCP servers run inside too (sandbox.mcp)
    reach: Reach = field(default_factory=Reach)  # hidden paths, unix sockets
    home_root: str = ""  # the project root holds the home directory: nothing there is writable
    support: Support | None = None  # the sandbox's own files (Linux)
    janitor: Janitor | None = None

    @property
    def policy(self) -> Policy:
        """Worked out afresh (a few stats): a worktree or `.agent/` made since is seen."""
        return make_policy(self.mode, self._writable(), self.network, self.extra, self._now())

    def _writable(self, cwd: Path | str | None = None) -> list[Path]:
        roots = [*self.roots, *([Path(cwd)] if cwd is not None else [])]
        if not self.home_root:
            return roots
        return [r for r in roots if not home_wide(r)]

    def _now(self) -> Reach:
        """The reach with the secret stores as they are now (a store made since is hidden)."""
        if self.mode == "off":
            return self.reach
        hidden, shown = hidden_paths(Path(os.path.expanduser("~")), self.reach.hidden)
        return replace(self.reach, hidden=tuple(hidden), shown=tuple(shown))

    @property
    def active(self) -> bool:
        """Commands really run inside."""
        return self.mode != "off" and not self.problem

    @property
    def runs_unasked(self) -> bool:
        """Whether a command it confines may run without a prompt (not at a home-wide root)."""
        return self.active and not self.home_root

    def wrap(self, argv: list[str], cwd: Path | str) -> list[str]:
        """`argv` as it runs in the sandbox (unchanged when there is none)."""
        if not self.active:
            return argv
        policy = make_policy(self.mode, self._writable(cwd), self.network, self.extra, self._now())
        if sys.platform == "darwin":
            return seatbelt_argv(policy, argv, tempfile.gettempdir())
        if self.janitor is not None:
            self.janitor.made(list(policy.missing))
        return [*bwrap_args(self.runner, policy, cwd, self.support), *argv]

    @property
    def shown_mode(self) -> str:
        """The mode commands really run in ("off" when the kernel refused)."""
        return self.mode if self.active else "off"

    def status(self) -> dict[str, Any]:
        """For the JSON init event and /sandbox."""
        policy = self.policy
        return {
            "mode": self.shown_mode,
            "configured": self.mode,
            "writable": list(policy.writable),
            "network": self.network or not self.active,
            "available": not self.problem,
            "problem": self.problem,
            "hidden": list(policy.hidden) if self.active else [],
            "unixSockets": self.reach.unix_sockets or not self.active,
            "homeRoot": self.home_root,
        }

    def blocked_note(self, output: str, failed: bool) -> str:
        """What to tell the model when a failed command looks stopped by the sandbox."""
        if not (self.active and failed and _BLOCKED.search(output)):
            return ""
        return (
            f"[this command ran in the sandbox — {self.policy.describe()}. If it failed "
            'because of that, run it again with "sandbox": false: the user will be asked]'
        )

    def close(self) -> None:
        """The session ends: placeholders go once no command runs."""
        if self.janitor is not None:
            self.janitor.sweep()


def start(
    mode: str,
    roots: list[Path],
    *,
    network: bool = False,
    extra: tuple[Path, ...] = (),
    hooks: bool = False,
    mcp: bool = False,
    reach: Reach | None = None,
    home_root: str = "",
) -> Sandbox:
    """The session's sandbox, probed once: a sandbox the kernel refuses is reported, not used."""
    reach = reach or Reach()
    check_mode(mode)  # a bad mode fails here, at start
    if mode != "off":
        own_dirs()  # made once, so that they are hidden from the first command on
    box = Sandbox(mode, tuple(roots), network, extra, hooks=hooks, mcp=mcp, reach=reach)
    box.home_root = home_root
    if mode == "off":
        return box
    if sys.platform.startswith("linux"):
        runner = find_bwrap()
        box.runner, box.problem = runner or "", probe(runner)
        box.support = prepare() if not box.problem else None
        box.janitor = Janitor(box.support) if box.support is not None else None
    elif sys.platform == "darwin":
        if not Path("/usr/bin/sandbox-exec").exists():
            box.problem = "sandbox-exec is missing on this Mac; set sandbox.mode to off"
    else:
        box.problem = f"no sandbox on {sys.platform}; set sandbox.mode to off"
    return box


def home_wide(root: Path) -> bool:
    """The project root is the home directory or holds it (`/`, `/home`)."""
    home = os.path.realpath(os.path.expanduser("~"))
    return within(home, (os.path.realpath(root),))


def for_session(
    cfg: Config, denied: list[str] | tuple[str, ...] = (), sink: Sink | None = None
) -> Sandbox:
    """The sandbox of a session: `--sandbox`, else the `sandbox` setting, else the platform's
    default; the project root, the working directory and the approved extra directories
    (permissions.additionalDirectories, approvedDirs) are its writable roots. `denied`: the
    path patterns read deny rules name (Gate.read_denials), hidden with the secret stores.
    `sink` hears, once, that the kernel refused it or that the project holds the home
    directory."""
    s = cfg.options.sandbox
    mode = cfg.sandbox_flag or s.mode or default_mode()
    perms = cfg.permissions
    dirs = [*perms.get("additionalDirectories", ()), *perms.get("approvedDirs", ())]
    extra = tuple(cfg.root / os.path.expanduser(d) for d in dirs)
    roots = [cfg.root, cfg.cwd]
    named = tuple(matched(denied)) if mode != "off" else ()  # what the deny rules name
    reach = Reach(s.unix_sockets, named)
    consent = cfg.sandbox_consent  # --sandbox workspace-write given for this run
    guard = str(cfg.root) if home_wide(cfg.root) and not consent and mode != "off" else ""
    box = start(
        mode, roots, network=s.network, extra=extra, hooks=s.hooks, mcp=s.mcp, reach=reach,
        home_root=guard,
    )  # fmt: skip
    if sink is not None and box.problem:
        sink.emit(Notice(f"no sandbox: {box.problem}; commands will be asked about instead"))
    elif sink is not None and box.home_root:
        sink.emit(Notice(HOME_WARNING.format(root=box.home_root)))
    return box


def sandbox_of(obj: object | None) -> Sandbox | None:
    """ToolContext.sandbox, typed."""
    return obj if isinstance(obj, Sandbox) else None


def inner_pids(pid: int) -> list[int]:
    """The direct children of process `pid`: for a sandboxed command, bwrap's namespace init.
    Read before `pid` is signalled: once it is gone they belong to init (pid 1)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split() if p.isdigit()]


def end_inside(pids: list[int]) -> None:
    """SIGKILL them: killing a namespace's init ends every process in it, double-forked and
    setsid'd ones too — also when bwrap was stopped before it could tie them to itself."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
