"""How the commands agent/shellreach.py judges read their arguments: which directories they
read below, and how (links followed, hidden entries seen, rg's include globs).

Options are read the way each program reads them (values, clusters like `-rA3`, abbreviated
long options where getopt_long or git's parse-options take them, the pattern operand).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from agent.permissions.paths import home_secrets, secret_path, within
from agent.permissions.shell.options import (
    DIFF_SYNTAX,
    GIT_DIFF_SYNTAX,
    GIT_GREP_SYNTAX,
    GREP_SYNTAX,
    GREPS,
    RG_SYNTAX,
    parse_options,
)


@dataclass(frozen=True)
class Plan:
    """What a command reads below its directory operands, and how it walks them."""

    tool: str  # as named in the reasons given
    follow: bool  # follows symlinks met on the way
    hidden: bool  # sees hidden entries
    operands: list[str]  # paths, from `base`
    base: str  # its working directory
    cwd: bool = True  # with no operand that exists it reads the working directory
    recursive: bool = True  # else it reads the files right in its directories only
    globs: tuple[tuple[str, bool], ...] = ()  # include globs, and whether they fold case
    skip_files: tuple[str, ...] = ()  # name globs of files it leaves out (grep --exclude)
    skip_dirs: tuple[str, ...] = ()  # name globs of directories it does not enter


def plan(name: str, args: list[str], base: str) -> Plan | None:
    """How `name args`, run in `base`, reads below directories; None when it does not."""
    if name in GREPS:
        opts, operands = parse_options(args, GREP_SYNTAX)
        given = {n for n, _ in opts}
        recursive = bool(given & {"r", "R", "recursive", "dereference-recursive"}) or any(
            n in ("d", "directories") and v and "recurse".startswith(v) for n, v in opts
        )
        if not recursive:
            return None
        follow = bool(given & {"R", "dereference-recursive"})
        paths = operands[0 if given & {"e", "f", "regexp", "file"} else 1 :]
        return Plan(name, follow, True, paths, base, **_grep_filters(opts))
    if name == "rg":
        return _rg(args, base)
    if name == "diff":  # two directories: every file in both is compared (-N prints those
        opts, operands = parse_options(args, DIFF_SYNTAX)  # on one side), below too with -r
        given = {n for n, _ in opts}
        paths = [*operands, *(v for n, v in opts if n in ("from-file", "to-file"))]
        follow = "no-dereference" not in given
        deep = bool(given & {"r", "recursive"})
        return Plan(name, follow, True, paths, base, cwd=False, recursive=deep)
    sub = git_subcommand(args, base) if name == "git" else None
    if sub is None:
        return None
    sub_name, sub_args, base = sub
    if sub_name == "grep":
        return _git_grep(sub_args, base)
    if sub_name == "diff":
        return _git_diff(sub_args, base)
    return None


def _grep_filters(opts: list[tuple[str, str]]) -> dict[str, Any]:
    """grep's --include / --exclude / --exclude-dir globs (matched against base names). Where
    both an include and an exclude match a file, the walk counts it (erring on asking)."""

    def values(name: str) -> tuple[str, ...]:
        return tuple(v for n, v in opts if n == name and v)

    return {
        "globs": tuple((g, False) for g in values("include")),
        "skip_files": values("exclude"),
        "skip_dirs": values("exclude-dir"),
    }


def _rg(args: list[str], base: str) -> Plan | None:
    opts, operands = parse_options([*_rg_config(args), *args], RG_SYNTAX)
    given = {n for n, _ in opts}
    if given & {"files", "type-list"}:
        return None  # lists names, reads no file
    unrestricted = sum(n in ("u", "unrestricted") for n, _ in opts)
    hidden = bool(given & {"hidden", "."}) or unrestricted >= 2
    hidden = hidden or any(
        n == "ignore-file" and unhides(os.path.join(base, os.path.expanduser(v))) for n, v in opts
    )
    follow = bool(given & {"L", "follow"})
    pattern = not given & {"e", "f", "regexp", "file"}
    folds = [n for n, _ in opts if n.endswith("glob-case-insensitive")]
    fold = bool(folds) and folds[-1] == "glob-case-insensitive"
    globs = tuple(
        (v, fold or n == "iglob")
        for n, v in opts
        if n in ("g", "glob", "iglob") and v and not v.startswith("!")
    )
    files, dirs = _rg_skips([v for n, v in opts if n in ("g", "glob") and v.startswith("!")])
    paths = operands[1 if pattern else 0 :]
    return Plan("rg", follow, hidden, paths, base, globs=globs, skip_files=files, skip_dirs=dirs)


def _rg_skips(negated: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(file, directory) name globs rg's `!glob`s leave out: `!name` both, `!name/` only
    directories. One with a `/` inside is not used (erring on asking)."""
    files, dirs = [], []
    for v in negated:
        glob = v[1:]
        name = glob.rstrip("/")
        if not name or "/" in name:
            continue
        dirs.append(name)
        if not glob.endswith("/"):
            files.append(name)
    return tuple(files), tuple(dirs)


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


IGNORE_FILES = (".ignore", ".rgignore", ".gitignore")
_UNHIDE = re.compile(r"^!(\S*[/*])?\.", re.M)  # `!.env`, `!/.*`, `!config/.secrets`


def unhides(path: str) -> bool:
    """Whether this ignore file whitelists hidden entries, which rg then searches."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return bool(_UNHIDE.search(f.read(65536)))
    except OSError:
        return False


_GIT_VALUES = ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env")


def git_subcommand(args: list[str], base: str) -> tuple[str, list[str], str] | None:
    """(subcommand, its arguments, its working directory) of `git [-C dir …] sub …`."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] == "-C" and i + 1 < len(args):
            base = os.path.join(base, os.path.expanduser(args[i + 1]))
        i += 2 if args[i] in _GIT_VALUES else 1
    return (args[i], args[i + 1 :], base) if i < len(args) else None


def _git_grep(args: list[str], base: str) -> Plan | None:
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
    paths = operands[0 if given & {"e", "f"} else 1 :]
    return Plan("git grep", False, True, paths, base)


def _git_diff(args: list[str], base: str) -> Plan | None:
    """`git diff --no-index a b` compares two directories file by file, hidden ones too,
    links as links. git takes it implicitly outside a work tree, or when a path lies outside
    it. Otherwise it diffs tracked files, left alone like plain `git grep`."""
    head = args[: args.index("--")] if "--" in args else args
    _, operands = parse_options(args, GIT_DIFF_SYNTAX)
    paths = [os.path.realpath(os.path.join(base, os.path.expanduser(o))) for o in operands]
    top = _work_tree(base)
    outside = not top or any(os.path.exists(p) and not within(p, (top,)) for p in paths)
    if "--no-index" in head or outside:
        return Plan("git diff", False, True, operands, base, cwd=False)
    return None


def _work_tree(base: str) -> str:
    """The work tree `base` lies in ("" when none: no `.git` there or above)."""
    d = os.path.realpath(base)
    while not os.path.exists(os.path.join(d, ".git")):
        if os.path.dirname(d) == d:
            return ""
        d = os.path.dirname(d)
    return d


def git_object_read(name: str, args: list[str]) -> tuple[str, str]:
    """(secret, unsure) for `git show REV:.env`, `git cat-file -p :.env` (any subcommand:
    aliases too), which print a file from the repository's objects. `git cat-file --batch`
    prints the objects its input names: unknown here."""
    sub = git_subcommand(args, ".") if name == "git" else None
    if sub is None:
        return "", ""
    for a in sub[1]:  # `REV:path`, `:path` (the index), `:2:path` (a stage), `REV@{10:00}:path`
        for path in (a[m.end() :] for m in re.finditer(":", a)):
            if path and _secret_in_repo(os.path.normpath(path)):
                why = "from the repository, which may hold secrets"
                return f"git {sub[0]} would read {path} {why}", ""
    if sub[0] == "cat-file" and any(re.match(r"--batch(-command)?(=|$)", a) for a in sub[1]):
        return "", "git cat-file --batch prints the objects named on its input"
    return "", ""


_HOME_RELATIVE = home_secrets("")  # `.ssh`, `.config/gcloud`…: a dotfiles repository


def _secret_in_repo(path: str) -> bool:
    parts = path.strip("/").split("/")
    return any(secret_path("/".join(parts[i:]), _HOME_RELATIVE) for i in range(len(parts)))
