"""/resume and /rewind in the REPL (SPEC §8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.commands.command import Front
from agent.commands.commit import last_commit, revert_last
from agent.commands.registry import Ctx, command
from agent.permissions.request import AskRequest
from agent.session.checkpoints import Checkpoint
from agent.session.resume import describe as describe_session
from agent.session.resume import restore
from agent.session.rewind import (
    BASH_NOTE,
    describe,
    file_plans,
    listing,
    rewind_conversation,
    rewind_files,
)
from agent.session.salvage import check  # unreadable lines: said, and the file kept
from agent.session.store import SessionBusy, SessionFile, load, new_id, resumable
from agent.tools.tasks.todo_list import last_saved

if TYPE_CHECKING:  # annotations only
    from agent.app import Run
    from agent.base.messages import Message


def switch_session(run: Run, session_id: str | None) -> int:
    """Point a live Run at another stored session (None: a new one); returns the number of
    messages loaded."""

    store = SessionFile(run.cfg.root, session_id or new_id())
    snaps = run.recorder.snapshots
    if session_id is None:
        history: list[Message] = []
        snaps.checkpoint = 0
    else:
        history = restore(store, snaps)  # also sets the checkpoint counter
    old, run.store, run.recorder.store, snaps.store = run.store, store, store, store
    old.close()
    run.session_id = run.agent.ctx.session_id = store.id
    for layer in (*run.agent.dispatcher.layers, run.hooks):
        if hasattr(layer, "session_id"):
            layer.session_id = store.id
    run.hooks.transcript_path = str(store.path)
    run.replace_history(history)
    todo = run.agent.ctx.todo
    if todo is not None:  # the todo list belongs to the session too
        todo.load((last_saved(load(store.path).records) or []) if session_id else [])
    run.recorder.start(run.cfg.cwd, run.agent.llm.model, resumed_from=session_id or "")
    return len(history)


@command("clear", aliases=("reset", "new"), repl_only=True)
async def clear_cmd(ctx: Ctx, args: str) -> None:
    """Start a new conversation and clear the screen; the earlier one stays resumable."""
    old = ctx.run.session_id
    had = len(ctx.agent.messages) > 1
    ctx.agent.system_prompt = ctx.run.system_prompt()  # memory edits apply from here on
    ctx.agent.messages[0] = {"role": "system", "content": ctx.agent.system_prompt}
    switch_session(ctx.run, None)
    if ctx.front is not None:
        ctx.front.clear()
    ctx.say(f"new conversation {ctx.run.session_id}", "dim")
    if had:
        ctx.say(f"the earlier one: /resume, or agent -r {old}", "dim")
    await ctx.run.start("clear")  # SessionStart hooks see the new conversation


@command("resume", usage="[N|ID]", repl_only=True)
async def resume(ctx: Ctx, args: str) -> None:
    """Resume an earlier session of this directory: a picker (or a list), /resume N picks one."""
    here = [s for s in resumable(ctx.cfg.root, ctx.cfg.cwd) if s.id != ctx.run.session_id]
    arg = args.strip()
    if not arg and not here:
        ctx.say("no earlier session in this directory")
        return
    if not arg and ctx.front is None:
        for n, s in enumerate(here[:20], 1):
            ctx.say(f"{n:>3}. {describe_session(s)}")
        ctx.say("resume one with /resume N or /resume ID")
        return
    if not arg:
        assert ctx.front is not None
        rows = [describe_session(s, 300) for s in here[:50]]
        picked = await ctx.front.choose("resume which?", rows)
        if picked is None:
            return
        arg = str(picked + 1)
    pick = [s for s in here if s.id.startswith(arg)]
    if arg.isdigit() and 1 <= int(arg) <= len(here):
        pick = [here[int(arg) - 1]]
    if len(pick) != 1:
        ctx.say(f"no single session matches {arg!r}")
        return

    lost = check(ctx.run.store.path.parent / f"{pick[0].id}.jsonl")
    try:
        count = switch_session(ctx.run, pick[0].id)
    except SessionBusy as e:
        ctx.say(str(e))
        return
    if lost:
        ctx.say(f"warning: {lost}", "yellow")
    if ctx.front is not None:
        ctx.front.replay(ctx.run.agent.messages[1:])
    ctx.say(f"resumed {pick[0].id} ({count} messages)")
    await ctx.run.start("resume")  # SessionStart hooks see the switch, as at `agent -r`


WHAT = ("both", "conversation", "files")
WHAT_ROWS = (
    "conversation and files — both as they were before this prompt",
    "conversation only — the files stay as they are",
    "files only — the files this session changed since, as they were",
)


@command(
    "rewind",
    usage="[N] [conversation|files|both] [--force] | commit",
    aliases=("undo", "checkpoint"),
    repl_only=True,
)
async def rewind(ctx: Ctx, args: str) -> None:
    """Go back to a checkpoint: the conversation, the files this session changed, or both."""
    words = args.split()
    if words == ["commit"]:  # the agent's last /commit, reverted by a new commit
        await revert_last(ctx)
        return
    cps = listing(ctx.run.store, ctx.cfg.root)
    if not words:
        if ctx.front is not None and cps:
            await _rewind_picked(ctx, ctx.front, cps)
            return
        _list(ctx, cps)
        return
    match = [cp for cp in cps if str(cp.n) == words[0].lstrip("#")]
    if match and len(words) == 1:  # offer the choice; never act on a bare number
        n = match[0].n
        ctx.say(describe(match[0]))
        ctx.say(f"/rewind {n} conversation — the conversation as it was before #{n}")
        ctx.say(f"/rewind {n} files — the files this session changed since, as they were")
        ctx.say(f"/rewind {n} both — both ({BASH_NOTE})")
        return
    what = words[1] if len(words) > 1 else ""
    if not match and words[0].lstrip("#").isdigit():
        have = ", ".join(f"#{cp.n}" for cp in cps) or "none yet"
        ctx.say(f"no checkpoint {words[0]}: the checkpoints are {have} (/rewind lists them)")
        return
    if not match or what not in WHAT:
        ctx.say("usage: /rewind N conversation|files|both [--force]")
        return
    await _rewind(ctx, match[0], what, "--force" in words)


def _list(ctx: Ctx, cps: list[Checkpoint]) -> None:
    if not cps:
        ctx.say("no checkpoints yet")
    for cp in cps:
        ctx.say(describe(cp))
    if cps:
        ctx.say(f"/rewind N conversation|files|both — {BASH_NOTE}")
    sha = last_commit(ctx)
    if sha:
        ctx.say(f"this session committed {sha[:10]}: /undo commit reverts it (git revert)")


async def _rewind_picked(ctx: Ctx, front: Front, cps: list[Checkpoint]) -> None:
    """Esc Esc or /rewind in the REPL: pick the prompt to go back to, then what goes back; the
    prompt is put back in the input when the conversation went back."""
    rows = [describe(cp, 300) for cp in cps]
    n = await front.choose("rewind to before which prompt?", rows, default=len(rows) - 1)
    if n is None:
        return
    cp = cps[n]
    ctx.say(f"files: {BASH_NOTE}", "dim")
    how = await front.choose(f"rewind to before #{cp.n}: what goes back?", list(WHAT_ROWS))
    if how is None:
        return
    if await _rewind(ctx, cp, WHAT[how], False) and cp.prompt:
        front.put_back(cp.prompt)


async def _rewind(ctx: Ctx, cp: Checkpoint, what: str, force: bool) -> bool:
    """Rewind to `cp`: its files, conversation or both; True when the conversation went back."""
    if what in ("files", "both"):
        conflicts = [p.path for p in file_plans(ctx.run.store, cp) if p.conflict]
        if conflicts and not force:
            force = await _overwrite(ctx, conflicts)
            if not force:
                ctx.say(
                    "changed outside the agent since, not restored:\n  " + "\n  ".join(conflicts)
                )
                ctx.say(f"run /rewind {cp.n} {what} --force to overwrite them")
        ctx.say(rewind_files(ctx.run.store, cp, force=force).message)
    if what in ("conversation", "both"):
        history, outcome = rewind_conversation(ctx.run.store, cp)
        ctx.run.replace_history(history)
        ctx.say(outcome.message)
        return True
    return False


async def _overwrite(ctx: Ctx, conflicts: list[str]) -> bool:
    """Ask whether files changed outside the agent may be overwritten (no terminal: no)."""

    asker = getattr(ctx.run.gate, "asker", None)
    if asker is None:
        return False
    why = "changed outside the agent since; overwrite with the checkpoint's version?"
    req = AskRequest("rewind", {}, why, ", ".join(conflicts), choices=("y", "n"), for_model=False)
    return bool((await asker(req)).choice == "y")
