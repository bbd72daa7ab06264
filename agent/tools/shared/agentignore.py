"""Ignore files for the agent's searches: `.agentignore` and the ones other coding agents read
(`.claudeignore`, `.aiderignore`, `.cursorignore`, `.codeiumignore`), in gitignore syntax.

A search filter on top of what ripgrep already skips, not a permission: glob, grep, `@file`
completion, `@dir` and a read_file of a directory leave out what they hide; a read of a hidden
file by name still works. The rules are git's: an ignore file applies below its own directory,
its patterns relative to that directory; the nearest directory with a matching line decides
(the last matching line of its files, read in IGNORE_FILES order); an ignored directory hides
everything below it, so no `!` brings back a file inside it. A `!` only undoes an agent-ignore
rule: nothing gitignored comes back. Paths are relative to a base directory (the one searched
or listed): it and the directories above it count as visible (naming a hidden directory
searches it, as ripgrep does with a gitignored one). Ignore files are read from the top (the
workspace) down, none above it.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

from agent.base.record import cap
from agent.base.words import plural
from agent.tools.shared.gitglob import IgnoreRules, compile_any

IGNORE_FILES = (".agentignore", ".claudeignore", ".aiderignore", ".cursorignore", ".codeiumignore")
MAX_BYTES = 1 << 20  # of one ignore file: the rest of a larger one is not read
LISTING_CAP = 500  # entries of one directory read
# The ignore rules that apply inside one directory, nearest first: (the directory of the ignore
# files, relative to the top: "" or "a/b/"; their combined rules; their names).
Chain = tuple[tuple[str, IgnoreRules, str], ...]


def _inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


class _Scope:
    """The rules that apply inside one directory, and two regexes that say in C whether any of
    them can match a file (for most files none does): one over the file name alone for the
    rules that match at any depth, one over the whole path for the rest."""

    __slots__ = ("chain", "empty", "names", "paths", "sure")

    def __init__(self, chain: Chain) -> None:
        self.chain = chain
        names: list[str] = []
        paths: list[str] = []
        for d, rules, _ in chain:
            for rule in rules.rules:
                if rule.only_dir:
                    continue  # never matches a file
                if rule.name is not None:
                    names.append(rule.name)
                else:
                    paths.append(re.escape(d) + f"(?:{rule.regex.pattern})")
        self.names, self.paths = compile_any(names), compile_any(paths)
        self.empty = not (names or paths)  # no rule can match a file here
        self.sure = not any(rules.whitelists for _, rules, _ in chain)  # no `!`: a match hides

    def hides_file(self, rel: str, cut: int, prefix: str) -> bool:
        """Whether file `rel` (below the base, which is `prefix` below the top; its last `/`
        at `cut`) is hidden: the two regexes decide most files, in C."""
        if (self.names is None or self.names.fullmatch(rel, cut + 1) is None) and (
            self.paths is None or self.paths.fullmatch(prefix + rel) is None
        ):
            return False
        return self.sure or bool(self.hides(prefix + rel, False))

    def hides(self, path: str, is_dir: bool) -> str:
        """The names of the ignore files hiding top-relative `path`, or "": the nearest
        directory with a matching line decides (a `!` there: not hidden)."""
        for d, rules, names in self.chain:
            found = rules.match(path[len(d) :], is_dir)
            if found is not None:
                return names if found else ""
        return ""


class AgentIgnore:
    """Answers whether a path below `base` is hidden by the ignore files from `top` down;
    caches per directory, so filtering thousands of paths costs a few stats per directory."""

    def __init__(self, top: Path | str, base: Path | str | None = None) -> None:
        self.top = os.path.abspath(top)
        listed = os.path.abspath(base) if base is not None else self.top
        if not _inside(listed, self.top):
            self.top = listed  # nothing above the base is read then
        rel = os.path.relpath(listed, self.top).replace(os.sep, "/")
        self.prefix = "" if rel == "." else rel + "/"  # the base, relative to the top
        self.real_top = os.path.realpath(self.top)
        chain: Chain = ()
        parts = self.prefix.split("/")[:-1]
        for i in range(len(parts) + 1):  # the top, each directory down to the base
            chain = (*self._level("".join(p + "/" for p in parts[:i])), *chain)
        # base-relative directory: its scope, None when hidden
        self._dirs: dict[str, _Scope | None] = {"": _Scope(chain)}

    def _read(self, path: str) -> str:
        """An ignore file's text; "" when absent, not a regular file, unreadable, or a symbolic
        link leading out of the top directory (a repository must not make us read elsewhere)."""
        try:
            if not os.access(path, os.F_OK):  # the common case, cheaper than a failed stat
                return ""
            if stat.S_ISLNK(os.lstat(path).st_mode):
                path = os.path.realpath(path)
                if not _inside(path, self.real_top):
                    return ""
            # O_NONBLOCK: a FIFO planted under the name must not hang the search
            flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
            fd = os.open(path, flags)
        except (OSError, ValueError):
            return ""
        try:
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    return ""
                data = f.read(MAX_BYTES)
        except OSError:
            return ""
        return data.decode("utf-8", "replace").removeprefix("\ufeff")

    def _level(self, d: str) -> Chain:
        """The combined rules of the ignore files in top-relative directory `d` ("" or "a/")."""
        directory = self.top.rstrip(os.sep) + os.sep + d.replace("/", os.sep)
        lines: list[str] = []
        names: list[str] = []
        for name in IGNORE_FILES:
            own = self._read(directory + name).splitlines()
            if own and IgnoreRules(own).rules:
                lines += own
                names.append(name)
        return ((d, IgnoreRules(lines), "/".join(names)),) if lines else ()

    def _dir(self, d: str) -> _Scope | None:
        """The scope inside base-relative directory `d`; None when it (or a parent) is hidden."""
        missing: list[str] = []
        known = d
        while known not in self._dirs:  # "" always is
            missing.append(known)
            known = known.rpartition("/")[0]
        scope = self._dirs[known]
        for sub in reversed(missing):
            if scope is not None:
                path = self.prefix + sub
                if scope.hides(path, True):
                    scope = None
                else:
                    level = self._level(path + "/")
                    scope = _Scope((*level, *scope.chain)) if level else scope
            self._dirs[sub] = scope
        return scope

    def hidden(self, rel: str, is_dir: bool = False) -> bool:
        """Whether `rel` (relative to the base, `/`-separated) is hidden."""
        if is_dir or not rel:
            return self._dir(rel) is None  # the walker enters it next: its scope is wanted
        cut = rel.rfind("/")
        scope = self._dir(rel[:cut] if cut > 0 else "")
        return scope is None or scope.hides_file(rel, cut, self.prefix)

    def hidden_by(self, rel: str, is_dir: bool = False) -> str:
        """The names of the ignore files hiding `rel` (or a directory above it), or ""."""
        parts = rel.split("/") if rel else []
        for i in range(1, len(parts) + 1):  # each directory down from the base, then `rel`
            scope = self._dir("/".join(parts[: i - 1]))
            assert scope is not None  # the loop stops at the first hidden directory
            found = scope.hides(self.prefix + "/".join(parts[:i]), is_dir or i < len(parts))
            if found:
                return found
        return ""

    def keep(self, rels: Iterable[str]) -> list[str]:
        """The files among `rels` (relative to the base) that are not hidden."""
        dirs, prefix, kept = self._dirs, self.prefix, []
        for rel in rels:
            cut = rel.rfind("/")
            d = rel[:cut] if cut > 0 else ""
            try:
                scope = dirs[d]
            except KeyError:
                scope = self._dir(d)
            if scope is not None and (scope.empty or not scope.hides_file(rel, cut, prefix)):
                kept.append(rel)
        return kept


def note(hidden: int, by: Iterable[str], gitignored: int = 0) -> str:
    """What a listing left out, e.g. "[3 entries hidden by .agentignore; 12 by .gitignore]"."""
    seen = {name for found in by for name in found.split("/")}
    names = "/".join(name for name in IGNORE_FILES if name in seen)
    if hidden and gitignored:
        return f"[{plural(hidden, 'entry')} hidden by {names}; {gitignored:,} by .gitignore]"
    if hidden:
        return f"[{plural(hidden, 'entry')} hidden by {names}]"
    return f"[{plural(gitignored, 'entry')} hidden by .gitignore]" if gitignored else ""


def _relation(top: Path, base: Path) -> tuple[str, str] | None:
    """(top, base) when `base` lies inside `top`, as written or else once both are resolved."""
    pair = os.path.abspath(top), os.path.abspath(base)
    if _inside(pair[1], pair[0]):
        return pair
    real = os.path.realpath(top), os.path.realpath(base)
    return real if _inside(real[1], real[0]) else None


def for_search(cwd: Path, root: Path, base: Path | None = None) -> AgentIgnore:
    """The ignore files for a search of `root` that lists `base` (default: `root`): read from the
    workspace `cwd` down when the search lies inside it, else from `root` (or `base`) down."""
    listed = base if base is not None else root
    for top in (cwd, root):
        pair = _relation(top, listed)
        if pair is not None:
            return AgentIgnore(*pair)
    return AgentIgnore(listed)


def listing(
    entries: Iterable[tuple[str, bool, bool, bool]],
    hide: AgentIgnore,
    label: str,
    limit: int = LISTING_CAP,
) -> tuple[str, int]:
    """A directory's `entries` (walk.Walker.children) as a search sees them: sorted, directories
    with a trailing `/`; gitignored and `hide`-den entries left out and counted, `.git` silently.
    Returns (text, entries shown)."""
    names: list[str] = []
    by: list[str] = []  # the ignore files that hid each hidden entry
    gitignored = 0
    for name, is_dir, shown_as_dir, ignored in entries:
        if name == ".git":
            continue
        found = "" if ignored else hide.hidden_by(name, is_dir)
        if ignored:
            gitignored += 1
        elif found:
            by.append(found)
        else:
            names.append(name + ("/" if shown_as_dir else ""))
    names.sort()
    header = f"{label}/: {plural(len(names), 'entry')} (one level; directories end in /)"
    notes = [note(len(by), by, gitignored)] if by or gitignored else []
    if len(names) > limit:
        more = f"use glob with path={label!r} to find files in it"
        notes.insert(0, f"[{len(names) - limit} more entries not shown; {more}]")
    text = "\n".join([header, *names[:limit], *([""] if notes else []), *notes])
    return cap(text, how_to_see_more=f"use glob with path={label!r}"), min(len(names), limit)
