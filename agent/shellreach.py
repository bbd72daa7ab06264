"""What a recursive search command (`grep -r`, `rg`, `git grep --no-index`) would read below
its directories.

A path argument is checked on its own by the policy; a recursive search also reads every file
below it, so `grep -r KEY .` must not read `.env` without asking. The arguments are read the way
each program reads them (option values, clusters like `-rA3`, GNU grep's abbreviated long options,
the pattern operand), then the walk mirrors the tool: grep -r skips symlinks met on the way (-R
follows them), rg skips hidden entries unless told otherwise and follows links only with -L.
Neither honours .gitignore here (grep does not; for rg and git grep that errs on the side of
asking). A tree too large to check is reported as unknown.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from agent.paths import AGENT_RECORDS, Workspace, check, protected, secret_name, within
from agent.shellparse import Command

GREPS = frozenset({"grep", "egrep", "fgrep"})
MAX_ENTRIES = 50_000  # directory entries looked at before giving up (node_modules-sized trees)


@dataclass(frozen=True)
class Reach:
    secret: str = ""  # why it would read a file that may hold secrets
    unsure: str = ""  # why it may read outside the workspace or could not be checked


@dataclass(frozen=True)
class Syntax:
    """A program's options. `longs` maps a long name to "=" (takes a value), "?" (a value only
    after `=`) or "" (none); `abbrev`: a unique prefix names a long option (getopt_long)."""

    values: str  # short letters that take a value: the rest of the cluster, else the next word
    longs: dict[str, str]
    abbrev: bool
    optional: str = ""  # short letters whose value can only be attached (`-Oless`)


def _longs(spec: str) -> dict[str, str]:
    return {w.rstrip("=?"): w[-1] if w[-1] in "=?" else "" for w in spec.split()}


GREP_SYNTAX = Syntax(
    "ABCDdefm",
    _longs(
        "after-context= before-context= binary-files= context= color? colour? devices= "
        "directories= exclude= exclude-from= exclude-dir= file= group-separator= include= "
        "label= max-count= regexp= basic-regexp extended-regexp fixed-regexp fixed-strings "
        "perl-regexp byte-offset count dereference-recursive files-with-matches "
        "files-without-match help ignore-case no-ignore-case initial-tab line-buffered "
        "line-number line-regexp no-filename no-group-separator no-messages null null-data "
        "only-matching quiet recursive invert-match silent text binary unix-byte-offsets "
        "version with-filename word-regexp debug"
    ),
    abbrev=True,
)
RG_SYNTAX = Syntax(  # ripgrep takes long options only spelled out
    "ABCEMTdefgjmrt",
    _longs(
        "after-context= before-context= color= colors= context= context-separator= "
        "dfa-size-limit= encoding= engine= field-context-separator= field-match-separator= "
        "file= generate= glob= hostname-bin= hyperlink-format= iglob= ignore-file= "
        "max-columns= max-count= max-depth= maxdepth= max-filesize= path-separator= pre= "
        "pre-glob= regex-size-limit= regexp= replace= sort= sortr= threads= type= type-add= "
        "type-clear= type-not= files type-list hidden follow unrestricted"
    ),
    abbrev=False,
)
GIT_GREP_SYNTAX = Syntax(  # git's parse-options takes a unique prefix too
    "ABCefm",
    _longs(
        "after-context= before-context= context= max-count= max-depth= threads= color? "
        "open-files-in-pager? cached no-index untracked exclude-standard no-exclude-standard "
        "recurse-submodules invert-match ignore-case word-regexp text textconv no-textconv "
        "recursive no-recursive extended-regexp basic-regexp fixed-strings perl-regexp "
        "line-number column full-name files-with-matches name-only files-without-match null "
        "only-matching count no-color break heading show-function function-context quiet and "
        "or not all-match"
    ),
    abbrev=True,
    optional="O",
)
Options = list[tuple[str, str]]  # (letter or long name spelled out, value) in order


def parse_options(args: list[str], syn: Syntax) -> tuple[Options, list[str]]:
    """(options, operands), options anywhere until `--` (GNU style). An ambiguous long prefix
    counts as every option it may name (the program refuses it; erring towards asking)."""
    opts: Options = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            operands += args[i:]
            break
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            names = _long(name, syn)
            if not eq and names and {syn.longs[n] for n in names} == {"="} and i < len(args):
                value, i = args[i], i + 1
            opts += [(n, value) for n in names]
        elif a.startswith("-") and a != "-":
            for k, c in enumerate(a[1:], 2):
                if c in syn.values or c in syn.optional:
                    value = a[k:]
                    if not value and c in syn.values and i < len(args):
                        value, i = args[i], i + 1
                    opts.append((c, value))
                    break
                opts.append((c, ""))
        else:
            operands.append(a)
    return opts, operands


def _long(name: str, syn: Syntax) -> list[str]:
    """The long options `--name` may spell (none when the program does not know it)."""
    if not name or name in syn.longs:
        return [name] if name else []
    return [n for n in syn.longs if n.startswith(name)] if syn.abbrev else []


def _how(name: str, args: list[str]) -> tuple[bool, bool, list[str]] | None:
    """(follows links, sees hidden entries, path operands) for a recursive search, else None."""
    if name in GREPS:
        opts, operands = parse_options(args, GREP_SYNTAX)
        given = {n for n, _ in opts}
        recursive = bool(given & {"r", "R", "recursive", "dereference-recursive"}) or any(
            n in ("d", "directories") and v and "recurse".startswith(v) for n, v in opts
        )
        if not recursive:
            return None
        follow = bool(given & {"R", "dereference-recursive"})
        return follow, True, operands[0 if given & {"e", "f", "regexp", "file"} else 1 :]
    if name == "rg":
        opts, operands = parse_options([*_rg_config(args), *args], RG_SYNTAX)
        given = {n for n, _ in opts}
        if given & {"files", "type-list"}:
            return None  # lists names, reads no file
        unrestricted = sum(n in ("u", "unrestricted") for n, _ in opts)
        hidden = bool(given & {"hidden", "."}) or unrestricted >= 2
        follow = bool(given & {"L", "follow"})
        pattern = not given & {"e", "f", "regexp", "file"}
        return follow, hidden, operands[1 if pattern else 0 :]
    return None


def _git_grep(args: list[str], base: str) -> tuple[list[str], str] | None:
    """(the grep's arguments, its working directory) for `git [-C dir …] grep`, else None."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] == "-C" and i + 1 < len(args):
            base = os.path.join(base, os.path.expanduser(args[i + 1]))
        i += 2 if args[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
    return (args[i + 1 :], base) if args[i : i + 1] == ["grep"] else None


def _git_how(args: list[str]) -> tuple[bool, bool, list[str]] | None:
    """`git grep --no-index` and `--untracked` read files git does not track, ignored ones
    included (--no-index by default): walked like `grep -r`, hidden entries in, links not
    followed. Plain `git grep` reads tracked files only; those are not walked, since `git
    show` and `git diff` (read-only too) print their contents anyway, and walking would ask
    about every gitignored `.env`, which is exactly what git grep never opens."""
    opts, operands = parse_options(args, GIT_GREP_SYNTAX)
    given = {n for n, _ in opts}
    if not given & {"no-index", "untracked"}:
        return None
    operands = [o for o in operands if o not in ("(", ")")]  # grouping of --and / --or
    return False, True, operands[0 if given & {"e", "f"} else 1 :]


def recursive_read(cmd: Command, ws: Workspace, bases: list[Path]) -> Reach:
    """What the recursive search `cmd` would read, judged from the file system now."""
    if not cmd.argv or cmd.argv[0].value is None:
        return Reach()
    name = os.path.basename(cmd.argv[0].value)
    args = [w.value for w in cmd.argv[1:] if w.value is not None]
    base = str(bases[-1])
    how = _how(name, args)
    if name == "git" and (sub := _git_grep(args, base)):
        name, (args, base), how = "git grep", sub, _git_how(sub[0])
    if how is None:
        return Reach()
    follow, hidden, operands = how
    dirs, named_files = [], False
    for a in operands:
        p = Path(os.path.normpath(os.path.join(base, os.path.expanduser(a))))
        if p.is_dir():
            dirs.append(p)
        elif p.exists() or a == "-":
            named_files = True
    if not dirs and not named_files:
        dirs = [Path(base)]  # no operand (or none that exists): the working directory
    for d in dirs:
        if not check(str(d), ws).inside:
            continue  # the path check already asks about it
        reach = _walk(d, ws, follow, hidden, name)
        if reach.secret or reach.unsure:
            return reach
    return Reach()


def _rg_config(args: list[str]) -> list[str]:
    """The arguments of ripgrep's config file ($RIPGREP_CONFIG_PATH: one per line), which
    rg reads before the command line's (`--hidden` there makes it search .env)."""
    path = os.environ.get("RIPGREP_CONFIG_PATH")
    if not path or "--no-config" in args:
        return []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = [line.strip() for line in f.read(65536).splitlines()]
    except OSError:
        return []
    return [line for line in lines if line and not line.startswith("#")]


_IGNORE_FILES = (".ignore", ".rgignore", ".gitignore")
_UNHIDE = re.compile(r"^!(\S*[/*])?\.", re.M)  # `!.env`, `!/.*`, `!config/.secrets`


def _unhides(directory: str) -> bool:
    """Whether an ignore file here whitelists hidden entries, which rg then searches."""
    for n in _IGNORE_FILES:
        try:
            with open(os.path.join(directory, n), encoding="utf-8", errors="replace") as f:
                if _UNHIDE.search(f.read(65536)):
                    return True
        except OSError:
            continue
    return False


def _walk(top: Path, ws: Workspace, follow: bool, hidden: bool, name: str) -> Reach:
    """The first secret file met; else why the walk left the workspace or gave up.

    Secret: a secret file name, and by place (paths.protected) a session or audit log below
    `.agent/` or a credential store of the home directory. Real paths are carried along with
    the walked ones, so those places are recognised through links and from any starting point.
    """
    real_top = os.path.realpath(top)
    why = protected(real_top, ws)
    if why:
        return Reach(secret=f"{name} would read {_rel(str(top), ws)}: {why}")
    if not hidden:  # ignore files from the root down to `top` may whitelist hidden entries
        hidden = any(_unhides(str(d)) for d in (top, *top.parents) if within(str(d), ws.dirs))
    stack = [(str(top), real_top, hidden)]
    seen, looked, unsure = {real_top}, 0, ""
    places = {secret for secret, _ in ws.home_secrets}
    while stack:
        directory, real_dir, shown = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        if not shown and any(e.name in _IGNORE_FILES for e in entries):
            shown = _unhides(directory)
        for e in entries:
            looked += 1
            if looked > MAX_ENTRIES:
                return Reach(unsure=f"{name} reads more than {MAX_ENTRIES} files below {top}")
            if e.name == ".git" or (not shown and e.name.startswith(".")):
                continue
            real = os.path.join(real_dir, e.name)
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
                    stack.append((e.path, real, shown))
                continue
            if e.name in AGENT_RECORDS or real in places:  # cheap tests first: most entries
                why = protected(real, ws)
                if why:
                    return Reach(secret=f"{name} would read {_rel(e.path, ws)}: {why}")
            if e.is_dir(follow_symlinks=False):
                stack.append((e.path, real, shown))
            elif secret_name(e.name):
                return Reach(secret=f"{name} would read {_rel(e.path, ws)}, which may hold secrets")
    return Reach(unsure=unsure)


def _rel(path: str, ws: Workspace) -> str:
    return os.path.relpath(path, ws.root)
