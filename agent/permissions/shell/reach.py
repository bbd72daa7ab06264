"""What a command would read below its directories: recursive searches (`grep -r`, `rg`,
`git grep --no-index`), recursive comparisons (`diff -r`, `git diff --no-index`), and the
files `git show REV:.env` prints from the repository.

A path argument is checked on its own by the policy; a recursive search also reads every file
below it, so `grep -r KEY .` must not read `.env` without asking. The arguments are read the way
each program reads them (agent/shellreach_cmds.py), then the walk mirrors the tool: grep -r
skips symlinks met on the way (-R follows them, and diff -r does), rg skips hidden entries
unless told otherwise (an include glob searches exactly the files it matches, hidden ones too)
and follows links only with -L. None honours .gitignore here (grep does not; for rg and git
that errs on the side of asking). A tree too large to check is reported as unknown.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from agent.permissions.paths import (
    AGENT_RECORDS,
    Workspace,
    check,
    protected,
    secret_name,
    secret_path,
    within,
)
from agent.permissions.shell.parse import Command
from agent.permissions.shell.reach_cmds import IGNORE_FILES, Plan, git_object_read, plan, unhides

MAX_ENTRIES = 50_000  # directory entries looked at before giving up (node_modules-sized trees)


@dataclass(frozen=True)
class Reach:
    secret: str = ""  # why it would read a file that may hold secrets
    unsure: str = ""  # why it may read outside the workspace or could not be checked


def recursive_read(cmd: Command, ws: Workspace, bases: list[Path]) -> Reach:
    """What `cmd` would read below its directories, judged from the file system now."""
    if not cmd.argv or cmd.argv[0].value is None:
        return Reach()
    name = os.path.basename(cmd.argv[0].value)
    args = [w.value for w in cmd.argv[1:] if w.value is not None]
    secret, unsure = git_object_read(name, args)
    if secret or unsure:
        return Reach(secret, unsure)
    how = plan(name, args, str(bases[-1]))
    if how is None:
        return Reach()
    dirs, named_files = [], False
    for a in how.operands:
        p = Path(os.path.normpath(os.path.join(how.base, os.path.expanduser(a))))
        if p.is_dir():
            dirs.append(p)
        elif p.exists() or a == "-":
            named_files = True
    if not dirs and not named_files and how.cwd:
        dirs = [Path(how.base)]  # no operand (or none that exists): the working directory
    unsure = ""
    for d in dirs:
        if not check(str(d), ws).inside:
            continue  # the path check already asks about it
        reach = _walk(d, ws, how)
        if reach.secret:
            return reach  # a secret in any operand, even after one that was only unsure
        unsure = unsure or reach.unsure
    return Reach(unsure=unsure)


def _unhides(directory: str) -> bool:
    """Whether an ignore file here whitelists hidden entries, which rg then searches."""
    return any(unhides(os.path.join(directory, n)) for n in IGNORE_FILES)


def _unhidden(top: Path, ws: Workspace) -> bool:
    """Whether ignore files from the root down to `top` whitelist hidden entries."""
    return any(_unhides(str(d)) for d in (top, *top.parents) if within(str(d), ws.dirs))


def _through_link(
    e: os.DirEntry[str], how: Plan, ws: Workspace, seen: set[str]
) -> tuple[Reach | None, str, str]:
    """A link met on the walk: (the secret it reaches, why it leaves the workspace, the real
    directory to walk into next — "" for none)."""
    real = os.path.realpath(e.path)
    if not how.recursive and os.path.isdir(real):
        return None, "", ""  # diff without -r: a subdirectory is only named
    why = protected(real, ws) or ("may hold secrets" if secret_name(e.name) else "")
    if why:
        return Reach(secret=f"{how.tool} would follow {_rel(e.path, ws)}: {why}"), "", ""
    if not within(real, ws.dirs):
        return None, f"{how.tool} follows {_rel(e.path, ws)} outside the workspace", ""
    if how.recursive and os.path.isdir(real) and real not in seen:
        seen.add(real)
        return None, "", real
    return None, "", ""


def _walk(top: Path, ws: Workspace, how: Plan) -> Reach:
    """The first secret file met (by name, or by place: paths.protected, recognised through
    links by the real paths carried along); else why the walk left the workspace or gave up.
    With rg's include globs every directory is entered and only matching files count."""
    name, globs = how.tool, [_glob(g, fold) for g, fold in how.globs]
    real_top = os.path.realpath(top)
    why = protected(real_top, ws)
    if why:
        return Reach(secret=f"{name} would read {_rel(str(top), ws)}: {why}")
    hidden = how.hidden or bool(globs) or _unhidden(top, ws)
    stack = [(str(top), real_top, hidden)]
    seen, looked, unsure = {real_top}, 0, ""
    places = {secret for secret, _ in ws.home_secrets}
    while stack:
        directory, real_dir, shown = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        if not shown and any(e.name in IGNORE_FILES for e in entries):
            shown = _unhides(directory)
        for e in entries:
            looked += 1
            if looked > MAX_ENTRIES:
                return Reach(unsure=f"{name} reads more than {MAX_ENTRIES} files below {top}")
            if e.name == ".git" or (not shown and e.name.startswith(".")) or _skipped(e, how):
                continue
            if not how.recursive and e.is_dir(follow_symlinks=False):
                continue
            real = os.path.join(real_dir, e.name)
            if e.is_symlink():
                if how.follow:
                    found, leaves, into = _through_link(e, how, ws, seen)
                    if found is not None:
                        return found
                    unsure = unsure or leaves
                    if into:
                        stack.append((e.path, into, shown))
                continue
            if globs:  # places are judged file by file, and only the files rg would search
                found = _globbed(e, real, how, (str(top), globs), ws, stack, shown)
                if found is not None:
                    return found
                continue
            found = _secret_entry(e, real, name, ws, places)
            if found is not None:
                return found
            if e.is_dir(follow_symlinks=False):
                stack.append((e.path, real, shown))
    return Reach(unsure=unsure)


def _skipped(e: os.DirEntry[str], how: Plan) -> bool:
    """An entry the command's own filters leave out: a directory it does not enter, a file it
    excludes (unless an include glob names it as well: then it counts, erring on asking)."""
    try:
        is_dir = e.is_dir()
    except OSError:
        return False
    if is_dir:
        return any(_name_glob(g).fullmatch(e.name) for g in how.skip_dirs)
    if not any(_name_glob(g).fullmatch(e.name) for g in how.skip_files):
        return False
    return not any(_name_glob(g).fullmatch(e.name) for g, _ in how.globs)


@functools.lru_cache(maxsize=256)
def _name_glob(glob: str) -> re.Pattern[str]:
    return _glob(glob, False)[0]


def _globbed(
    e: os.DirEntry[str],
    real: str,
    how: Plan,
    search: tuple[str, list[Glob]],
    ws: Workspace,
    stack: list[tuple[str, str, bool]],
    shown: bool,
) -> Reach | None:
    """An entry of a walk with rg's include globs: a directory is entered, a file counts only
    when rg would search it."""
    if e.is_dir(follow_symlinks=False):
        stack.append((e.path, real, shown))
        return None
    top, globs = search
    why = secret_path(real, ws.home_secrets) if _searched(e.path, top, how.base, globs) else ""
    return _found(how.tool, e.path, why, ws) if why else None


def _secret_entry(
    e: os.DirEntry[str], real: str, name: str, ws: Workspace, places: set[str]
) -> Reach | None:
    """What a plain entry of the walk reveals: a protected place, or a secret file's name."""
    if e.name in AGENT_RECORDS or real in places:  # cheap tests first: most entries
        why = protected(real, ws)
        if why:
            return Reach(secret=f"{name} would read {_rel(e.path, ws)}: {why}")
    if not e.is_dir(follow_symlinks=False) and secret_name(e.name):
        return _found(name, e.path, "", ws)
    return None


Glob = tuple[re.Pattern[str], bool]


def _searched(path: str, top: str, base: str, globs: list[Glob]) -> bool:
    """With include globs rg searches exactly the files matching one, hidden or not: a glob
    without `/` matches the name, one with `/` the path from the working directory (tried
    from the searched directory too, and `*` crossing `/`: erring on asking)."""
    name = os.path.basename(path)
    rels = (os.path.relpath(path, top), os.path.relpath(path, base))
    return any(
        any(g.fullmatch(r) for r in rels) if anchored else g.fullmatch(name)
        for g, anchored in globs
    )


def _glob(glob: str, fold: bool) -> Glob:
    """rg's glob as a regex (`*` matches a leading dot; `**/`, `{a,b}`, `[!a]`, `\\*`), and
    whether it is matched against the path rather than the name."""
    anchored = "/" in glob.rstrip("/")
    glob = glob.lstrip("/") if anchored else glob.rstrip("/")
    out, depth, i = [], 0, 0
    while i < len(glob):
        c, i = glob[i], i + 1
        if c == "\\" and i < len(glob):
            out.append(re.escape(glob[i]))
            i += 1
        elif c == "*" and glob[i : i + 2] == "*/" and (i == 1 or glob[i - 2] == "/"):
            out.append("(?:.*/)?")
            i += 2
        elif c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[" and (end := glob.find("]", i + 1 + (glob[i : i + 1] in ("!", "^")))) > 0:
            body = glob[i:end]
            neg = body[:1] in ("!", "^")
            body = "".join("\\" + b if b in "\\[]^&~|" else b for b in body[neg:])
            out.append(f"[{'^' if neg else ''}{body}]")
            i = end + 1
        elif c == "{":
            out.append("(?:")
            depth += 1
        elif c == "}" and depth:
            out.append(")")
            depth -= 1
        elif c == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(c))
    pattern = "".join(out) + ")" * depth
    return re.compile(pattern, re.IGNORECASE if fold else 0), anchored


def _found(name: str, path: str, why: str, ws: Workspace) -> Reach:
    if not why or secret_name(os.path.basename(path)):
        return Reach(secret=f"{name} would read {_rel(path, ws)}, which may hold secrets")
    return Reach(secret=f"{name} would read {_rel(path, ws)}: {why}")


def _rel(path: str, ws: Workspace) -> str:
    return os.path.relpath(path, ws.root)
