"""git on the command line: the options and subcommands that make it run other programs, and the
few invocations that only read (status, log, branch --list, config --get…)."""

from __future__ import annotations

from agent.permissions.shell.flags import risky
from agent.permissions.shell.parse import words

GIT_GLOBAL_OK = ("--no-pager", "-P", "-C", "--no-optional-locks", "--literal-pathspecs")
GIT_RISKY = (
    "--output",
    "--ext-diff",
    "--textconv",  # a diff driver's command, even where git would not use one by default
    "-O",
    "--open-files-in-pager",
    "--upload-pack",
    "--receive-pack",
    "--exec",
    "--config",
    "--extcmd",
    "--show-signature",  # runs gpg (or the program gpg.program names) on the commit's data
    "--submodule",  # =diff runs git in a submodule found through history, not the index
)
GIT_SUB_RISKY = {
    "rebase": ("-x",),
    "difftool": ("-x", "-t", "--tool"),
    "clone": ("-c", "-u"),
    "fetch": ("-u",),
    "pull": ("-u",),
    "cat-file": ("--filters",),  # runs the smudge filter
    "grep": ("--recurse-submodules",),
    "ls-files": ("--recurse-submodules",),
    "tag": ("-v", "--verify"),  # runs gpg
}
GIT_RUNS = {"filter-branch": "", "mergetool": "", "submodule": "foreach", "bisect": "run"}

GIT_READ_ONLY = words(
    "status diff log show rev-parse ls-files blame describe shortlog grep show-ref cat-file "
    "ls-tree merge-base rev-list"
)
LISTING_FLAGS = frozenset(
    {
        "-a",
        "-r",
        "-v",
        "-vv",
        "--all",
        "--list",
        "-l",
        "--show-current",
        "--remotes",
        "--merged",
        "--no-merged",
        "--contains",
        "--points-at",
        "-n",
        "--sort",
        "--format",
        "--column",
        "--no-column",
    }
)
TAKES_NAMES = frozenset({"--list", "-l", "--contains", "--merged", "--no-merged", "--points-at"})
GIT_FIRST = {  # subcommands that only read when their first argument is one of these
    "remote": {"-v", "--verbose", "show", "get-url"},
    "stash": {"list", "show"},
    "config": {"--get", "--get-all", "--get-regexp", "--list", "-l"},
    "worktree": {"list"},
}
GIT_WRITES = frozenset(
    {
        "--add",
        "--unset",
        "--unset-all",
        "--replace-all",
        "--edit",
        "-e",
        "--rename-section",
        "--remove-section",
    }
)


def _signature_format(args: list[str | None]) -> str:
    """A `--format=`/`--pretty=` asking for signature data (`%G?`, `%GS`…): git runs gpg."""
    for a in args:
        if a is None or a == "--":
            break
        if a.startswith(("--format=", "--pretty=")) and "%G" in a:
            return a.split("=", 1)[0] + "=…%G"
    return ""


def git_escape(args: list[str | None]) -> str:
    i = 0
    while i < len(args) and (args[i] or "").startswith("-"):
        a = args[i] or ""
        if a.split("=", 1)[0] not in GIT_GLOBAL_OK:
            return a.split("=", 1)[0]  # -c, --config-env, --exec-path, --git-dir, ...
        i += 2 if a == "-C" else 1
    sub = args[i] if i < len(args) else ""
    rest = args[i + 1 :]
    if sub in GIT_RUNS and (not GIT_RUNS[sub] or GIT_RUNS[sub] in rest):
        return f"{sub} {GIT_RUNS[sub]}".strip()  # runs commands given to it
    hit = risky(rest, GIT_RISKY + GIT_SUB_RISKY.get(sub or "", ()))
    return hit or _signature_format(rest)


def git_read_only(args: list[str]) -> bool:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] not in ("--no-pager", "-P", "-C"):
            return False
        i += 2 if args[i] == "-C" else 1
    if i >= len(args):
        return False
    sub, rest = args[i], args[i + 1 :]
    if sub in GIT_READ_ONLY:
        return True
    if sub in ("branch", "tag"):
        flags = [a.split("=", 1)[0] for a in rest if a.startswith("-")]
        names = [a for a in rest if not a.startswith("-")]
        return all(f in LISTING_FLAGS for f in flags) and (
            not names or any(f in TAKES_NAMES for f in flags)
        )
    firsts = GIT_FIRST.get(sub)
    if firsts is None:
        return False
    return (not rest and sub == "remote") or (
        bool(rest) and rest[0] in firsts and not GIT_WRITES.intersection(rest)
    )
