"""Why a tool call failed, typed: what the audit log records and `--verbose` shows beside the
error text the model reads (that text says what to do; this says what happened)."""

from __future__ import annotations

from typing import Literal

# tool: the tool refused or could not do it (its own error); arguments: the call's arguments
# cannot be taken; system: the operating system refused (a file, a process); invalid: the call
# was malformed or repeated and did not run; unavailable: the tool is gone (an MCP server
# died); crash: a bug in the tool; layer: a layer around the tool failed (a hook, the audit,
# a checkpoint)
FailureKind = Literal["tool", "arguments", "system", "invalid", "unavailable", "crash", "layer"]


class Failure:
    __slots__ = ("can_retry", "error", "kind")

    def __init__(
        self, kind: FailureKind, can_retry: bool, error: BaseException | None = None
    ) -> None:
        self.kind, self.can_retry = kind, can_retry
        self.error = error  # the exception caught, when one was

    def __repr__(self) -> str:
        return f"Failure({self.summary()!r}, can_retry={self.can_retry})"

    def summary(self) -> str:
        """`kind`, and the exception's type and message when there was one."""
        if self.error is None:
            return self.kind
        return f"{self.kind}: {type(self.error).__name__}: {self.error}"
