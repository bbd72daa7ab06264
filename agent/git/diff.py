"""The working tree's changes as one unified diff (for /diff, /review and /security-review)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

from agent.git.safe import git_env, refusal

GIT_TIMEOUT = 30.0
UNTRACKED_FILES = 20  # new files whose content joins the diff
UNTRACKED_BYTES = 100_000  # larger new files are listed, not shown
# The agent's own bookkeeping in `.agent/` (see agent.config.agentdir.GITIGNORE): never a change to
# review while untracked. User-authored files there (settings.json, commands/) still count.
BOOKKEEPING = re.compile(
    r"(?:.*/)?\.agent/(?:\.gitignore|audit\.jsonl|settings\.local\.json|[^/]*\.log"
    r"|(?:sessions|worktrees)/.*)"
)


class GitError(Exception):
    """git is missing, timed out, or this is not a repository."""


async def git(cwd: Path, *args: str, ok: tuple[int, ...] = (0,), hooks: bool = False) -> str:
    """Run git with the repository's own commands switched off (fsmonitor, hooks unless
    `hooks` — a trusted project's commit — filter drivers, helper transports:
    agent.git.safe.git_env); diffs add --no-ext-diff --no-textconv. Callers check first that
    the repository is plain or the project trusted (working_diff)."""

    try:
        proc = await asyncio.create_subprocess_exec(
            "git",
            "--no-pager",
            *args,
            cwd=cwd,
            env=git_env(cwd, hooks=hooks),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as e:
        raise GitError(f"cannot run git: {e.strerror}") from None
    try:
        out, err = await asyncio.wait_for(proc.communicate(), GIT_TIMEOUT)
    except (asyncio.TimeoutError, asyncio.CancelledError):
        proc.kill()
        await proc.wait()
        raise
    if proc.returncode not in ok:
        raise GitError(err.decode("utf-8", "replace").strip() or f"git {args[0]} failed")
    return out.decode("utf-8", "replace")


async def working_diff(
    cwd: Path, trusted: bool = False, *, keep: Callable[[list[str]], list[str]]
) -> str:
    """Staged and unstaged changes against HEAD, plus the content of small untracked files.
    `trusted`: the project is trusted; otherwise a repository that is not plain is refused
    (GitError), since its own config could make even these reading commands run a command.
    `keep`: of the changed files (relative paths), those whose content may be shown — read_file's
    rule (a secret's name, the agent's settings): the others are named, never shown. A file a
    `.gitattributes` marks as binary (`*.py -diff`) is shown as text when it is text."""

    why = "" if trusted else refusal(cwd, "/diff, /review, /security-review and /simplify")
    if why:
        raise GitError(why)
    await git(cwd, "rev-parse", "--is-inside-work-tree")
    base = ["diff", "--no-color", "--no-ext-diff", "--no-textconv"]
    try:
        await git(cwd, "rev-parse", "--verify", "-q", "HEAD")
        ranges: list[list[str]] = [["HEAD"]]
    except GitError:  # no commit yet: staged and unstaged separately
        ranges = [["--cached"], []]
    changed = {n for r in ranges for n in _names(await git(cwd, *base, "--name-only", "-z", *r))}
    hidden = sorted(changed - set(keep(sorted(changed))))
    spec = ["--", ".", *(f":(exclude,literal){n}" for n in hidden)]
    parts = [await _text_diff(cwd, base, r, spec) for r in ranges]
    listed = await git(cwd, "ls-files", "--others", "--exclude-standard", "-z")
    new = [p for p in _names(listed) if not BOOKKEEPING.fullmatch(p)]
    shown = set(keep(new))
    hidden += [p for p in new if p not in shown]
    skipped: list[str] = []
    for rel in (p for p in new if p in shown):
        if len(parts) < UNTRACKED_FILES + 2 and _small(cwd / rel):
            parts.append(await git(cwd, *base, "--no-index", "--", "/dev/null", rel, ok=(0, 1)))
        else:
            skipped.append(rel)
    if skipped:
        parts.append("# untracked files not shown: " + ", ".join(skipped[:50]) + "\n")
    if hidden:
        parts.append("# changed files not shown (read_file asks before reading them): "
                     + ", ".join(hidden[:50]) + "\n")  # fmt: skip
    return "".join(p if p.endswith("\n") or not p else p + "\n" for p in parts)


def _names(out: str) -> list[str]:
    return [p for p in out.split("\0") if p]


async def _text_diff(cwd: Path, base: list[str], rng: list[str], spec: list[str]) -> str:
    """The diff of one range, with the files git calls binary only because an attribute says so
    (`-diff`) diffed as the text they are."""
    out = await git(cwd, *base, *rng, *spec)
    masked = [m for m in _BINARY.findall(out) if _is_text(cwd / m)]
    for name in masked:
        text = await git(cwd, *base, "--text", *rng, "--", f":(literal){name}")
        out = out.replace(f"Binary files a/{name} and b/{name} differ\n", _body(text), 1)
    return out


_BINARY = re.compile(r"^Binary files a/(\S+) and b/\S+ differ$", re.M)


def _body(diff: str) -> str:
    """A one-file diff without its `diff --git` and index lines (the caller's already has them)."""
    lines = diff.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if ln.startswith("--- ")), len(lines))
    return "".join(lines[start:])


def _is_text(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return b"\0" not in f.read(8192)
    except OSError:
        return False


def _small(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size <= UNTRACKED_BYTES
    except OSError:
        return False
