"""Search results never show what secret files hold: `.env`, keys, credential stores, the
agent's own sessions and audit log are dropped from grep's hits and named in a note; the
indexers (the repository map, outline, symbols) read none of the files read_file asks about."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from agent.permissions.paths import (
    PROTECTED_DIRS,
    SECRET_NAMES,
    Workspace,
    protected,
    secret_name,
)
from agent.tools.shared.walk import FileHits

# Every secret file name (paths.SECRET_NAMES) starts with "." "_" or "id_", or ends with one of
# these suffixes: a list of "/path" lines without any of the marks holds no secret file.
_SECRET_MARKS = (
    "/.", "/_", "/id_", ".pem\n", ".key\n", ".p12\n", ".pfx\n",
    "/credentials", "/service-account", "/client_secret", "/rclone.conf",
)  # fmt: skip
# The marks find every secret name, and every other protected path lies below a hidden folder.
assert all(any(m in f"/{p.replace('*', 'x')}\n" for m in _SECRET_MARKS) for p in SECRET_NAMES)
assert all(d.startswith(".") for d in PROTECTED_DIRS)


def hide_secrets(hits: list[FileHits], root: Path | None = None) -> tuple[list[FileHits], str]:
    """A directory search never shows what `.env`, keys or credential files contain: those
    hits are dropped and named in a note, so the model can ask for one with read_file (which
    asks the user). Given the searched `root`, so is every other path read_file asks about
    first (paths.protected: sessions, the audit log, the agent's settings, `.git/`, the home
    directory's credential stores) — unless the root lies inside one: the permission layer has
    asked about that path."""
    paths = "\n/" + "\n/".join([h.path for h in hits]) + "\n"
    top = os.path.realpath(root) if root is not None else ""
    # Records and credential stores all sit below a hidden directory (`.agent`, `.ssh`, …): with
    # none in the root's path or in any hit's, only the names can make a hit secret.
    if "/." not in top and not any(mark in paths for mark in _SECRET_MARKS):  # found in C
        return hits, ""
    home = os.path.realpath(os.path.expanduser("~"))
    ws = Workspace.make(Path(top or "/"), home=Path(home))
    where = "" if not top or protected(top, ws) else top.rstrip("/") + "/"
    kept: list[FileHits] = []
    skipped: list[str] = []
    for h in hits:
        full = where + h.path
        # read_file's own rule (paths.protected): every protected path is hidden or a secret
        if secret_name(h.path.rsplit("/", 1)[-1]) or (
            where and "/." in full and protected(full, ws)
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


def readable(rels: list[str], root: Path | str, ws: Workspace) -> tuple[list[str], list[str]]:
    """The files below `root` (relative paths) that read_file reads without asking, and those
    it asks about first — by the gate's own rule, paths.protected: a secret's name (`.env.*`,
    keys, credentials), `.git`, the agent's settings and records, the home's credential
    stores. The indexers read only the first: no definition or name of the second reaches the
    model unless the user lets the model read that file. `root` is judged as named and as
    resolved, as the gate judges a path."""
    top = os.path.abspath(root).rstrip("/")
    tops = tuple(dict.fromkeys((top, os.path.realpath(top).rstrip("/"))))
    doubtful: Iterable[str] = rels  # below a hidden folder (a home store?) any file may be
    if not any("/." in t or t.startswith("/proc") for t in tops):
        doubtful = _marked("\n/" + "\n/".join(rels) + "\n", len(rels), rels)
    asked = {rel for rel in doubtful if any(protected(f"{t}/{rel}", ws) for t in tops)}
    if not asked:
        return rels, []
    return [r for r in rels if r not in asked], [r for r in rels if r in asked]


def _marked(joined: str, count: int, rels: list[str]) -> set[str]:
    """The paths of `joined` (`\\n/rel` each) with a mark in them: every other one is plain
    (str.find runs in C; a tree has few marked paths). A name with a newline in it cannot be
    told apart by lines: such paths are all checked."""
    found: set[str] = set()
    for mark in _SECRET_MARKS:
        at = joined.find(mark)
        while at >= 0:
            end = joined.find("\n", at)
            found.add(joined[joined.rfind("\n", 0, at) + 2 : end])
            at = joined.find(mark, end)
    if joined.count("\n") > count + 1:
        found.update(r for r in rels if "\n" in r)
    return found


def not_denied(rels: list[str], root: Path | str, denied: tuple[str, ...]) -> list[str]:
    """`rels` (below `root`) less the files a read deny rule forbids (`denied`: absolute
    globs, Gate.read_denials), judged as named and as resolved."""
    if not denied:
        return rels
    from wcmatch import glob  # deferred: ~15 ms: only with a read deny rule

    flags = glob.GLOBSTAR | glob.DOTGLOB | glob.FORCEUNIX | glob.BRACE
    matcher = glob.compile(list(denied), flags=flags)
    top = os.path.abspath(root).rstrip("/")
    real = os.path.realpath(top).rstrip("/")
    return [r for r in rels if not matcher.match(f"{top}/{r}") and not matcher.match(f"{real}/{r}")]


def model_may_read(
    rels: list[str], root: Path | str, ws: Workspace, denied: tuple[str, ...] = ()
) -> list[str]:
    """`rels` (below `root`) less what read_file asks about first (`readable`) and what a read
    deny rule forbids (`not_denied`): what may reach the model unasked, by a map or a diff."""
    return not_denied(readable(rels, root, ws)[0], root, denied)


def shown_files(root: Path, denied: tuple[str, ...] = ()) -> Callable[[list[str]], list[str]]:
    """For a diff of the project at `root`: which of the changed files (relative) may have
    their content shown (`model_may_read`; `denied`: Gate.read_denials)."""
    ws = Workspace.make(root)
    return lambda rels: model_may_read(rels, root, ws, denied)
