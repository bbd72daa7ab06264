"""The permission modes and the sandbox modes: each written once, as a Literal type, with the
tuple of its values that settings, flags, the REPL and editors offer and check against.

It imports only `typing`: `agent --help` lists the modes without loading the settings code.
"""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

PermissionMode = Literal["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"]
MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)
# What an untrusted project's settings may choose: only modes that ask at least as often
TIGHTER_MODES: tuple[PermissionMode, ...] = ("default", "plan", "dontAsk")

SandboxMode = Literal["off", "read-only", "workspace-write"]
SANDBOX_MODES: tuple[SandboxMode, ...] = get_args(SandboxMode)


def is_mode(value: object) -> TypeGuard[PermissionMode]:
    return value in MODES


def is_sandbox_mode(value: object) -> TypeGuard[SandboxMode]:
    return value in SANDBOX_MODES
