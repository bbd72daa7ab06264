"""Which files a bash command would delete or write over, for /rewind to bring back (SPEC §8).

`doomed(command, cwd, ws)` reads the command with the real shell parser and lists the regular
files inside the workspace that exist now and that the line may remove or replace:
- `rm`, `unlink`, `git rm`, and the sources of `mv` and `git mv` (they disappear from where
  they were); `rm -r` (and a moved directory) adds the regular files below a directory;
- what `mv`, `git mv`, `cp` and `install` write over: the destination file, or DIR/<name of
  each source> when the destination is a directory (`-t DIR` too); for `cp -r`, the files below
  such a directory;
- the file a `>` (`>|`, `&>`) redirection truncates (not `>>`): one stat per redirection, and
  `cmd > file` destroys a file as surely as `rm`.
All within a budget (MAX_FILES / MAX_BYTES per call; a directory over it is not snapshotted and
is reported instead). Words the shell decides at run time are skipped; unquoted globs are
expanded as the shell would when that is cheap. Symlinks are skipped (removing or replacing one
does not touch its target), so is anything outside the workspace.

Best effort by design: `cd DIR` earlier on the line moves the base for what follows (on a
line with a `cd`, relative redirections are skipped: the parser does not tie them to a command,
so their base is not known); wrappers (`sudo rm`, `xargs rm`, `timeout 5 rm`) are looked
through; other ways of deleting (`find -delete`, scripts, `git clean`, `sed -i`) are not seen.
Snapshotting a file a command did not change costs nothing at rewind time: its content is
unchanged, there is nothing to restore.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from agent.permissions.paths import Workspace, check, expand_glob, lexical
from agent.permissions.shell.parse import Parsed, Word, parse
from agent.permissions.shell.risk import WRAPPERS

MAX_FILES = 200  # files snapshotted for one bash call
MAX_BYTES = 20 << 20  # bytes snapshotted for one bash call
DELETERS = frozenset({"rm", "unlink", "mv", "git", "cp", "install"})
WRITERS = ("mv", "git mv", "cp", "install")  # replace what is at their destination
TRUNCATE = (">", ">|", "&>", ">&")  # redirections that empty an existing file
_TARGET = ("-t", "-S", "--target-directory", "--suffix")  # options taking the next word
VALUED = {"mv": _TARGET, "cp": _TARGET, "install": (*_TARGET, "-m", "-o", "-g", "--mode")}
PEEL = WRAPPERS - {"eval", "source", ".", "trap", "alias", "fc", "let"}
_MAYBE = re.compile(r"rm|unlink|mv|cp|install|>")  # every such command line contains one


@dataclass
class Doomed:
    """Files to snapshot before the command runs, and what was too large to snapshot."""

    files: dict[Path, os.stat_result] = field(default_factory=dict)  # resolved path -> lstat
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    _bytes: int = 0


def doomed(command: str, cwd: Path, ws: Workspace | None = None) -> Doomed | None:
    """What `command` may delete or write over (None: no such program or `>` in it, the
    usual case).
    `ws` defaults to `cwd` as the workspace."""
    if not _MAYBE.search(command):
        return None
    out: Doomed | None = None
    base: Path | None = cwd
    ws = ws or Workspace.make(cwd)
    parsed, moved = parse(command), False
    for cmd in parsed.commands:
        argv = cmd.argv
        if argv and argv[0].value in ("cd", "pushd") and not cmd.nested:
            base, moved = _cd(argv, base), True
            continue
        argv = _unwrap(argv)
        if argv and _name(argv[0]) in DELETERS:
            out = out or Doomed()
            _command(argv, base, ws, out)
    # Redirections are not tied to their command here: after a `cd`, only absolute ones.
    return _redirects(parsed, None if moved else cwd, ws, out)


def _redirects(
    parsed: Parsed, base: Path | None, ws: Workspace, out: Doomed | None
) -> Doomed | None:
    """Add the existing files that `>` redirections truncate."""
    for r in parsed.redirects:
        raw = r.target.value
        if r.op not in TRUNCATE or r.fd_dup or not raw or r.target.glob:
            continue
        if base is None and not raw.startswith("/"):
            continue
        out = out or Doomed()
        _add(raw, base or Path("/"), ws, False, out)
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
    opts, operands = _split(args, with_value=VALUED.get(name, ()))
    flags = "".join(o[1:] for o in opts if not o.startswith("--"))
    longs = {o.split("=", 1)[0] for o in opts if o.startswith("--")}
    if name.startswith("git") and ("n" in flags or "--dry-run" in longs):
        return
    if name == "git rm" and ("--cached" in longs or "--pathspec-from-file" in longs):
        return  # --cached keeps the worktree file
    if name == "install" and ("d" in flags or "--directory" in longs):
        return  # makes directories
    # A moved directory's files leave it too; rm, git rm and cp need -r for a directory.
    recursive = moves or "r" in flags or "R" in flags or "--recursive" in longs
    at = base or Path("/")
    into = _into(opts)  # -t DIR
    dest = None
    if name in WRITERS and into is None and operands:
        operands, dest = operands[:-1], operands[-1]  # the last one is the destination
    sources = []
    for word in operands:
        if word.value is None or (base is None and not word.value.startswith("/")):
            continue
        sources += _expand(word, at, out)
    if name not in ("cp", "install"):  # removed, or moved away from where they were
        for raw in sources:
            _add(raw, at, ws, recursive, out)
    if name in WRITERS:
        copies = name == "cp" and (recursive or "a" in flags or "--archive" in longs)
        as_file = "T" in flags or "--no-target-directory" in longs
        _overwritten(sources, into, dest, as_file, base, ws, copies, out)


def _into(opts: list[str]) -> str | None:
    """The directory of `-t DIR` / `--target-directory[=]DIR` ("" when decided at run time)."""
    for o in opts:
        for flag in ("--target-directory=", "--target-directory", "-t"):
            if o.startswith(flag) and (flag != "-t" or not o.startswith("--")):
                return o[len(flag) :]
    return None


def _overwritten(
    sources: list[str],
    into: str | None,
    dest: Word | None,
    as_file: bool,
    base: Path | None,
    ws: Workspace,
    copies: bool,
    out: Doomed,
) -> None:
    """What a move or copy writes over: the destination file, or DIR/<name of each source>;
    below it too for `cp -r` (the copy's files land there)."""
    raw = into if into is not None else dest.value if dest is not None else None
    if not raw or (base is None and not raw.startswith("/")):
        return
    target = lexical(raw, base or Path("/"))
    if into is None and (as_file or not target.is_dir()):
        _add(str(target), target.parent, ws, copies, out)
        return
    for src in sources:
        name = os.path.basename(src.rstrip("/"))
        if name not in ("", ".", ".."):
            _add(str(target / name), target, ws, copies, out)


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
