"""Which files a bash command would delete, so /rewind can bring them back (SPEC §8).

`doomed(command, cwd, ws)` reads the command with the real shell parser and, for the simple
commands `rm`, `unlink`, `git rm`, `mv` and `git mv` (their sources: they disappear from where
they were), lists the regular files inside the workspace that exist now; `rm -r` (and a moved
directory) adds the regular files below a directory, within a budget (MAX_FILES / MAX_BYTES per
call; a directory over it is not snapshotted and is reported instead). Words the shell decides at
run time are skipped; unquoted globs are expanded as the shell would when that is cheap. Symlinks
are skipped (removing one does not touch its target), so is anything outside the workspace.

Best effort by design: `cd DIR` earlier on the line moves the base for what follows; wrappers
(`sudo rm`, `xargs rm`, `timeout 5 rm`) are looked through; other ways of deleting (`find
-delete`, scripts, `git clean`, `> file`) are not seen. Snapshotting a file a command did not
delete costs nothing at rewind time: its content is unchanged, there is nothing to restore.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from agent.paths import Workspace, check, expand_glob, lexical
from agent.shellparse import Word, parse
from agent.shellrisk import WRAPPERS

MAX_FILES = 200  # files snapshotted for one bash call
MAX_BYTES = 20 << 20  # bytes snapshotted for one bash call
DELETERS = frozenset({"rm", "unlink", "mv", "git"})
PEEL = WRAPPERS - {"eval", "source", ".", "trap", "alias", "fc", "let"}
_MAYBE = re.compile(r"rm|unlink|mv")  # every deleting command line contains one of these


@dataclass
class Doomed:
    """Files to snapshot before the command runs, and what was too large to snapshot."""

    files: dict[Path, os.stat_result] = field(default_factory=dict)  # resolved path -> lstat
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    _bytes: int = 0


def doomed(command: str, cwd: Path, ws: Workspace | None = None) -> Doomed | None:
    """What `command` may delete (None: no deleting program in it, the usual case).
    `ws` defaults to `cwd` as the workspace."""
    if not _MAYBE.search(command):
        return None
    out: Doomed | None = None
    base: Path | None = cwd
    for cmd in parse(command).commands:
        argv = cmd.argv
        if argv and argv[0].value in ("cd", "pushd") and not cmd.nested:
            base = _cd(argv, base)
            continue
        argv = _unwrap(argv)
        if argv and _name(argv[0]) in DELETERS:
            out = out or Doomed()
            ws = ws or Workspace.make(cwd)
            _command(argv, base, ws, out)
    return out


def _name(word: Word) -> str:
    return (word.value or "").rsplit("/", 1)[-1]


def _cd(argv: list[Word], base: Path | None) -> Path | None:
    """Where `cd DIR` leaves later commands (None: not known)."""
    args = [w.value for w in argv[1:] if w.value != "--"]
    if base is None or len(args) != 1 or args[0] is None or args[0].startswith(("-", "~")):
        return None
    return lexical(args[0], base)


def _unwrap(argv: list[Word]) -> list[Word]:
    """The deleting command inside wrappers (`sudo rm x`, `timeout 5 rm x`), else argv."""
    if not argv or _name(argv[0]) not in PEEL:
        return argv
    for i in range(1, len(argv)):
        if _name(argv[i]) in DELETERS:
            return argv[i:]
    return []


def _command(argv: list[Word], base: Path | None, ws: Workspace, out: Doomed) -> None:
    name, args = _name(argv[0]), argv[1:]
    if name == "git":
        args, base = _git_globals(args, base)
        if not args or args[0].value not in ("rm", "mv"):
            return
        name, args = f"git {args[0].value}", args[1:]
    moves = name in ("mv", "git mv")
    opts, operands = _split(args, with_value=("-t", "-S") if name == "mv" else ())
    flags = "".join(o[1:] for o in opts if not o.startswith("--"))
    longs = {o.split("=", 1)[0] for o in opts if o.startswith("--")}
    if name.startswith("git") and ("n" in flags or "--dry-run" in longs):
        return
    if name == "git rm" and ("--cached" in longs or "--pathspec-from-file" in longs):
        return  # --cached keeps the worktree file
    # A moved directory's files leave it too; rm and git rm need -r for a directory.
    recursive = moves or "r" in flags or "R" in flags or "--recursive" in longs
    if moves and not any(o.startswith(("-t", "--target")) for o in opts):
        operands = operands[:-1]  # the last one is the destination
    for word in operands:
        if word.value is None or (base is None and not word.value.startswith("/")):
            continue
        at = base or Path("/")
        for raw in _expand(word, at, out):
            _add(raw, at, ws, recursive, out)


def _git_globals(args: list[Word], base: Path | None) -> tuple[list[Word], Path | None]:
    """Skip git's own options; `-C DIR` moves the base."""
    i = 0
    while i < len(args) and (args[i].value or "-").startswith("-"):
        a = args[i].value
        if a is None or a.startswith(("--git-dir", "--work-tree")):
            return [], base  # another repository or worktree: not followed
        if a == "-C":
            nxt = args[i + 1].value if i + 1 < len(args) else None
            base = lexical(nxt, base) if nxt is not None and base is not None else None
        i += 2 if a in ("-C", "-c", "--namespace", "--exec-path") else 1
    return args[i:], base


def _split(args: list[Word], with_value: tuple[str, ...]) -> tuple[list[str], list[Word]]:
    """Options and operands (`--` ends options; a word decided at run time is an operand)."""
    opts: list[str] = []
    operands: list[Word] = []
    it = iter(args)
    for w in it:
        a = w.value
        if a == "--":
            operands += list(it)
            break
        if a is not None and a.startswith("-") and a != "-":
            value = next(it, Word(None)).value if a in with_value else ""
            opts.append(a + (value or ""))
            continue
        operands.append(w)
    return opts, operands


def _expand(word: Word, base: Path, out: Doomed) -> list[str]:
    """The names an operand stands for: itself, or what its unquoted glob matches now."""
    value = word.value or ""
    if not word.glob:
        return [value]
    hits = expand_glob(value, base, limit=MAX_FILES)
    if hits is None:
        out.skipped.append((str(lexical(value, base)), f"matches more than {MAX_FILES} names"))
        return []
    return hits


def _add(raw: str, base: Path, ws: Workspace, recursive: bool, out: Doomed) -> None:
    if "\n" in raw or not check(raw, ws, base).inside:
        return
    path = lexical(raw, base)
    try:
        st = path.lstat()
    except OSError:
        return
    real = Path(os.path.realpath(path))
    if stat.S_ISREG(st.st_mode):
        _take({real: st}, out, str(path))
    elif stat.S_ISDIR(st.st_mode) and recursive:
        _take(_below(real, out), out, str(path))


def _below(top: Path, out: Doomed) -> dict[Path, os.stat_result] | None:
    """The regular files below `top` (no symlinks followed); None when over the budget."""
    found: dict[Path, os.stat_result] = {}
    size = 0
    for root, dirs, names in os.walk(top):
        dirs.sort()
        for name in sorted(names):
            p = Path(root, name)
            try:
                st = p.lstat()
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                found[p] = st
                size += st.st_size
                if len(out.files) + len(found) > MAX_FILES or out._bytes + size > MAX_BYTES:
                    return None
    return found


def _take(files: dict[Path, os.stat_result] | None, out: Doomed, shown: str) -> None:
    size = sum(st.st_size for st in (files or {}).values())
    if files is None or len(out.files) + len(files) > MAX_FILES or out._bytes + size > MAX_BYTES:
        why = f"more than {MAX_FILES} files or {MAX_BYTES >> 20} MB to snapshot"
        out.skipped.append((shown, why))
        return
    new = {p: st for p, st in files.items() if p not in out.files}
    out.files.update(new)
    out._bytes += sum(st.st_size for st in new.values())
