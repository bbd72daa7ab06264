"""The shapes of a session file's records that more than one reader checks: a session file is
data from disk (one planted in a repository can say anything), so a record of another shape
is skipped, never trusted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard


def is_int(value: object) -> TypeGuard[int]:
    """A JSON integer (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Snap:
    """A snapshot record, its fields of the shapes the agent writes."""

    n: int
    path: str
    blob: str | None  # None: the file was absent
    mode: int | None


def snap_of(rec: dict[str, Any]) -> Snap | None:
    """The snapshot record's fields; None for a record of another shape (skipped)."""
    n, path, blob, mode = rec.get("n"), rec.get("path"), rec.get("blob"), rec.get("mode")
    if not is_int(n) or not isinstance(path, str) or not (blob is None or isinstance(blob, str)):
        return None
    return Snap(n, path, blob, mode if is_int(mode) and mode >= 0 else None)


def written_of(rec: dict[str, Any]) -> tuple[str, str | None] | None:
    """A `written` record's (path, hash of what was there after the call); None: malformed."""
    path, digest = rec.get("path"), rec.get("hash")
    if not isinstance(path, str) or not (digest is None or isinstance(digest, str)):
        return None
    return path, digest
