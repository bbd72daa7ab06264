"""Repository-local git settings that make git run a command, found without running git.

A repository's own config can name commands that even reading git commands run:
`core.fsmonitor` on `git status`/`diff`/`grep`/`blame`, a filter's `clean` on `git status`/
`diff`, `diff.<driver>.textconv` on `git diff`/`log -p`/`show`/`blame`, `core.sshCommand` on
`git remote show`… A plain clone never carries `.git/config`, but an archive, a shared folder or
a second checkout can. Read here: the repository's `config` and `config.worktree` files (a
linked worktree's common directory included), the files they include, the repositories under
`modules/` and every submodule the index lists (git recurses into them, with their own config),
a bare repository when git would take the directory for one. The user's global and system
config are theirs and are not read.

Two uses: agent.shellgit asks before a read-only git command runs in such a repository, and
`git_env` neutralises these settings for the agent's own git calls (/diff, /review, worktrees).
Parsed files are cached by their stat, so the permission decision stays well under a millisecond.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent import gitrepo
from agent.gitconfig import Parsed, parse

MAX_REPOS = 200  # repositories read for one check: submodules at all depths together
MAX_INCLUDES = 10  # git's own include depth limit
UNCHECKED = "could not be checked for commands git would run"

READ, REMOTE, OTHER = "read", "remote", "other"
_ON_STATUS = "on git status, diff, grep and blame"
_ON_DIFF = "on git diff"
_ON_REMOTE = "when git contacts a remote (git remote show)"
# (section, subsection: "" none / "*" required / "?" either, key or "*", scope, when it runs,
# value test). Names are compared lower-case, as git compares sections and keys.
_CMD, _BOOL = "cmd", "nonbool"
RULES: tuple[tuple[str, str, str, str, str, str], ...] = (
    ("core", "", "fsmonitor", READ, _ON_STATUS, _BOOL),
    ("core", "", "pager", READ, "to page git's output", _CMD),
    ("pager", "", "*", READ, "to page git's output", _BOOL),
    ("diff", "", "external", READ, _ON_DIFF, _CMD),
    ("diff", "*", "command", READ, _ON_DIFF, _CMD),
    ("diff", "*", "textconv", READ, "on git diff, log -p, show and blame", _CMD),
    ("filter", "*", "clean", READ, "on git status, diff and add", _CMD),
    ("filter", "*", "process", READ, "on git status, diff, add and checkout", _CMD),
    ("filter", "*", "smudge", OTHER, "on checkout", _CMD),
    ("core", "", "sshcommand", REMOTE, _ON_REMOTE, _CMD),
    ("core", "", "gitproxy", REMOTE, _ON_REMOTE, _CMD),
    ("core", "", "askpass", REMOTE, _ON_REMOTE, _CMD),
    ("credential", "?", "helper", REMOTE, _ON_REMOTE, _CMD),
    ("remote", "*", "uploadpack", REMOTE, _ON_REMOTE, _CMD),
    ("remote", "*", "receivepack", REMOTE, _ON_REMOTE, _CMD),
    ("remote", "*", "vcs", REMOTE, _ON_REMOTE, _CMD),
    ("protocol", "?", "allow", REMOTE, _ON_REMOTE, _CMD),
    ("core", "", "hookspath", OTHER, "as hooks", _CMD),
    ("core", "", "editor", OTHER, "to edit messages", _CMD),
    ("sequence", "", "editor", OTHER, "to edit rebase lists", _CMD),
    ("merge", "*", "driver", OTHER, "on merges", _CMD),
    ("gpg", "?", "program", OTHER, "to sign commits", _CMD),
    ("gpg", "ssh", "defaultkeycommand", OTHER, "to sign commits", _CMD),
    ("alias", "", "*", OTHER, "as an alias", _CMD),
    ("core", "", "alternaterefscommand", OTHER, "on fetch and push", _CMD),
    ("uploadpack", "", "packobjectshook", OTHER, "on fetch", _CMD),
)
_FALSE_OR_TRUE = re.compile(r"(?i)true|yes|on|false|no|off|\s*[-+]?(0x[0-9a-f]+|\d+)[kmg]?|")


@dataclass(frozen=True)
class Hazard:
    key: str  # as git names it: core.fsmonitor, filter.lfs.clean
    file: str  # the file that sets it
    scope: str  # read: reading commands run it; remote: `git remote show`; other
    runs: str  # when git runs it

    def reason(self, start: Path | str = "") -> str:
        shown = _shown(self.file, str(start))
        if not self.key:
            return f"{shown} {self.runs}"
        return f"{shown} sets {self.key}, which runs a command {self.runs}"


def hazards(start: Path | str) -> list[Hazard]:
    """Every code-running setting in the config of the repository git finds from `start`."""
    found: list[Hazard] = []
    seen: set[str] = set()
    for gitdir, worktree in gitrepo.discover(os.path.realpath(start)):
        _repo(gitdir, worktree, found, seen)
    return found


def read_hazard(
    start: Path | str, remote: bool = False, shown_from: Path | str | None = None
) -> str:
    """Why a reading git command run in `start` would run a repository's command ("": none);
    `remote`: it contacts a remote too. Paths in the reason are relative to `shown_from`."""
    scopes = (READ, REMOTE) if remote else (READ,)
    hit = next((h for h in hazards(start) if h.scope in scopes), None)
    return hit.reason(start if shown_from is None else shown_from) if hit else ""


SAFE = (("core.fsmonitor", "false"), ("core.hooksPath", "/dev/null"), ("core.pager", "cat"))


def git_env(
    cwd: Path | str, env: Mapping[str, str] | None = None, *, hooks: bool = False
) -> dict[str, str]:
    """The environment for the agent's own git calls: command-line config (GIT_CONFIG_COUNT,
    which reaches submodules too and takes any subsection name) that switches off fsmonitor,
    the pager and, unless `hooks`, hooks; and empties every filter driver the repository
    defines — an empty command is no filter to git 2.39, and `required=false` keeps git from
    failing on it. A repository-defined signing program turns signing off."""
    out = dict(os.environ if env is None else env)
    pairs = [p for p in SAFE if not hooks or p[0] != "core.hooksPath"]
    for h in hazards(cwd):
        section, sub, _ = split(h.key)
        if section == "filter" and sub is not None:
            pairs += [(f"filter.{sub}.{k}", "") for k in ("clean", "smudge", "process")]
            pairs.append((f"filter.{sub}.required", "false"))
        elif section == "gpg":
            pairs.append(("commit.gpgSign", "false"))
    count = out.get("GIT_CONFIG_COUNT", "")
    n = int(count) if count.isdigit() else 0
    for i, (key, value) in enumerate(dict(pairs).items(), n):
        out[f"GIT_CONFIG_KEY_{i}"], out[f"GIT_CONFIG_VALUE_{i}"] = key, value
    out["GIT_CONFIG_COUNT"] = str(n + len(dict(pairs)))
    return out


def split(name: str) -> tuple[str, str | None, str]:
    """(section, subsection or None, key) of a variable name as git splits it."""
    section, _, rest = name.partition(".")
    sub, dot, key = rest.rpartition(".")
    return section, (sub if dot else None), key


def _rule(name: str, value: str | None) -> tuple[str, str] | None:
    """(scope, when it runs) when this variable names a command git may run."""
    if value is None or not value.strip():
        return None  # no command: git runs nothing, or refuses the file
    section, sub, key = split(name)
    for sec, want, k, scope, runs, test in RULES:
        if sec != section or (k != "*" and k != key):
            continue
        if (want == "" and sub is not None) or (want == "*" and sub is None):
            continue
        if want not in ("", "*", "?") and (sub or "").lower() != want:
            continue
        if test == _BOOL and _FALSE_OR_TRUE.fullmatch(value):
            continue
        return scope, runs
    return None


def _shown(path: str, start: str) -> str:
    base = os.path.realpath(start).rstrip("/") if start else ""
    return path[len(base) + 1 :] if base and path.startswith(base + "/") else path


def _repo(gitdir: str, worktree: str | None, found: list[Hazard], seen: set[str]) -> None:
    """Add the hazards of one repository, its modules/ and its populated submodules."""
    if gitdir in seen:
        return
    if len(seen) >= MAX_REPOS:
        found.append(Hazard("", gitdir, READ, "has too many submodules to check"))
        return
    seen.add(gitdir)
    common = gitrepo.common_dir(gitdir)
    files = [os.path.join(common, "config"), os.path.join(common, "config.worktree")]
    values: dict[str, str | None] = {}
    for path in dict.fromkeys([*files, os.path.join(gitdir, "config.worktree")]):
        _config(path, found, values, 0)
    for sub in gitrepo.module_dirs(os.path.join(common, "modules")):
        _repo(sub, None, found, seen)
    tree = values.get("core.worktree")
    if tree:
        worktree = os.path.normpath(os.path.join(gitdir, os.path.expanduser(tree)))
    if worktree is None:
        return
    sha256 = (values.get("extensions.objectformat") or "").lower() == "sha256"
    links = gitrepo.submodule_paths(gitdir, 32 if sha256 else 20)
    if isinstance(links, str):
        found.append(Hazard("", os.path.join(gitdir, "index"), READ, UNCHECKED))
        return
    for link in links:
        for sub_gitdir, sub_tree in gitrepo.at(os.path.join(worktree, link)):
            _repo(sub_gitdir, sub_tree, found, seen)


@dataclass(frozen=True)
class _File:
    """What one config file sets that matters here, worked out once per version of it."""

    hazards: tuple[tuple[str, str, str], ...]  # (name, scope, when it runs)
    values: dict[str, str | None]  # the settings the repository scan reads
    includes: tuple[str, ...]
    bad: bool


_KEEP = ("core.worktree", "extensions.objectformat")


def _load(path: str) -> _File:
    text = gitrepo.small_text(path)
    parsed = parse(text) if text is not None else Parsed(bad=True)
    hits, includes = [], []
    for name, value in parsed.entries:
        hit = _rule(name, value)
        if hit:
            hits.append((name, *hit))
        section, _, key = split(name)
        if value and key == "path" and section in ("include", "includeif"):
            includes.append(value)
    values = {k: v for k, v in parsed.entries if k in _KEEP}
    return _File(tuple(hits), values, tuple(includes), parsed.bad)


def _config(path: str, found: list[Hazard], values: dict[str, str | None], depth: int) -> None:
    """One config file's hazards and those of the files it includes; `values` collects what
    the repository scan needs (core.worktree, the object format)."""
    info = gitrepo.cached(path, "config", _load)
    if not isinstance(info, _File):
        return  # no such file
    if info.bad:
        found.append(Hazard("", path, READ, UNCHECKED))
    found += [Hazard(name, path, scope, runs) for name, scope, runs in info.hazards]
    values.update(info.values)
    for value in info.includes:
        _include(path, value, found, depth)


def _include(path: str, value: str, found: list[Hazard], depth: int) -> None:
    """Follow include.path and every includeIf.*.path whatever its condition: reading more
    files can only ask more often."""
    target = os.path.expanduser(value)
    if depth >= MAX_INCLUDES or target.startswith(("~", "%(")):
        found.append(Hazard("", path, READ, f"includes {value}, which could not be checked"))
        return
    _config(os.path.normpath(os.path.join(os.path.dirname(path), target)), found, {}, depth + 1)
