"""git's own options before its subcommand, git commands that print .git/config, and reading
git commands run in a repository that is not plain (agent.git.safe)."""

from __future__ import annotations

import os
from pathlib import Path

from agent.git import safe as gitsafe
from agent.permissions.shell.parse import Command

_GIT_VALUE_OPTIONS = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
)


def without_git_options(argv: list[str | None]) -> list[str | None] | None:
    """`git -C . push` as `git push` (None when argv is not git with options first): what
    deny and ask rules are matched against too."""
    if not argv or argv[0] is None or argv[0].rsplit("/", 1)[-1] != "git":
        return None
    i = 1
    while i < len(argv) and (argv[i] is None or (argv[i] or "").startswith("-")):
        i += 2 if argv[i] in _GIT_VALUE_OPTIONS else 1
    return [argv[0], *argv[i:]] if i > 1 else None


_GIT_CONFIG_READS = {"config": None, "remote": {"-v", "--verbose", "show", "get-url"}}


def git_config_read(cmd: Command) -> str:
    """`git config --list`, `git remote -v`: they print .git/config, remote URLs with tokens
    included, which .git/ always asking covers."""
    raw = [w.value for w in cmd.argv]
    argv = without_git_options(raw) or raw
    if len(argv) < 2 or argv[0] is None or argv[0].rsplit("/", 1)[-1] != "git":
        return ""
    if argv[1] not in _GIT_CONFIG_READS:
        return ""
    wanted = _GIT_CONFIG_READS[argv[1] or ""]
    if wanted is not None and not wanted.intersection(a or "" for a in argv[2:]):
        return ""
    return f"git {argv[1]} shows .git/config, which may hold tokens"


def git_repo_hazard(cmd: Command, bases: list[Path]) -> str:
    """Why a reading git command would run in a repository that is not plain (its own config
    sets more than agent.git.config.PLAIN, it has hooks…: see agent.git.safe), "" when it would
    not. Every directory it may run in counts: each `cd` target so far, then `-C dir` on top.
    The caller makes it a problem, like `git -c core.pager=…`: it asks, whatever the allow
    rules, trusted project or not (the permission check does not know about trust)."""
    raw = [w.value or "" for w in cmd.argv]
    if not raw or raw[0] != "git":
        return ""
    dirs, i = [], 1
    while i < len(raw) and raw[i].startswith("-"):
        if raw[i] == "-C" and i + 1 < len(raw):
            dirs.append(raw[i + 1])
        i += 2 if raw[i] == "-C" else 1
    for base in bases:
        where = os.path.join(base, *map(os.path.expanduser, dirs))  # gitsafe resolves links
        found = gitsafe.problem(where)
        if found:
            return f"{found.reason(bases[0])}; {ASK}"
    return ""


ASK = "reading git asks there (it runs unasked only with plain settings and no hooks)"
