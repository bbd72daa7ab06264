"""/simplify: three read-only reviewers (reuse, quality, efficiency) read the uncommitted changes
in parallel, then their findings go through the main loop, which applies the fixes that hold up.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from agent.git.diff import working_diff
from agent.subagents.defs import AgentDef
from agent.subagents.records import Job, Report
from agent.subagents.runner import Subagents
from agent.tools.builtin import builtin_tools
from agent.tools.shared.secret_hits import shown_files
from agent.workflows.batch import WorkflowError

DIFF_CHARS = 40_000  # of the diff each reviewer gets; it can read the files for more
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


Turn = Callable[[str], Awaitable[object]]


async def simplify(
    runner: Subagents,
    cwd: Path,
    focus: str,
    turn: Turn,
    trusted: bool = False,
    denied: tuple[str, ...] = (),
) -> list[Report]:
    """Three parallel reviews of the working tree's changes, then one turn that applies them.
    `trusted`: git may run in a repository that is not plain (agent.git.diff.working_diff);
    `denied`: what read deny rules forbid (Gate.read_denials), never sent."""

    diff = await working_diff(cwd, trusted, keep=shown_files(cwd, denied))
    if not diff.strip():
        raise WorkflowError("no changes to simplify (the working tree matches HEAD)")
    reports = await runner.run_many(review_jobs(diff, focus))
    if not any(r.ok for r in reports):
        raise WorkflowError("every reviewer failed: " + "; ".join(r.error for r in reports))
    await turn(apply_prompt(reports, focus))
    return reports
