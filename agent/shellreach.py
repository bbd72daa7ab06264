"""What a recursive search command (`grep -r`, `rg`) would read below its directories.

A path argument is checked on its own by the policy; a recursive search also reads every file
below it, so `grep -r KEY .` must not read `.env` without asking. The walk mirrors the tool:
grep -r skips symlinks met on the way (-R follows them), rg skips hidden entries unless told
otherwise and follows links only with -L. Neither honours .gitignore here (grep does not; for
rg that errs on the side of asking). A tree too large to check is reported as unknown.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from pathlib import Path

from agent.paths import Workspace, check, protected, secret_name, within
from agent.shellparse import Command

GREPS = frozenset({"grep", "egrep", "fgrep"})
MAX_ENTRIES = 50_000  # directory entries looked at before giving up (node_modules-sized trees)


@dataclass(frozen=True)
class Reach:
    secret: str = ""  # why it would read a file that may hold secrets
    unsure: str = ""  # why it may read outside the workspace or could not be checked


def _shorts(args: list[str]) -> str:
    """The letters of every short-option cluster (`-rn` → "rn")."""
    return "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))


def _how(name: str, args: list[str]) -> tuple[bool, bool] | None:
    """(follows links, sees hidden entries) for a recursive search, None for anything else."""
    shorts = _shorts(args)
    if name in GREPS:
        recursive = (
            bool({"r", "R"} & set(shorts))
            or bool({"--recursive", "--dereference-recursive", "--directories=recurse"} & set(args))
            or any(a == "-d" and b == "recurse" for a, b in itertools.pairwise(args))
        )
        follow = "R" in shorts or "--dereference-recursive" in args
        return (follow, True) if recursive else None
    if name == "rg":
        hidden = "--hidden" in args or "." in shorts or "uu" in shorts
        follow = "L" in shorts or "--follow" in args
        return follow, hidden
    return None


def recursive_read(cmd: Command, ws: Workspace, bases: list[Path]) -> Reach:
    """What the recursive search `cmd` would read, judged from the file system now."""
    if not cmd.argv or cmd.argv[0].value is None:
        return Reach()
    name = os.path.basename(cmd.argv[0].value)
    args = [w.value for w in cmd.argv[1:] if w.value is not None]
    how = _how(name, args)
    if how is None:
        return Reach()
    follow, hidden = how
    base = bases[-1]
    dirs, named_files = [], False
    for a in args:
        if a.startswith("-"):
            continue
        p = Path(os.path.normpath(os.path.join(base, os.path.expanduser(a))))
        if p.is_dir():
            dirs.append(p)
        elif p.exists():
            named_files = True
    if not dirs and not named_files:
        dirs = [Path(base)]  # no operand: the working directory
    for d in dirs:
        if not check(str(d), ws).inside:
            continue  # the path check already asks about it
        reach = _walk(d, ws, follow, hidden, name)
        if reach.secret or reach.unsure:
            return reach
    return Reach()


def _walk(top: Path, ws: Workspace, follow: bool, hidden: bool, name: str) -> Reach:
    """The first secret file met; else why the walk left the workspace or gave up."""
    stack, seen, looked, unsure = [str(top)], {os.path.realpath(top)}, 0, ""
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for e in entries:
            looked += 1
            if looked > MAX_ENTRIES:
                return Reach(unsure=f"{name} reads more than {MAX_ENTRIES} files below {top}")
            if e.name == ".git" or (not hidden and e.name.startswith(".")):
                continue
            if e.is_symlink():
                if not follow:
                    continue
                real = os.path.realpath(e.path)
                why = protected(real, ws) or ("may hold secrets" if secret_name(e.name) else "")
                if why:
                    return Reach(secret=f"{name} would follow {_rel(e.path, ws)}: {why}")
                if not within(real, ws.dirs):
                    unsure = unsure or f"{name} follows {_rel(e.path, ws)} outside the workspace"
                elif os.path.isdir(real) and real not in seen:
                    seen.add(real)
                    stack.append(e.path)
                continue
            if e.is_dir(follow_symlinks=False):
                stack.append(e.path)
            elif secret_name(e.name):
                return Reach(secret=f"{name} would read {_rel(e.path, ws)}, which may hold secrets")
    return Reach(unsure=unsure)


def _rel(path: str, ws: Workspace) -> str:
    return os.path.relpath(path, ws.root)
