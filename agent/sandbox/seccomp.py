"""A seccomp filter for bubblewrap (`--seccomp FD`): no AF_UNIX socket, no io_uring.

A socket file is reachable through a read-only mount (connecting is not a write), so neither
the read-only root nor the network namespace keeps a command from the Docker socket, the D-Bus
bus or the ssh-agent, and an abstract socket ignores the file system altogether. Refusing to
make an AF_UNIX socket closes all of them at once. A socketpair connects only the caller's own
ends and stays allowed as a stream or a sequenced-packet pair — not as a datagram pair, whose
`sendto` reaches any socket by its path; io_uring could make a socket behind the filter's back.
Another ABI than the kernel's native one (i386 or x32 on x86_64) gets no system call at all:
its socket calls could not be told apart.

The program is classic BPF, written out here (a dozen instructions) rather than taken from
libseccomp, which has no wheel: `struct sock_filter` is (u16 code, u8 jt, u8 jf, u32 k), and
the filter reads `struct seccomp_data` (int nr at 0, u32 arch at 4, u64 args[6] from 16).
"""

from __future__ import annotations

import errno
import platform
import struct
import sys

AF_UNIX = 1
SOCK_STREAM, SOCK_SEQPACKET = 1, 5  # the socketpair kinds that cannot send to an address
# (AUDIT_ARCH_*, socket, socketpair, io_uring_setup) by machine: the kernel's native ABI only
ARCHES: dict[str, tuple[int, int, int, int]] = {
    "x86_64": (0xC000003E, 41, 53, 425),
    "aarch64": (0xC00000B7, 198, 199, 425),
}
X32_BIT = 0x40000000  # x86_64: system call numbers of the x32 ABI carry this bit

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_AND_K = 0x54  # BPF_ALU | BPF_AND | BPF_K
ALLOW = 0x7FFF0000  # SECCOMP_RET_ALLOW
DENY = 0x00050000 | errno.EPERM  # SECCOMP_RET_ERRNO: "Operation not permitted"
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def machine() -> str:
    return platform.machine().lower()


def supported() -> bool:
    """Whether this machine's ABI has a filter here (elsewhere sockets are masked instead)."""
    return sys.platform.startswith("linux") and machine() in ARCHES


def program(arch: str | None = None) -> bytes:
    """The filter for `arch` (this machine's by default), as bwrap reads it from its fd."""
    name = arch or machine()
    audit, socket_nr, pair_nr, uring_nr = ARCHES[name]
    low = 0 if sys.byteorder == "little" else 4  # an argument's low word: the values fit in it
    insns = [
        _insn(_LD_W_ABS, _ARCH),
        _insn(_JEQ_K, audit, 1, 0),
        _insn(_RET_K, DENY),  # a foreign ABI
        _insn(_LD_W_ABS, _NR),
    ]
    if name == "x86_64":
        insns += [_insn(_JSET_K, X32_BIT, 0, 1), _insn(_RET_K, DENY)]
    insns += [
        _insn(_JEQ_K, uring_nr, 0, 1),
        _insn(_RET_K, DENY),
        _insn(_JEQ_K, socket_nr, 2, 0),  # → the domain check
        _insn(_JEQ_K, pair_nr, 5, 0),  # → the kind check
        _insn(_RET_K, ALLOW),
        # socket(domain, …): no AF_UNIX
        _insn(_LD_W_ABS, _ARG0 + low),
        _insn(_JEQ_K, AF_UNIX, 0, 1),
        _insn(_RET_K, DENY),
        _insn(_RET_K, ALLOW),
        # socketpair(AF_UNIX, type, …): a datagram pair could send to any socket's path
        _insn(_LD_W_ABS, _ARG1 + low),
        _insn(_AND_K, 0xF),  # the kind, without SOCK_NONBLOCK / SOCK_CLOEXEC
        _insn(_JEQ_K, SOCK_STREAM, 2, 0),
        _insn(_JEQ_K, SOCK_SEQPACKET, 1, 0),
        _insn(_RET_K, DENY),
        _insn(_RET_K, ALLOW),
    ]
    return b"".join(insns)
