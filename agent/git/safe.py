"""Whether git run in a directory may run the repository's own commands, found without git.

A repository's own config can name commands that even reading git commands run: `core.fsmonitor`
on `git status`, a filter's `clean` on `git diff`, `diff.<driver>.textconv` on `git log -p`,
`gpg.program` when a signature is shown, `man.<tool>.cmd` on `git status --help`, a promisor
remote that `git show` fetches from in a partial clone; and its hooks run too (`post-index-change`
on a `git status` that refreshes the index). A plain clone never carries `.git/config` or hooks,
but an archive, a shared folder or a second checkout can.

Naming every such setting cannot be done (git keeps adding them), so the decision is an
allow-list: a repository is *plain* when its own config sets only the settings of
agent.git.config.PLAIN and includes no other file, and its hooks directory holds no executable
hook — and so is every repository git may enter from it. Read here: the `config` and
`config.worktree` files (a linked worktree's common directory included), the files they include,
the repositories under `modules/` and every submodule the index lists, a bare repository when
git would take the directory for one. The user's global and system config are theirs.

Uses: agent.shellgit asks before a reading git command runs where `problem` finds something;
the agent's own git calls (/diff, /review, worktrees) refuse such a repository unless the project
is trusted, and always run with `git_env`, which also neutralises the command settings of RULES
found in a trusted one. Parsed files are cached by their stat, so a decision takes microseconds.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent.git import repo as gitrepo
from agent.git.config import Parsed, parse, plain, split

MAX_REPOS = 200  # repositories read for one check: submodules at all depths together
MAX_INCLUDES = 10  # git's own include depth limit
UNCHECKED = "could not be checked for commands git would run"
COMMAND, SETTING, HOOK, UNREADABLE = "command", "setting", "hook", "unreadable"

_ON_STATUS = "on git status, diff, grep and blame"
_ON_DIFF = "on git diff"
_ON_REMOTE = "when git contacts a remote"
_ON_HELP = "on git <command> --help"
# Settings known to name a command, for clearer reasons and for git_env: (section, subsection:
# "" none / "*" required / "?" either / a name, key or "*", when it runs, value test). Names
# are compared lower-case, as git compares sections and keys.
_CMD, _BOOL = "cmd", "nonbool"
RULES: tuple[tuple[str, str, str, str, str], ...] = (
    ("core", "", "fsmonitor", _ON_STATUS, _BOOL),
    ("core", "", "pager", "to page git's output", _CMD),
    ("pager", "", "*", "to page git's output", _BOOL),
    ("diff", "", "external", _ON_DIFF, _CMD),
    ("diff", "*", "command", _ON_DIFF, _CMD),
    ("diff", "*", "textconv", "on git diff, log -p, show and blame", _CMD),
    ("filter", "*", "clean", "on git status, diff and add", _CMD),
    ("filter", "*", "process", "on git status, diff, add and checkout", _CMD),
    ("filter", "*", "smudge", "on checkout and git cat-file --filters", _CMD),
    ("gpg", "?", "program", "to sign and to check signatures (log --show-signature)", _CMD),
    ("gpg", "ssh", "defaultkeycommand", "to sign commits", _CMD),
    ("man", "*", "cmd", _ON_HELP, _CMD),
    ("man", "*", "path", _ON_HELP, _CMD),
    ("browser", "*", "cmd", _ON_HELP, _CMD),
    ("browser", "*", "path", _ON_HELP, _CMD),
    ("core", "", "sshcommand", _ON_REMOTE, _CMD),
    ("core", "", "gitproxy", _ON_REMOTE, _CMD),
    ("core", "", "askpass", _ON_REMOTE, _CMD),
    ("credential", "?", "helper", _ON_REMOTE, _CMD),
    ("remote", "*", "uploadpack", _ON_REMOTE, _CMD),
    ("remote", "*", "receivepack", _ON_REMOTE, _CMD),
    ("remote", "*", "vcs", _ON_REMOTE, _CMD),
    ("protocol", "?", "allow", _ON_REMOTE, _CMD),
    ("core", "", "hookspath", "as hooks", _CMD),
    ("core", "", "editor", "to edit messages", _CMD),
    ("sequence", "", "editor", "to edit rebase lists", _CMD),
    ("merge", "*", "driver", "on merges", _CMD),
    ("alias", "", "*", "as an alias", _CMD),
    ("core", "", "alternaterefscommand", "on fetch and push", _CMD),
    ("uploadpack", "", "packobjectshook", "on fetch", _CMD),
)
_FALSE_OR_TRUE = re.compile(r"(?i)true|yes|on|false|no|off|\s*[-+]?(0x[0-9a-f]+|\d+)[kmg]?|")
_NOT_PLAIN = "which is not among the settings known to run nothing"
_URL = "to a URL that is not plain (git may hand it to a helper program)"
_INCLUDE = "which brings in another file's settings"
_HOOK = "is an executable hook, which git may run even on git status and git diff"


@dataclass(frozen=True)
class Finding:
    """Why a repository is not plain: a setting (and the file setting it), a hook, a file that
    could not be read."""

    key: str  # as git names it: core.fsmonitor, filter.lfs.clean; "" for a file or a hook
    file: str
    text: str  # the rest of the sentence
    kind: str  # COMMAND (a setting of RULES), SETTING, HOOK or UNREADABLE

    def reason(self, start: Path | str = "") -> str:
        shown = _shown(self.file, str(start))
        return f"{shown} sets {self.key}, {self.text}" if self.key else f"{shown} {self.text}"


def findings(start: Path | str) -> list[Finding]:
    """Everything that makes the repository git finds from `start` (or one it reaches) not
    plain, in the order read; [] for a plain repository or none at all."""
    found: list[Finding] = []
    seen: set[str] = set()
    for gitdir, worktree in gitrepo.discover(os.path.realpath(start)):
        _repo(gitdir, worktree, found, seen)
    return found


def hazards(start: Path | str) -> list[Finding]:
    """The settings of RULES among the findings: commands the repository names."""
    return [f for f in findings(start) if f.kind == COMMAND]


def problem(start: Path | str, hooks: bool = True) -> Finding | None:
    """What makes the repository not plain, a known command setting first (None: plain).
    `hooks=False`: executable hooks do not count (for git run with hooks switched off)."""
    found = [f for f in findings(start) if hooks or f.kind != HOOK]
    return next((f for f in found if f.kind == COMMAND), found[0] if found else None)


def refusal(cwd: Path | str, what: str) -> str:
    """Why the agent's own git calls (`what`) do not run in an untrusted project's repository
    ("": they may): git_env can switch off only what this scan names. Hooks do not count:
    git_env turns every hook off."""
    found = problem(cwd, hooks=False)
    if found is None:
        return ""
    why = f"{what} run no git in this repository until you trust the project (--trust-project)"
    return f"{found.reason(cwd)}; {why}"


SAFE = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("log.showSignature", "false"),
)
PROTOCOLS = ("file", "git", "http", "https", "ssh")


def git_env(
    cwd: Path | str, env: Mapping[str, str] | None = None, *, hooks: bool = False
) -> dict[str, str]:
    """The environment for the agent's own git calls, which callers make only in a plain or a
    trusted repository: command-line config (GIT_CONFIG_COUNT, which reaches submodules too and
    takes any subsection name) that switches off fsmonitor, the pager, signature checks and,
    unless `hooks`, hooks; every filter driver the repository defines emptied (an empty command
    is no filter to git 2.39, and `required=false` keeps git from failing on it); signing off
    under a repository-defined signing program; and git's own transports only
    (GIT_ALLOW_PROTOCOL: never `ext::` or a remote helper, whatever protocol.allow says)."""
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
    theirs = out.get("GIT_ALLOW_PROTOCOL")
    allowed = [p for p in PROTOCOLS if theirs is None or p in theirs.split(":")]
    out["GIT_ALLOW_PROTOCOL"] = ":".join(allowed)
    return out


def _rule(name: str, value: str | None) -> str:
    """When git runs the command this variable names ("": it names none known)."""
    if value is None or not value.strip():
        return ""  # no command: git runs nothing, or refuses the file
    section, sub, key = split(name)
    for sec, want, k, runs, test in RULES:
        if sec != section or (k != "*" and k != key):
            continue
        if (want == "" and sub is not None) or (want == "*" and sub is None):
            continue
        if want not in ("", "*", "?") and (sub or "").lower() != want:
            continue
        if test == _BOOL and _FALSE_OR_TRUE.fullmatch(value):
            continue
        return runs
    return ""


def _judge(name: str, value: str | None) -> tuple[str, str] | None:
    """(the rest of the reason, kind) for a setting that is not plain; None for a plain one."""
    runs = _rule(name, value)
    if runs:
        return f"which runs a command {runs}", COMMAND
    if plain(name, value):
        return None
    section, _, key = split(name)
    if key == "path" and section in ("include", "includeif"):
        return _INCLUDE, SETTING
    return (_URL if key in ("url", "pushurl") else _NOT_PLAIN), SETTING


def _shown(path: str, start: str) -> str:
    base = os.path.realpath(start).rstrip("/") if start else ""
    return path[len(base) + 1 :] if base and path.startswith(base + "/") else path


def _repo(gitdir: str, worktree: str | None, found: list[Finding], seen: set[str]) -> None:
    """Add the findings of one repository, its modules/ and its populated submodules."""
    if gitdir in seen:
        return
    if len(seen) >= MAX_REPOS:
        found.append(Finding("", gitdir, "has too many submodules to check", UNREADABLE))
        return
    seen.add(gitdir)
    common = gitrepo.common_dir(gitdir)
    files = [os.path.join(common, "config"), os.path.join(common, "config.worktree")]
    values: dict[str, str | None] = {}
    for path in dict.fromkeys([*files, os.path.join(gitdir, "config.worktree")]):
        _config(path, found, values, 0)
    hooks = gitrepo.hooks(common)
    if hooks is None:
        found.append(Finding("", os.path.join(common, "hooks"), UNCHECKED, UNREADABLE))
    found += [Finding("", hook, _HOOK, HOOK) for hook in hooks or ()]
    for sub in gitrepo.module_dirs(os.path.join(common, "modules")):
        _repo(sub, None, found, seen)
    tree = values.get("core.worktree")
    if tree:
        worktree = gitrepo.real(gitdir, tree)  # git: relative to the git dir, links followed
    if worktree is None:
        return
    sha256 = (values.get("extensions.objectformat") or "").lower() == "sha256"
    links = gitrepo.submodule_paths(gitdir, 32 if sha256 else 20)
    if isinstance(links, str):
        found.append(Finding("", os.path.join(gitdir, "index"), UNCHECKED, UNREADABLE))
        return
    for link in links:
        for sub_gitdir, sub_tree in gitrepo.at(os.path.join(worktree, link)):
            _repo(sub_gitdir, sub_tree, found, seen)


@dataclass(frozen=True)
class _File:
    """What one config file sets that matters here, worked out once per version of it."""

    findings: tuple[tuple[str, str, str], ...]  # (name, the rest of the reason, kind)
    values: dict[str, str | None]  # the settings the repository scan reads
    includes: tuple[str, ...]
    bad: bool


_KEEP = ("core.worktree", "extensions.objectformat")


def _load(path: str) -> _File:
    text = gitrepo.small_text(path)
    parsed = parse(text) if text is not None else Parsed(bad=True)
    hits, includes = [], []
    for name, value in parsed.entries:
        hit = _judge(name, value)
        if hit:
            hits.append((name, *hit))
        section, _, key = split(name)
        if value and key == "path" and section in ("include", "includeif"):
            includes.append(value)
    values = {k: v for k, v in parsed.entries if k in _KEEP}
    return _File(tuple(hits), values, tuple(includes), parsed.bad)


def _config(path: str, found: list[Finding], values: dict[str, str | None], depth: int) -> None:
    """One config file's findings and those of the files it includes; `values` collects what
    the repository scan needs (core.worktree, the object format)."""
    info = gitrepo.cached(path, "config", _load)
    if not isinstance(info, _File):
        return  # no such file
    if info.bad:
        found.append(Finding("", path, UNCHECKED, UNREADABLE))
    found += [Finding(name, path, text, kind) for name, text, kind in info.findings]
    values.update(info.values)
    for value in info.includes:
        _include(path, value, found, values, depth)


def _include(
    path: str, value: str, found: list[Finding], values: dict[str, str | None], depth: int
) -> None:
    """Follow include.path and every includeIf.*.path whatever its condition (reading more
    files can only find more), from the including file's directory as the kernel walks it."""
    target = os.path.expanduser(value)
    if depth >= MAX_INCLUDES or target.startswith(("~", "%(")):
        found.append(Finding("", path, f"includes {value}, which could not be checked", UNREADABLE))
        return
    _config(gitrepo.real(os.path.dirname(path), target), found, values, depth + 1)
