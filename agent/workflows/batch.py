"""Workflow commands built on subagents: /simplify and /batch (the REPL wiring is in
agent.workflow_commands; /loop is in agent.prompt_loop).

/simplify runs three read-only reviewers (reuse, quality, efficiency) in parallel on the
uncommitted changes, then sends their findings through the main loop, which applies the fixes
that hold up. /batch asks the model (one request, no tools) to split a task into 3–8 independent
units, runs them as parallel subagents — each in its own git worktree when the project is a git
repository — and reports per unit.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.base.events import Recorder
from agent.git.diff import working_diff
from agent.git.safe import refusal
from agent.subagents import worktree as w
from agent.subagents.defs import AgentDef
from agent.subagents.runner import Job, Report, Subagents
from agent.tools import builtin_tools

DIFF_CHARS = 40_000  # of the diff each reviewer gets; it can read the files for more
MIN_UNITS, MAX_UNITS = 3, 8
FINDINGS = (
    "Do not change any file. Report at most 8 findings, most important first, each as "
    "`path:line` — the problem — the concrete fix. If nothing is worth changing, reply "
    "'No findings.'"
)
REVIEWERS = {
    "reuse": "Find new code that duplicates what the codebase already has (helpers, utilities, "
    "established patterns) — search for them with grep and glob and name what to reuse, with "
    "its path — and duplication inside the change itself.",
    "quality": "Find readability and maintainability problems: unclear names, needless "
    "complexity or nesting, dead code, missing error handling at boundaries, code that does "
    "not follow the style around it. Skip matters of taste.",
    "efficiency": "Find wasted work: repeated computation, calls or I/O in loops, quadratic "
    "passes over data that can grow, blocking calls in async code, needless copies, missed "
    "early exits. Only what matters at realistic sizes.",
}
APPLY = (
    "Three reviewers (reuse, quality, efficiency) read the uncommitted changes{focus}. Their "
    "findings are below. Apply the fixes that are clearly right and worth making; skip findings "
    "that are doubtful, only taste, or contradict another. Keep behaviour unchanged and edits "
    "small, then run the relevant tests. Finish with a short list of what you changed and which "
    "findings you skipped, and why."
)
PLAN = (
    "Split the user's task into {min} to {max} independent units of work that separate agents can "
    "do in parallel{where}, without editing the same files. Reply with JSON only, no prose: "
    '{{"units": [{{"title": "a few words", "prompt": "complete, self-contained instructions; '
    'the agent sees nothing else"}}]}}'
)


class WorkflowError(Exception):
    """A workflow cannot run (no changes, no usable plan); the message says why."""


def readers() -> tuple[str, ...]:
    """The tools a reviewer may use: those that read files and folders, and change nothing."""
    return tuple(t.name for t in builtin_tools() if t.kind == "read" and t.target is not None)


def reviewer(kind: str) -> AgentDef:
    prompt = f"{REVIEWERS[kind]}\n\n{FINDINGS}"
    return AgentDef(f"{kind}-reviewer", f"reviews changes for {kind}", prompt, tools=readers())


def changed_files(diff: str) -> list[str]:
    """Paths named by a unified diff's `diff --git` headers, in order."""
    found = re.findall(r"^diff --git a/(\S+) b/(\S+)$", diff, re.M)
    return list(dict.fromkeys(b if b != "/dev/null" else a for a, b in found))


def review_jobs(diff: str, focus: str) -> list[Job]:
    files = ", ".join(changed_files(diff)) or "(see the diff)"
    if len(diff) > DIFF_CHARS:
        diff = diff[:DIFF_CHARS] + "\n[... cut; run `git diff HEAD` or read the files for more]\n"
    extra = f"\nFocus especially on: {focus}" if focus else ""
    return [
        Job(
            f"Review the uncommitted changes of this repository for {kind}.{extra}\n"
            f"Changed files: {files}\n\n```diff\n{diff}```",
            reviewer(kind),
            label=f"{kind} review",
        )
        for kind in REVIEWERS
    ]


def apply_prompt(reports: list[Report], focus: str) -> str:
    parts = [APPLY.format(focus=f" (focus: {focus})" if focus else "")]
    for kind, r in zip(REVIEWERS, reports, strict=True):
        body = r.text.strip() if r.ok else f"(this reviewer failed: {r.error or r.subtype})"
        parts.append(f"## {kind.capitalize()} review\n{body}")
    return "\n\n".join(parts)


Turn = Callable[[str], Awaitable[Any]]


async def simplify(
    runner: Subagents, cwd: Path, focus: str, turn: Turn, trusted: bool = False
) -> list[Report]:
    """Three parallel reviews of the working tree's changes, then one turn that applies them.
    `trusted`: git may run in a repository that is not plain (agent.git.diff.working_diff)."""

    diff = await working_diff(cwd, trusted)
    if not diff.strip():
        raise WorkflowError("no changes to simplify (the working tree matches HEAD)")
    reports = await runner.run_many(review_jobs(diff, focus))
    if not any(r.ok for r in reports):
        raise WorkflowError("every reviewer failed: " + "; ".join(r.error for r in reports))
    await turn(apply_prompt(reports, focus))
    return reports


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


async def plan_units(agent: Any, task: str, git: bool) -> list[Unit]:
    """One request without tools: the task split into units (its cost joins the session's)."""

    where = ", each in its own copy of the repository" if git else " in the same directory"
    messages = [
        {"role": "system", "content": PLAN.format(min=MIN_UNITS, max=MAX_UNITS, where=where)},
        {"role": "user", "content": task},
    ]
    for _ in (1, 2):  # a plan of the wrong size gets one correction
        reply = await agent.llm.complete(messages, [], Recorder(), 0)
        agent.totals.add(reply.usage, agent.llm.cfg.provider)
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


def unit_job(runner: Subagents, n: int, unit: Unit, wt: Any, cwd: Path) -> Job:
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
    trees: list[Any] = [None] * len(units)
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


def _settle(wt: Any, res: UnitResult, hooks: bool) -> None:
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
