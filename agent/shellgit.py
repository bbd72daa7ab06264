"""git's own options before its subcommand, and git commands that print .git/config."""

from __future__ import annotations

from agent.shellparse import Command

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
