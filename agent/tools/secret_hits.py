"""Search results never show what secret files hold: `.env`, keys, credential stores, the
agent's own sessions and audit log are dropped from grep's hits and named in a note."""

from __future__ import annotations

import os
from pathlib import Path

from agent.permissions.paths import home_secrets, secret_name, secret_path
from agent.tools.pygrep import FileHits

# Every secret file name (paths.SECRET_NAMES) starts with "." "_" or "id_", or ends with one of
# these suffixes: a list of "/path" lines without any of the marks holds no secret file.
_SECRET_MARKS = (
    "/.", "/_", "/id_", ".pem\n", ".key\n", ".p12\n", ".pfx\n",
    "/credentials", "/service-account", "/client_secret", "/rclone.conf",
)  # fmt: skip


def hide_secrets(hits: list[FileHits], root: Path | None = None) -> tuple[list[FileHits], str]:
    """A directory search never shows what `.env`, keys or credential files contain: those
    hits are dropped and named in a note, so the model can ask for one with read_file (which
    asks the user). Given the searched `root`, so are sessions, the audit log and the home
    directory's credential stores (paths.secret_path) — unless the root lies inside one: the
    permission layer has asked about that path."""
    paths = "\n/" + "\n/".join([h.path for h in hits]) + "\n"
    top = os.path.realpath(root) if root is not None else ""
    # Records and credential stores all sit below a hidden directory (`.agent`, `.ssh`, …): with
    # none in the root's path or in any hit's, only the names can make a hit secret.
    if "/." not in top and not any(mark in paths for mark in _SECRET_MARKS):  # found in C
        return hits, ""
    home = os.path.realpath(os.path.expanduser("~"))
    place, dot_home = home_secrets(home), home.rstrip("/") + "/."  # every store is hidden
    where = "" if not top or secret_path(top, place) else top.rstrip("/") + "/"
    kept: list[FileHits] = []
    skipped: list[str] = []
    for h in hits:
        full = where + h.path
        if secret_name(h.path.rsplit("/", 1)[-1]) or (
            where and ("/.agent/" in full or full.startswith(dot_home)) and secret_path(full, place)
        ):
            skipped.append(h.path)
        else:
            kept.append(h)
    if not skipped:
        return hits, ""
    names = ", ".join(skipped[:5]) + (" …" if len(skipped) > 5 else "")
    return kept, (
        f"\n[matches in {len(skipped)} file(s) that may hold secrets are not shown: {names}; "
        "read one with read_file, which asks the user]"
    )
