"""The session's sandbox: its policy, whether this machine can enforce it, and the command line
that runs one command inside it. Nothing claims a sandbox it does not have: when the kernel
refuses, `problem` says why (once, at start) and commands run unsandboxed, asked about as
before.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.config.load import Config
from agent.sandbox.policy import Policy, default_mode, make_policy

SANDBOX_ARG = "sandbox"  # bash's argument: false runs the command outside (always asked)
# Signs in a failed command's output that the sandbox stopped it.
_BLOCKED = re.compile(
    r"Read-only file system|Permission denied|Operation not permitted|Network is unreachable|"
    r"Temporary failure in name resolution|Could not resolve host|Name or service not known|"
    r"getaddrinfo|No address associated|Failed to establish a new connection|nodename nor "
    r"servname|EROFS|EACCES|ENETUNREACH|EAI_AGAIN|Connection refused|ECONNREFUSED"
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

    @property
    def policy(self) -> Policy:
        """Worked out afresh (a few stats): a worktree or `.agent/` made since is seen."""
        return make_policy(self.mode, list(self.roots), self.network, self.extra)

    @property
    def active(self) -> bool:
        """Commands really run inside."""
        return self.mode != "off" and not self.problem

    def wrap(self, argv: list[str], cwd: Path | str) -> list[str]:
        """`argv` as it runs in the sandbox (unchanged when there is none)."""
        if not self.active:
            return argv
        policy = make_policy(self.mode, [*self.roots, Path(cwd)], self.network, self.extra)
        if sys.platform == "darwin":
            from agent.sandbox.seatbelt import seatbelt_argv

            return seatbelt_argv(policy, argv, tempfile.gettempdir())
        from agent.sandbox.linux import bwrap_args

        return [*bwrap_args(self.runner, policy, cwd), *argv]

    @property
    def shown_mode(self) -> str:
        """The mode commands really run in ("off" when the kernel refused)."""
        return self.mode if self.active else "off"

    def status(self) -> dict[str, Any]:
        """For the JSON init event and /sandbox."""
        return {
            "mode": self.shown_mode,
            "configured": self.mode,
            "writable": list(self.policy.writable),
            "network": self.network or not self.active,
            "available": not self.problem,
            "problem": self.problem,
        }

    def blocked_note(self, output: str, failed: bool) -> str:
        """What to tell the model when a failed command looks stopped by the sandbox."""
        if not (self.active and failed and _BLOCKED.search(output)):
            return ""
        return (
            f"[this command ran in the sandbox — {self.policy.describe()}. If it failed "
            'because of that, run it again with "sandbox": false: the user will be asked]'
        )


def start(
    mode: str,
    roots: list[Path],
    *,
    network: bool = False,
    extra: tuple[Path, ...] = (),
    hooks: bool = False,
    mcp: bool = False,
) -> Sandbox:
    """The session's sandbox, probed once: a sandbox the kernel refuses is reported, not used."""
    make_policy(mode, roots, network, extra)  # a bad mode fails here, at start
    box = Sandbox(mode, tuple(roots), network, extra, hooks=hooks, mcp=mcp)
    if mode == "off":
        return box
    if sys.platform.startswith("linux"):
        from agent.sandbox.linux import find_bwrap, probe

        runner = find_bwrap()
        box.runner, box.problem = runner or "", probe(runner)
    elif sys.platform == "darwin":
        if not Path("/usr/bin/sandbox-exec").exists():
            box.problem = "sandbox-exec is missing on this Mac; set sandbox.mode to off"
    else:
        box.problem = f"no sandbox on {sys.platform}; set sandbox.mode to off"
    return box


def for_session(cfg: Config) -> Sandbox:
    """The sandbox of a session: `--sandbox`, else the `sandbox` setting, else the platform's
    default; the project root, the working directory and the approved extra directories
    (permissions.additionalDirectories, approvedDirs) are its writable roots."""
    s = cfg.options.sandbox
    mode = cfg.sandbox_flag or s.mode or default_mode()
    perms = cfg.permissions
    dirs = [*perms.get("additionalDirectories", ()), *perms.get("approvedDirs", ())]
    extra = tuple(cfg.root / os.path.expanduser(d) for d in dirs)
    roots = [cfg.root, cfg.cwd]
    return start(mode, roots, network=s.network, extra=extra, hooks=s.hooks, mcp=s.mcp)


def sandbox_of(obj: object | None) -> Sandbox | None:
    """ToolContext.sandbox, typed."""
    return obj if isinstance(obj, Sandbox) else None
