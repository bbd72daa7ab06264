"""Seatbelt on macOS: the `sandbox-exec` profile (SBPL text) that runs a command under a Policy.

The same policy as bubblewrap on Linux: the whole file system is readable; writes go only to the
writable roots, the temp directories and a few devices; the protected paths inside the roots
stay read-only (existing ones and the missing ones that must stay missing), `reopen` paths are
writable again below them; no network unless the policy allows it.

Seatbelt decides by the LAST rule in the profile that matches an operation, so the order below is
the policy: allows, then the protected denies, then the reopen allows, then again the denies of
protected paths that sit below a reopen path (a worktree's own `.env`, `.agent`). Writes are
allowed and denied with the same operation, `file-write*`: a deny of a wildcard is not seen to
override an allow of a narrower operation. Paths are matched with `literal`/`subpath` on real
paths, never by regex, and each goes into the text as an escaped string literal.
"""

from __future__ import annotations

import os
import sys

from agent.sandbox.policy import Policy

SANDBOX_EXEC = "/usr/bin/sandbox-exec"  # never from PATH
_CS_DARWIN_USER_TEMP_DIR = 65537  # <unistd.h>; Python's confstr table lacks the name
SHARED_TMP = "/private/tmp"  # /tmp, as the kernel sees it
WRITE = "file-write* network-bind"  # binding a unix socket makes a file too

_BASE = """(version 1)
(deny default)
; processes: children inherit this profile
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow mach-host*)
; what libc and command-line tools ask the system for: users, logging, preferences
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.opendirectoryd.membership")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.logd")
  (global-name "com.apple.diagnosticd")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.bsd.dirhelper")
  (global-name "com.apple.cfprefsd.daemon")
  (global-name "com.apple.cfprefsd.agent")
  (local-name "com.apple.cfprefsd.agent")
  (global-name "com.apple.PowerManagement.control"))
(allow user-preference-read)
(allow ipc-posix-shm-read* (ipc-posix-name-prefix "apple.cfprefs."))
(allow ipc-posix-sem)
; terminals the command opens itself (openpty); not the agent's own terminal
(allow pseudo-tty)
(allow file-ioctl (literal "/dev/ptmx"))
(allow file-ioctl (require-all (regex #"^/dev/ttys[0-9]+$") (extension "com.apple.sandbox.pty")))
(allow file-read*)
(allow file-write* (literal "/dev/ptmx"))
(allow file-write* (require-all (regex #"^/dev/ttys[0-9]+$") (extension "com.apple.sandbox.pty")))
"""

_NETWORK = """(allow network*)
(allow system-socket)
(allow mach-lookup
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.dnssd.service")
  (global-name "com.apple.networkd")
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.trustd")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.ocspd"))
"""

# No network: the system log; with sandbox.unixSockets, unix sockets under a path the command
# may write anyway (never a Docker or ssh-agent socket elsewhere). No TCP/UDP, not even
# loopback: the host's local services are out of reach, as in the Linux network namespace.
_NO_NETWORK = """(allow system-socket (socket-domain AF_UNIX))
(allow network-outbound (literal "/private/var/run/syslog"))
"""


# Network on, unix sockets off: no service socket (Docker, ssh-agent…), but name resolution
# (mDNSResponder) and the system log still work.
_NO_UNIX_SOCKETS = """(deny network-outbound (remote unix-socket))
(allow network-outbound (remote unix-socket (path-literal "/private/var/run/mDNSResponder")))
(allow network-outbound (literal "/private/var/run/syslog"))
"""


def _hidden(policy: Policy) -> list[str]:
    """Reads denied for the hidden paths (a folder with all below it), then allowed again
    for the folders shown inside them."""
    if not policy.hidden:
        return []
    lines = ["; hidden: credential stores, the agent's own folders, what deny rules name"]
    for path in policy.hidden:
        match = "literal" if os.path.isfile(path) else "subpath"
        lines.append(_rule("deny", "file-read*", match, path))
    lines += [_rule("allow", "file-read*", "subpath", p) for p in policy.shown]
    return lines


def sbpl_string(path: str) -> str:
    """`path` as an SBPL string literal; ValueError for a path that cannot be one safely."""
    if any(c in path for c in "\0\n\r"):
        raise ValueError(f"a sandbox path cannot hold a NUL or line break: {path!r}")
    if not path.startswith("/"):
        raise ValueError(f"a sandbox path must be absolute: {path!r}")
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _rule(action: str, ops: str, match: str, path: str) -> str:
    return f"({action} {ops} ({match} {sbpl_string(path)}))"


def darwin_user_temp_dir() -> str | None:
    """The per-user temp directory (/private/var/folders/…/T), whatever TMPDIR says; some tools
    (git's xcrun cache, NSTemporaryDirectory) use it regardless. None off macOS."""
    if sys.platform != "darwin":
        return None
    for name in ("CS_DARWIN_USER_TEMP_DIR", _CS_DARWIN_USER_TEMP_DIR):
        try:
            value = os.confstr(name)
        except (ValueError, OSError):
            continue
        if value:
            return os.path.realpath(value)
    return None


def temp_dirs(tmpdir: str) -> list[str]:
    """The writable temp directories: `tmpdir`, /tmp and the per-user temp, as real paths."""
    if not tmpdir:
        raise ValueError("the sandbox needs a temp directory")
    found = [os.path.realpath(tmpdir), SHARED_TMP, darwin_user_temp_dir()]
    return list(dict.fromkeys(p for p in found if p))


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _denies(policy: Policy) -> list[tuple[str, str]]:
    """(match, path) of every write deny: the writable roots themselves and each directory
    between a root and a protected path (renaming one would carry the protected path out from
    under its rule), then the protected paths."""
    guarded = (*policy.read_only, *policy.missing, *policy.absent)
    steps: list[str] = []
    for root in policy.writable:
        steps.append(root)
        for path in guarded:
            if path != root and _under(path, root):
                parent = os.path.dirname(path)
                while parent != root and _under(parent, root):
                    steps.append(parent)
                    parent = os.path.dirname(parent)
    out = [("literal", p) for p in dict.fromkeys(steps) if p not in guarded]
    for path in guarded:  # a file is a literal; a directory, there or not, both (as Codex does)
        out.append(("literal", path))
        if not os.path.isfile(path):
            out.append(("subpath", path))
    return out


def profile(policy: Policy, tmpdir: str) -> str:
    """The SBPL profile for `policy`; `tmpdir` is the command's private temp directory."""
    if not policy.active:
        raise ValueError("the sandbox is off: there is no profile to make")
    writable = [*policy.writable, *temp_dirs(tmpdir)]
    lines = [_BASE.rstrip("\n"), "; writes: the workspace, the temp directories, the devices"]
    lines += [_rule("allow", WRITE, "subpath", p) for p in writable]
    lines += [_rule("allow", "file-write*", "literal", p) for p in ("/dev/null", "/dev/tty")]
    lines.append(_rule("allow", "file-write*", "subpath", "/dev/fd"))
    if policy.network:
        lines.append(_NETWORK.rstrip("\n"))
        if not policy.unix_sockets:
            lines.append(_NO_UNIX_SOCKETS.rstrip("\n"))
    else:
        lines.append(_NO_NETWORK.rstrip("\n"))
        if policy.unix_sockets:
            lines += [_rule("allow", "network-outbound", "subpath", p) for p in writable]
    lines += _hidden(policy)
    denies = [_rule("deny", WRITE, match, path) for match, path in _denies(policy)]
    if denies:
        lines.append("; protected: read-only, and last, so they win over the allows above")
        lines += denies
    if policy.reopen:
        lines.append("; writable again below a protected directory")
        lines += [_rule("allow", WRITE, "subpath", p) for p in policy.reopen]
        again = [
            _rule("deny", WRITE, match, path)
            for match, path in _denies(policy)
            if any(_under(path, top) for top in policy.reopen)
        ]
        if again:
            lines.append("; protected paths inside those stay read-only")
            lines += again
    return "\n".join(lines) + "\n"


def seatbelt_argv(policy: Policy, command: list[str], tmpdir: str) -> list[str]:
    """`command` as it runs under `sandbox-exec` with the profile for `policy`."""
    if not command:
        raise ValueError("there is no command to run")
    if command[0].startswith("-"):  # sandbox-exec would read it as one of its own options
        raise ValueError(f"a command cannot start with '-': {command[0]!r}")
    return [SANDBOX_EXEC, "-p", profile(policy, tmpdir), *command]
