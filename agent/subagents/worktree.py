"""Git worktrees for `agent --worktree [NAME]` and /batch units.

A worktree lives in `<repo>/.agent/worktrees/<NAME>` on a new branch `agent/<NAME>` made from
HEAD. The agent runs there (settings, memory and hooks still come from the main repository:
see agent.settings.project_root). On exit a worktree with changes — uncommitted edits or new
commits — is kept and the user is told how to merge or remove it; a clean one is removed
together with its branch.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent.base.visible import visible
from agent.config import safefile, settings
from agent.config.agentdir import ensure_agent_dir
from agent.config.trust import is_trusted
from agent.git.safe import git_env, refusal

if TYPE_CHECKING:  # annotations only
    from argparse import Namespace

BRANCH_PREFIX = "agent/"
GIT_TIMEOUT = 60.0
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class WorktreeError(Exception):
    """git is missing, this is no repository, or the name is taken; the message says which."""


@dataclass(frozen=True)
class Worktree:
    repo: Path  # the main checkout's top level
    path: Path
    branch: str
    base: str  # the commit it started from
    trusted: bool = False  # the project is trusted: git runs even if the repository is not plain


def git(cwd: Path, *args: str, hooks: bool = False) -> str:
    """Run git with the repository's own commands switched off (agent.git.safe.git_env):
    `worktree add` checks files out (smudge filters, the post-checkout hook), `status` and
    `add -A` clean them. Only `hooks=True` (commit_all) keeps the repository's hooks. What
    git_env cannot name it cannot switch off: callers check `_plain` first."""

    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=git_env(cwd, hooks=hooks),
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise WorktreeError(f"cannot run git: {e}") from None
    if proc.returncode != 0:
        msg = proc.stderr.strip() or f"git {args[0]} failed"
        raise WorktreeError(msg.splitlines()[-1] if msg else msg)
    return proc.stdout.strip()


def repo_root(cwd: Path) -> Path | None:
    """The top level of the git checkout holding `cwd` (None when there is none)."""
    try:
        return Path(git(cwd, "rev-parse", "--show-toplevel")).resolve()
    except WorktreeError:
        return None


def default_name() -> str:
    return time.strftime("%Y%m%d-%H%M%S")


def _plain(cwd: Path, trusted: bool) -> None:
    """WorktreeError when an untrusted project's repository is not plain (agent.git.safe):
    its own config could make git run a command the scan cannot name and switch off."""

    why = "" if trusted else refusal(cwd, "--worktree and /batch")
    if why:
        raise WorktreeError(why)


def create(cwd: Path, name: str = "", trusted: bool = False) -> Worktree:
    """Make `.agent/worktrees/<name>` on branch `agent/<name>` from HEAD; `trusted`: the
    project is trusted (else a repository that is not plain is refused before git runs)."""
    _plain(cwd, trusted)
    top = repo_root(cwd)
    if top is None:
        raise WorktreeError(f"--worktree needs a git repository; {cwd} is not inside one")
    try:
        base = git(top, "rev-parse", "--verify", "HEAD^{commit}")
    except WorktreeError:
        raise WorktreeError("the repository has no commit yet; commit once first") from None
    name = name or default_name()
    if not _NAME.fullmatch(name) or ".." in name or name.endswith((".lock", ".")):
        raise WorktreeError(f"invalid worktree name {name!r}: use letters, digits, . _ -")
    path = top / ".agent" / "worktrees" / name
    branch = BRANCH_PREFIX + name

    if safefile.is_linked(top, path):  # git would check out, and later remove, over there
        raise WorktreeError(f"{path} lies under a symbolic link; the agent does not follow it")
    if path.exists():
        raise WorktreeError(f"{path} exists already: pick another name or remove it")
    if git_ok(top, "show-ref", "--verify", "--quiet", f"refs/heads/{branch}"):
        raise WorktreeError(f"branch {branch} exists already: pick another name")
    _ignore(top)
    git(top, "worktree", "add", "--quiet", "-b", branch, str(path), base)
    return Worktree(top, path, branch, base, trusted)


def git_ok(cwd: Path, *args: str) -> bool:
    try:
        git(cwd, *args)
    except WorktreeError:
        return False
    return True


def _ignore(top: Path) -> None:
    """Keep worktrees out of the main checkout's `git status`: `.agent/.gitignore` lists them,
    or else `info/exclude` gets a line — never written through a link the repository holds
    (`info/exclude` pointing at ~/.bashrc): that refuses the worktree, saying why."""

    ensure_agent_dir(top)  # its .gitignore lists worktrees/
    try:
        if b"worktrees" in safefile.read_bytes(top, top / ".agent" / ".gitignore"):
            return
    except OSError:
        pass  # missing, or a link the agent does not read
    try:
        common = Path(os.path.realpath(top / git(top, "rev-parse", "--git-common-dir")))
        exclude = common / "info" / "exclude"
        try:
            text = safefile.read_bytes(common, exclude).decode("utf-8", "replace")
        except FileNotFoundError:
            text = ""
        if "/.agent/worktrees/" not in text:
            line = ("\n" if text and not text.endswith("\n") else "") + "/.agent/worktrees/\n"
            safefile.append_text(common, exclude, line, mode=0o644)
    except safefile.SymlinkRefused as e:
        raise WorktreeError(
            f"{e.link} is a symbolic link; the agent does not write {e.path} through it (to "
            "keep worktrees out of git status, add /.agent/worktrees/ to .agent/.gitignore)"
        ) from None
    except (OSError, WorktreeError):
        pass


def changes(wt: Worktree) -> tuple[int, int]:
    """(changed or new files, commits since the start) of a worktree."""
    _plain(wt.path, wt.trusted)
    status = git(wt.path, "status", "--porcelain")
    commits = int(git(wt.path, "rev-list", "--count", f"{wt.base}..HEAD") or 0)
    return len(status.splitlines()), commits


# Ignored files that are only ever regenerated: not a reason to keep a worktree.
CACHES = frozenset(
    {
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".hypothesis",
        ".tox",
        ".nox",
        ".cache",
        "node_modules",
        ".venv",
        "venv",
        ".gradle",
        ".next",
        ".parcel-cache",
        ".turbo",
    }
)


def ignored_work(wt: Worktree) -> list[str]:
    """New git-ignored files and directories other than caches (a .env, build output…)."""
    _plain(wt.path, wt.trusted)
    out = git(wt.path, "status", "--porcelain", "--ignored", "--untracked-files=normal")
    found = [line[3:] for line in out.splitlines() if line.startswith("!! ")]
    return [p for p in found if not CACHES.intersection(p.rstrip("/").split("/"))]


def commit_all(wt: Worktree, message: str, hooks: bool = False) -> bool:
    """Commit everything in the worktree (its own branch); False when there was nothing to
    commit. WorktreeError says why git refused (no identity configured, a hook said no).
    `hooks`: run the repository's commit hooks (only for a project the user trusts)."""
    _plain(wt.path, wt.trusted)
    if not git(wt.path, "status", "--porcelain"):
        return False
    git(wt.path, "add", "-A")
    # In a trusted project, the commit the user would make: their pre-commit checks still
    # judge it (a refusal is reported). Filters, fsmonitor and a repository-set signing
    # program stay off either way; an untrusted repository's .git/hooks never run.
    git(wt.path, "commit", "--quiet", "-m", message, hooks=hooks)
    return True


def remove(wt: Worktree) -> None:
    """Delete the worktree and its branch (only ever called for a clean one)."""
    _plain(wt.repo, wt.trusted)
    git(wt.repo, "worktree", "remove", "--force", str(wt.path))
    git(wt.repo, "branch", "-D", wt.branch)


def finish(wt: Worktree) -> str:
    """Keep a worktree with changes (and say how to merge or remove it); remove a clean one."""
    files, commits = changes(wt)
    ignored = [] if files or commits else ignored_work(wt)
    if not files and not commits and not ignored:
        remove(wt)
        return f"worktree {wt.path.name} had no changes: removed it and branch {wt.branch}"
    parts = (f"{files} changed file(s)" if files else "", f"{commits} commit(s)" if commits else "")
    what = ", ".join(x for x in parts if x)
    if ignored:
        shown = ", ".join(ignored[:3]) + (" …" if len(ignored) > 3 else "")
        what = f"only git-ignored files ({shown}), which removing it would delete"
    lines = [f"worktree kept: {wt.path} (branch {wt.branch}) has {what}"]
    if files:
        lines.append(f"  commit:  git -C {wt.path} add -A && git -C {wt.path} commit -m '…'")
    lines += [
        f"  merge:   git merge {wt.branch}   (from {wt.repo})",
        f"  remove:  git worktree remove --force {wt.path} && git branch -D {wt.branch}",
    ]
    return "\n".join(lines)


def refuse(message: str) -> int:
    """A worktree could not be made: say why; exit 2 (usage)."""
    print(f"agent: {visible(message)}", file=sys.stderr)
    return 2


def with_worktree(args: Namespace, body: Callable[[], int], fail: Callable[[str], int]) -> int:
    """`--worktree`: run `body` inside a new worktree, then keep or remove it."""

    name, args.worktree = args.worktree or "", None
    home = Path.cwd()
    trusted = getattr(args, "trust_project", False) is True
    trusted = trusted or is_trusted(settings.project_root(home.resolve()))
    try:
        wt = create(home, name, trusted)
    except WorktreeError as e:
        return fail(str(e))
    print(f"agent: working in {wt.path} (branch {wt.branch})", file=sys.stderr)
    start = wt.path / home.resolve().relative_to(wt.repo) if home.resolve() != wt.repo else wt.path
    os.chdir(start if start.is_dir() else wt.path)
    try:
        return body()
    finally:
        os.chdir(home)
        try:
            print(f"agent: {visible(finish(wt))}", file=sys.stderr)
        except WorktreeError as e:
            said = visible(f"could not check worktree {wt.path}: {e}")
            print(f"agent: warning: {said}", file=sys.stderr)
