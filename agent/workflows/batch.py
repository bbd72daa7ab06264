"""/batch: the model (one request, no tools) splits a task into 3–8 independent units, which run
as parallel subagents — each in its own git worktree when the project is a git repository — and
a report per unit. (/simplify is in agent.workflows.simplify, /loop in agent.workflows.repeat;
the REPL commands in agent.commands.workflows.)
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

from agent.base.events import Recorder
from agent.base.messages import Message
from agent.core.loop import Agent
from agent.git.safe import refusal
from agent.subagents import worktree as w
from agent.subagents.records import Job, Report
from agent.subagents.runner import Subagents

MIN_UNITS, MAX_UNITS = 3, 8
PLAN = (
    "Split the user's task into {min} to {max} independent units of work that separate agents can "
    "do in parallel{where}, without editing the same files. Reply with JSON only, no prose: "
    '{{"units": [{{"title": "a few words", "prompt": "complete, self-contained instructions; '
    'the agent sees nothing else"}}]}}'
)


class WorkflowError(Exception):
    """A workflow cannot run (no changes, no usable plan); the message says why."""


@dataclass(frozen=True)
class Unit:
    title: str
    prompt: str


@dataclass
class UnitResult:
    unit: Unit
    report: Report
    where: str = ""  # what became of its worktree ("" without git)
    branch: str = ""  # the branch kept with its work
    uncommitted: bool = False  # its work is in the worktree but not on the branch


def parse_units(text: str) -> list[Unit]:
    """Units from the planner's reply: a JSON object with `units`, or a bare list."""
    m = re.search(r"[\[{].*[\]}]", text, re.S)
    try:
        data = json.loads(m.group(0)) if m else None
    except ValueError:
        data = None
    items = data.get("units") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise WorkflowError("the model did not answer with a JSON list of units")
    units = []
    for it in items:
        if isinstance(it, str) and it.strip():
            units.append(Unit(it.strip()[:60], it.strip()))
        elif isinstance(it, dict) and str(it.get("prompt") or "").strip():
            prompt = str(it["prompt"]).strip()
            units.append(Unit(str(it.get("title") or prompt).strip()[:60], prompt))
    if not units:
        raise WorkflowError("the model's plan has no usable units")
    return units


async def plan_units(agent: Agent, task: str, git: bool) -> list[Unit]:
    """One request without tools: the task split into units (its cost joins the session's)."""

    where = ", each in its own copy of the repository" if git else " in the same directory"
    messages: list[Message] = [
        {"role": "system", "content": PLAN.format(min=MIN_UNITS, max=MAX_UNITS, where=where)},
        {"role": "user", "content": task},
    ]
    for _ in (1, 2):  # a plan of the wrong size gets one correction
        reply = await agent.llm.complete(messages, [], Recorder(), 0)
        agent.totals.add(reply.usage, agent.llm.price())
        units = parse_units(reply.text)
        if MIN_UNITS <= len(units) <= MAX_UNITS:
            return units
        messages += [
            {"role": "assistant", "content": reply.text},
            {
                "role": "user",
                "content": f"That plan has {len(units)} units; it must have {MIN_UNITS} to "
                f"{MAX_UNITS}. Reply with the corrected JSON only.",
            },
        ]
    if len(units) > MAX_UNITS:
        raise WorkflowError(
            f"the plan has {len(units)} units, more than {MAX_UNITS}: narrow the task, or run "
            "/batch on parts of it"
        )
    raise WorkflowError(
        f"the task does not split into {MIN_UNITS} or more independent units (the plan has "
        f"{len(units)}): ask for it as a normal message instead"
    )


def unit_job(runner: Subagents, n: int, unit: Unit, wt: w.Worktree | None, cwd: Path) -> Job:
    if wt is None:
        note = (
            "Other agents work on other units in parallel in this same directory: change "
            "only the files your unit needs."
        )
        return Job(f"{unit.prompt}\n\n{note}", label=f"unit {n}: {unit.title}")
    here = cwd.resolve()
    start = wt.path / here.relative_to(wt.repo) if here != wt.repo else wt.path
    where = ""
    if not start.is_dir():  # a directory git does not track is not in the worktree
        where = (
            f" You start at its top: {start.relative_to(wt.path)}/, where the user is, holds "
            "nothing git tracks, so the worktree has no such directory (create it if needed)."
        )
        start = wt.path
    note = (
        f"You work in your own git worktree, {start} (branch {wt.branch}); other units run in "
        "other worktrees. Change files only there and do not commit: your changes are "
        f"committed for you when you finish.{where}"
    )
    return Job(
        f"{unit.prompt}\n\n{note}",
        cwd=start,
        layers=runner.layers_for(start),
        label=f"unit {n}: {unit.title}",
    )


async def batch(
    runner: Subagents,
    task: str,
    cwd: Path,
    into: list[UnitResult] | None = None,
    trusted: bool = False,
) -> list[UnitResult]:
    """Plan units, run them in parallel (in worktrees when git), keep the worktrees with work.
    `into` receives the results as soon as the units are planned, so an interrupted batch
    can still say what it kept. `trusted`: the repository's commit hooks judge each commit,
    and git runs even where the repository is not plain (else: WorkflowError)."""

    why = "" if trusted else refusal(cwd, "--worktree and /batch")
    if why:  # said before planning: no model call for units that could not run
        raise WorkflowError(why)
    git = await asyncio.to_thread(w.repo_root, cwd) is not None
    units = await plan_units(runner.parent, task, git)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    trees: list[w.Worktree | None] = [None] * len(units)
    results = [UnitResult(u, Report("", u.title, False, "", "interrupted")) for u in units]
    if into is not None:
        into[:] = results
    try:
        for n in range(len(units) if git else 0):
            try:
                name = f"batch-{stamp}-{n + 1}"
                trees[n] = await asyncio.to_thread(w.create, cwd, name, trusted)
            except w.WorktreeError as e:
                raise WorkflowError(f"cannot make a worktree for unit {n + 1}: {e}") from None
        jobs = [unit_job(runner, n, u, trees[n - 1], cwd) for n, u in enumerate(units, 1)]
        for res, report in zip(results, await runner.run_many(jobs), strict=True):
            res.report = report
    finally:
        for res, wt in zip(results, trees, strict=True):
            if wt is not None:
                await asyncio.to_thread(_settle, wt, res, trusted)
    return results


def _settle(wt: w.Worktree, res: UnitResult, hooks: bool) -> None:
    """Commit a unit's work on its branch; remove its worktree when it did nothing."""

    refused = ""
    try:
        try:
            w.commit_all(wt, f"batch: {res.unit.title}", hooks)
        except w.WorktreeError as e:
            refused = str(e)  # the work stays in the worktree, uncommitted
        files, commits = w.changes(wt)
        if not files and not commits:
            w.remove(wt)
            res.where = "no changes (worktree removed)"
            return
    except w.WorktreeError as e:
        res.where = f"worktree {wt.path}: {e}"
        return
    if files:
        why = f": git commit failed: {refused}" if refused else ""
        res.where = f"{files} uncommitted file(s) in {wt.path}{why}"
        res.uncommitted = True
    else:
        res.where = f"branch {wt.branch} (committed) in {wt.path}"
    res.branch = wt.branch


def batch_report(results: list[UnitResult]) -> str:
    lines = []
    for n, r in enumerate(results, 1):
        rep = r.report
        status = "done" if rep.ok else f"FAILED ({rep.error or rep.subtype})"
        lines.append(f"{n}. {r.unit.title} — {status} · {rep.turns} turns · ${rep.cost_usd:.4f}")
        if r.where:
            lines.append(f"   {r.where}")
        summary = " ".join(rep.text.split())
        if summary:
            lines.append(f"   {summary[:300]}{'…' if len(summary) > 300 else ''}")
    kept = [r.branch for r in results if r.branch and not r.uncommitted]
    if kept:
        lines.append(f"merge a unit with `git merge <branch>`; branches: {', '.join(kept)}")
    if any(r.uncommitted for r in results):
        lines.append(
            "uncommitted work is not on its branch yet: commit it in its worktree "
            "(`git -C <worktree> commit -am ...`) before merging"
        )
    return "\n".join(lines)
