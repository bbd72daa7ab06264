"""/commit: commit what this session's tools changed — those files only, never protected ones
(.env, .git/, keys, the agent's settings) — with your message, or one the model writes from
their diff; the user's other changes, staged or not, stay as they were. `/undo commit` reverts
the agent's last /commit with `git revert` (a new commit; history is never reset).

The repository's own hooks run only in a trusted project (agent.git.safe)."""

from __future__ import annotations

import os
from pathlib import Path

from agent.commands.registry import Ctx, command
from agent.commands.style import side_reply
from agent.git.diff import GitError, git
from agent.git.safe import refusal
from agent.permissions.paths import Workspace, check
from agent.session.rewind import listing
from agent.session.store import load

DIFF_CHARS = 30_000  # of the diff the model writes the message from
WRITE_MESSAGE = (
    "[Write a git commit message for the diff below: a summary line under 72 characters, a "
    "blank line, then in a few lines why. Reply with the message only, no code fences.]\n\n"
)


def _porcelain(out: str) -> list[str]:
    """The paths `git status --porcelain -z` lists (a rename: both)."""
    items, paths = out.split("\0"), []
    k = 0
    while k < len(items):
        entry = items[k]
        if len(entry) > 3:
            paths.append(entry[3:])
            if entry[0] in "RC":  # the source path follows as its own item
                k += 1
                paths.append(items[k])
        k += 1
    return paths


def _split(paths: list[str], top: Path, ws: Workspace) -> tuple[list[str], list[str]]:
    """The paths inside the repository, relative to it: (to commit, protected)."""
    mine: list[str] = []
    kept_out: list[str] = []
    for path in paths:
        rel = os.path.relpath(path, top)
        if rel.startswith(".."):
            continue
        (kept_out if check(path, ws).secret else mine).append(rel)
    return mine, kept_out


async def session_changes(ctx: Ctx, top: Path) -> tuple[list[str], list[str]]:
    """The files this session changed that git sees as changed (relative to `top`), and the
    protected ones left out."""
    cps = listing(ctx.run.store, ctx.cfg.root)
    mine, kept_out = _split(cps[0].files if cps else [], top, ctx.run.gate.ws)
    if not mine:
        return [], kept_out
    status = await git(
        top,
        "--literal-pathspecs",
        "status",
        "--porcelain",
        "-z",
        "--untracked-files=all",
        "--",
        *mine,
    )
    seen = set(_porcelain(status))
    return [p for p in mine if p in seen], kept_out


async def _message(ctx: Ctx, top: Path, files: list[str]) -> str:
    diff = await git(
        top, "--literal-pathspecs", "diff", "--cached", "--no-color", "--no-ext-diff", "--", *files
    )
    reply = await side_reply(ctx, WRITE_MESSAGE + diff[:DIFF_CHARS])
    return reply.strip().strip("`").strip()


async def _commit(ctx: Ctx, top: Path, files: list[str], message: str, hooks: bool) -> str:
    """Stage `files` (names, never patterns), commit them alone; the new commit's id ("" when
    the message came out empty). Whatever goes wrong, nothing stays staged that was not."""
    lit = "--literal-pathspecs"
    await git(top, lit, "add", "-A", "--", *files)
    done = False
    try:
        message = message or await _message(ctx, top, files)
        if not message:
            return ""
        await git(top, lit, "commit", "-q", "--only", "-m", message, "--", *files, hooks=hooks)
        done = True
    finally:
        if not done:  # unstage what this command staged (no HEAD yet: drop from the index)
            try:
                await git(top, lit, "reset", "-q", "--", *files)
            except GitError:
                await git(top, lit, "rm", "-q", "--cached", "-r", "--", *files, ok=(0, 128))
    return (await git(top, "rev-parse", "HEAD")).strip()


@command("commit", usage="[message]", repl_only=True)
async def commit_cmd(ctx: Ctx, args: str) -> None:
    """Commit the files this session changed (only those; never protected files), with your
    message or one the model writes from their diff."""
    cwd, hooks = ctx.cfg.cwd, ctx.cfg.trusted
    why = "" if ctx.cfg.trusted else refusal(cwd, "/commit")
    try:
        if why:
            raise GitError(why)
        top = Path((await git(cwd, "rev-parse", "--show-toplevel")).strip())
        files, kept_out = await session_changes(ctx, top)
        if kept_out:
            ctx.say(f"not committed (protected): {', '.join(kept_out)}", "yellow")
        if not files:
            ctx.say("nothing to commit: this session changed no file git sees as changed")
            return
        sha = await _commit(ctx, top, files, args.strip(), hooks)
    except GitError as e:
        ctx.say(f"/commit: {e}", "red")
        return
    if not sha:
        ctx.say("no commit: the message is empty", "yellow")
        return
    ctx.run.store.append({"t": "commit", "sha": sha, "files": files})
    ctx.say(f"committed {sha[:10]}: {len(files)} file(s) — {', '.join(files)}")
    ctx.say("/undo commit reverts it (git revert: a new commit)", "dim")


def last_commit(ctx: Ctx) -> str:
    """The agent's last /commit in this session not reverted since ("" when none)."""
    sha = ""
    for rec in load(ctx.run.store.path).records:
        if rec.get("t") == "commit":
            sha = str(rec.get("sha", ""))
        elif rec.get("t") == "revert" and rec.get("sha") == sha:
            sha = ""
    return sha


async def revert_last(ctx: Ctx) -> None:
    """`/undo commit`: revert the agent's last commit, when it is on the current branch."""
    sha, cwd = last_commit(ctx), ctx.cfg.cwd
    if not sha:
        ctx.say("no commit of this session to revert")
        return
    try:
        if not ctx.cfg.trusted and refusal(cwd, "/undo commit"):
            raise GitError(refusal(cwd, "/undo commit"))
        await git(cwd, "merge-base", "--is-ancestor", sha, "HEAD")
        await git(cwd, "revert", "--no-edit", sha, hooks=ctx.cfg.trusted)
    except GitError as e:
        ctx.say(f"/undo commit: {sha[:10]} cannot be reverted here: {e}", "red")
        return
    ctx.run.store.append({"t": "revert", "sha": sha})
    ctx.say(f"reverted {sha[:10]} with a new commit (history kept)")
