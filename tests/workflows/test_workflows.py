"""Workflow commands: /loop scheduling, /batch in real git worktrees, /simplify's reviewers."""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import close_all, make_agent
from routed_fake import RoutedFake, close_runs, is_child, make_run, serve, tool_names

from agent.base.events import TurnEnd, TurnStart
from agent.commands.registry import help_rows
from agent.workflows.batch import WorkflowError, batch, batch_report, parse_units
from agent.workflows.repeat import PromptLoop, describe, parse_args, parse_interval
from agent.workflows.simplify import simplify

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


@pytest.fixture
def routed(request: pytest.FixtureRequest) -> Iterator[RoutedFake]:
    yield from serve(request)


@pytest.fixture(autouse=True)
async def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    yield
    await close_runs()
    await close_all()


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    (r / "app.py").write_text("def add(a, b):\n    return a + b\n")
    git(r, "add", ".")
    git(r, "commit", "-q", "-m", "init")
    return r


# -- /loop ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [("30s", 30), ("5m", 300), ("1h", 3600), ("10", 600), ("2min", 120), ("1.5h", 5400)],
)
def test_interval_parsing(raw: str, seconds: float) -> None:
    assert parse_interval(raw) == seconds


@pytest.mark.parametrize("raw", ["", "soon", "5x", "-1m", "0s", "0.5s"])
def test_bad_intervals(raw: str) -> None:
    with pytest.raises(ValueError, match="interval"):
        parse_interval(raw)


def test_loop_arguments() -> None:
    assert parse_args("") is None
    assert parse_args("5m check the build") == (300, "check the build")
    with pytest.raises(ValueError, match="usage"):
        parse_args("5m")
    assert describe(300) == "5m"
    assert describe(3600) == "1h"
    assert describe(45) == "45s"


async def test_runs_never_overlap_even_when_slower_than_the_interval() -> None:
    spans: list[tuple[float, float]] = []
    done = asyncio.Event()
    active = 0

    async def turn(prompt: str) -> None:
        nonlocal active
        active += 1
        assert active == 1, "two runs at once"
        t0 = asyncio.get_running_loop().time()
        await asyncio.sleep(0.03)
        spans.append((t0, asyncio.get_running_loop().time()))
        active -= 1
        if len(spans) == 4:
            done.set()

    loop = PromptLoop(0.01, "p", turn).start()
    await asyncio.wait_for(done.wait(), 20)
    await loop.aclose()
    assert not loop.running
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start >= end


async def test_a_failed_run_does_not_stop_the_loop() -> None:
    errors: list[BaseException] = []
    calls = 0
    two = asyncio.Event()

    async def turn(prompt: str) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            two.set()
        raise RuntimeError("boom")

    loop = PromptLoop(0.01, "p", turn, errors.append).start()
    await asyncio.wait_for(two.wait(), 20)
    await loop.aclose()
    assert [str(e) for e in errors[:2]] == ["boom", "boom"]


async def test_loop_runs_wait_for_the_users_turn(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.script(
        tool_calls([("slow", {"seconds": 0.3})]),
        text("user turn done"),
        text("loop run 1"),
        text("loop run 2"),
    )
    agent, rec = make_agent(fake, tmp_path)
    user = asyncio.ensure_future(agent.run_turn("user question"))
    await asyncio.sleep(0)  # the user's turn takes the agent first
    two = asyncio.Event()
    runs = 0

    async def turn(prompt: str) -> Any:
        nonlocal runs
        end = await agent.run_turn(prompt)
        runs += 1
        if runs == 2:
            two.set()
        return end

    loop = PromptLoop(0.2, "check", turn).start()  # its first run is due at once
    await asyncio.wait_for(two.wait(), 20)
    await loop.aclose()
    await user
    marks = [type(e).__name__ for e in rec.events if isinstance(e, (TurnStart, TurnEnd))]
    assert marks == ["TurnStart", "TurnEnd"] * 3
    prompts = [e.prompt for e in rec.events if isinstance(e, TurnStart)]
    assert prompts == ["user question", "check", "check"]


class Console:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def print(self, text: Any = "", **kw: Any) -> None:
        self.lines.append(str(text))


def command_ctx(run: Any, turn: Any) -> Any:
    from agent.commands.registry import COMMANDS, Ctx, load_modules

    load_modules()
    return Ctx(run, Console(), turn, commands=dict(COMMANDS))


async def test_loop_command_starts_and_stops(fake: FakeOpenAI, tmp_path: Path) -> None:
    from agent.commands.registry import dispatch

    run, _ = make_run(fake, tmp_path)
    ran = asyncio.Event()
    prompts: list[str] = []

    async def turn(prompt: str) -> None:
        prompts.append(prompt)
        ran.set()

    ctx = command_ctx(run, turn)
    await dispatch(ctx, "/loop 5m check the build")
    assert "looping every 5m: check the build" in ctx.console.lines[-1]
    await asyncio.wait_for(ran.wait(), 20)
    assert prompts == ["check the build"]
    loop = run.agent.ctx.loop
    assert loop.running
    await dispatch(ctx, "/loop")
    assert not loop.running
    assert "stopped the loop (1 run(s)" in ctx.console.lines[-1]
    await dispatch(ctx, "/loop soon do it")
    assert "not an interval" in ctx.console.lines[-1]


# -- /batch -----------------------------------------------------------------------------


def test_parse_units_accepts_objects_lists_and_fences() -> None:
    fenced = '```json\n{"units": [{"title": "a", "prompt": "do a"}, "do b"]}\n```'
    assert [u.prompt for u in parse_units(fenced)] == ["do a", "do b"]
    many = json.dumps([f"unit {n}" for n in range(12)])
    assert len(parse_units(many)) == 12  # all of them: the size is checked by the planner step
    with pytest.raises(WorkflowError):
        parse_units("I cannot do that")


async def test_batch_runs_three_units_in_their_own_worktrees(
    routed: RoutedFake, repo: Path
) -> None:
    units = [
        {"title": "add sub", "prompt": "UNIT-A: add sub.py with a sub function"},
        {"title": "add mul", "prompt": "UNIT-B: add mul.py with a mul function"},
        {"title": "check docs", "prompt": "UNIT-C: check that app.py needs no docs"},
    ]
    routed.script(text(json.dumps({"units": units})))
    for marker, name in (("UNIT-A", "sub.py"), ("UNIT-B", "mul.py")):
        write = ("write_file", {"path": name, "content": f"# {name}\n"})
        routed.route(marker, tool_calls([write]), text(f"wrote {name}"))
    routed.route("UNIT-C", text("no docs needed"))
    run, _rec = make_run(routed, repo, mode="acceptEdits")
    results = await batch(run.agent.ctx.subagents, "add arithmetic helpers", repo)
    planner = [r for r in routed.requests if not is_child(r)]
    assert len(planner) == 1
    assert "tools" not in planner[0]  # a plain JSON request
    assert [r.report.ok for r in results] == [True, True, True]
    a, b, c = results
    for res, name in ((a, "sub.py"), (b, "mul.py")):
        wt = Path(res.where.split(" in ")[-1])
        assert wt.parent == repo / ".agent" / "worktrees"
        assert git(wt, "log", "-1", "--format=%s").strip() == f"batch: {res.unit.title}"
        assert git(wt, "show", "--name-only", "--format=").split() == [name]
        assert res.branch in git(repo, "branch")
        assert not (repo / name).exists()
    assert c.where == "no changes (worktree removed)"
    assert not c.branch
    assert len(list((repo / ".agent" / "worktrees").iterdir())) == 2
    children = [r for r in routed.requests if is_child(r)]
    assert len(children) == 5
    assert all("task" not in tool_names(r) for r in children)
    report = batch_report(results)
    assert "1. add sub — done" in report
    assert "3. check docs — done" in report
    assert f"branches: {a.branch}, {b.branch}" in report
    # Only make_run's settings.json shows: worktrees/ and .agent/.gitignore are ignored, the
    # sessions and the audit log are kept in the state directory.
    status = git(repo, "status", "--porcelain", "--untracked-files=all")
    assert status == "?? .agent/settings.json\n"


async def test_batch_reports_work_git_refused_to_commit(routed: RoutedFake, repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'lint says no' >&2\nexit 1\n")
    hook.chmod(0o755)
    prompts = [f"HOOK-{n}: write f{n}.py" for n in (1, 2, 3)]
    routed.script(text(json.dumps(prompts)))
    for n in (1, 2, 3):
        write = ("write_file", {"path": f"f{n}.py", "content": "x = 1\n"})
        routed.route(f"HOOK-{n}", tool_calls([write]), text(f"wrote f{n}.py"))
    run, _rec = make_run(routed, repo, mode="acceptEdits")
    results = await batch(run.agent.ctx.subagents, "write files", repo, trusted=True)
    for n, res in enumerate(results, 1):
        assert res.uncommitted
        assert res.where.endswith(": git commit failed: lint says no")
        wt = Path(res.where.split(" in ")[-1].split(":")[0])
        assert git(wt, "status", "--porcelain").split() == ["A", f"f{n}.py"]  # kept, staged
    report = batch_report(results)
    assert "git merge" not in report
    assert "uncommitted work is not on its branch yet" in report


async def test_an_untrusted_repositorys_commit_hook_never_runs(
    routed: RoutedFake, repo: Path
) -> None:
    """A .git/hooks/pre-commit that came with the repository (an archive, a shared folder) is
    its code: /batch commits without it until the user trusts the project."""
    marker = repo.parent / "hook-ran"
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    routed.script(text(json.dumps([f"SOLO-{n}: write g{n}.py" for n in (1, 2, 3)])))
    for n in (1, 2, 3):
        write = ("write_file", {"path": f"g{n}.py", "content": "x = 1\n"})
        routed.route(f"SOLO-{n}", tool_calls([write]), text(f"wrote g{n}.py"))
    run, _rec = make_run(routed, repo, mode="acceptEdits")
    results = await batch(run.agent.ctx.subagents, "write files", repo)
    for n, res in enumerate(results, 1):
        assert not res.uncommitted and res.branch
        assert f"g{n}.py" in git(repo, "show", "--stat", res.branch)
    assert not marker.exists()


async def test_an_untrusted_repository_that_is_not_plain_gets_no_worktree_or_diff(
    routed: RoutedFake, repo: Path
) -> None:
    """Its own config could make git run a command the agent cannot name and switch off: /batch
    and /simplify refuse it until the project is trusted, and nothing of it runs."""
    from agent.git.diff import GitError

    marker = repo.parent / "MARKER"
    (repo / ".gitattributes").write_text("*.py filter=x\n")
    git(repo, "config", "filter.x.clean", f"touch {marker}; cat")
    git(repo, "config", "filter.x.smudge", f"touch {marker}; cat")
    (repo / "app.py").write_text("changed\n")
    run, _rec = make_run(routed, repo)
    subagents = run.agent.ctx.subagents
    with pytest.raises(WorkflowError, match=r"filter\.x\.clean.*/batch run no git.*--trust"):
        await batch(subagents, "write files", repo)  # before planning: no model call

    async def turn(prompt: str) -> None:
        raise AssertionError("no turn expected")

    with pytest.raises(GitError, match=r"filter\.x\.clean.*/simplify run no git"):
        await simplify(subagents, repo, "", turn)
    assert not marker.exists()
    assert not (repo / ".agent" / "worktrees").exists()


async def test_an_interrupted_batch_says_what_it_kept(routed: RoutedFake, repo: Path) -> None:
    from agent.commands.registry import dispatch

    prompts = [f"STOP-{n}: write s{n}.py" for n in (1, 2, 3)]
    routed.script(text(json.dumps(prompts)))
    for n in (1, 2, 3):
        write = ("write_file", {"path": f"s{n}.py", "content": "x = 1\n"})
        slow = text("still going " * 50, pieces=50, delay=0.2)
        routed.route(f"STOP-{n}", tool_calls([write]), slow)
    run, _rec = make_run(routed, repo, mode="acceptEdits")

    async def turn(prompt: str) -> None:
        raise AssertionError("no turn expected")

    routed.allow_unused()  # a unit cut off between its write and its slow reply leaves one
    ctx = command_ctx(run, turn)
    task = asyncio.ensure_future(dispatch(ctx, "/batch write files"))
    trees = repo / ".agent" / "worktrees"
    for _ in range(200):  # until every unit has written its file
        if len(list(trees.glob("*/s*.py"))) == 3:
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    said = "\n".join(ctx.console.lines)
    assert "interrupted; the work so far is kept" in said
    kept = [b for b in git(repo, "branch", "--format=%(refname:short)").split() if "batch" in b]
    assert len(kept) == 3 and all(b in said for b in kept)


async def test_batch_without_git_runs_in_place(routed: RoutedFake, tmp_path: Path) -> None:
    routed.script(text('["PLAIN-1: say one", "PLAIN-2: say two", "PLAIN-3: say three"]'))
    for n in (1, 2, 3):
        routed.route(f"PLAIN-{n}", text(f"said {n}"))
    run, _ = make_run(routed, tmp_path)
    results = await batch(run.agent.ctx.subagents, "say things", tmp_path)
    assert [r.report.text for r in results] == ["said 1", "said 2", "said 3"]
    assert all(r.where == "" for r in results)
    assert not (tmp_path / ".agent" / "worktrees").exists()


# -- /simplify --------------------------------------------------------------------------


async def test_simplify_runs_three_reviewers_then_applies_in_the_main_loop(
    routed: RoutedFake, repo: Path
) -> None:
    (repo / "app.py").write_text("def add(a, b):\n    total = a + b\n    return total\n")
    for kind in ("reuse", "quality", "efficiency"):
        routed.route(f"repository for {kind}.", text(f"{kind.upper()}-FINDING app.py:2"))
    routed.script(text("applied the quality fix"))
    run, _ = make_run(routed, repo)

    async def turn(prompt: str) -> Any:
        return await run.agent.run_turn(prompt)

    reports = await simplify(run.agent.ctx.subagents, repo, "naming", turn)
    assert [r.ok for r in reports] == [True, True, True]
    reviewers = [r for r in routed.requests if is_child(r)]
    assert len(reviewers) == 3
    for r in reviewers:
        assert tool_names(r) == ["read_file", "glob", "grep", "outline", "symbols"]
        assert "diff --git a/app.py b/app.py" in r["messages"][1]["content"]
        assert "Focus especially on: naming" in r["messages"][1]["content"]
    main = next(r for r in routed.requests if not is_child(r))
    prompt = main["messages"][-1]["content"]
    for kind in ("REUSE", "QUALITY", "EFFICIENCY"):
        assert f"{kind}-FINDING" in prompt
    assert run.agent.messages[-1]["content"] == "applied the quality fix"


async def test_simplify_without_changes_says_so(routed: RoutedFake, repo: Path) -> None:
    run, _ = make_run(routed, repo)
    git(repo, "add", ".agent")
    git(repo, "commit", "-q", "-m", "agent settings")

    async def turn(prompt: str) -> None:
        raise AssertionError("no turn expected")

    with pytest.raises(WorkflowError, match="no changes"):
        await simplify(run.agent.ctx.subagents, repo, "", turn)


async def test_commands_explain_what_is_missing(fake: FakeOpenAI, tmp_path: Path) -> None:
    from agent.commands.registry import dispatch

    run, _ = make_run(fake, tmp_path)

    async def turn(prompt: str) -> None:
        raise AssertionError("no turn expected")

    ctx = command_ctx(run, turn)
    await dispatch(ctx, "/batch")
    assert ctx.console.lines[-1] == "usage: /batch <task>"
    await dispatch(ctx, "/simplify")
    assert "not a git repository" in ctx.console.lines[-1].lower()
    assert "/simplify [focus]" in [row[0] for row in help_rows(ctx.commands)]


async def test_a_plan_of_the_wrong_size_is_corrected_once_then_refused(
    routed: RoutedFake, tmp_path: Path
) -> None:
    run, _ = make_run(routed, tmp_path)
    subagents = run.agent.ctx.subagents
    eleven = json.dumps([f"SIZED-{n}: part {n}" for n in range(11)])
    three = json.dumps([f"SIZED-{n}: part {n}" for n in range(3)])
    routed.script(text(eleven), text(three))
    for n in range(3):
        routed.route(f"SIZED-{n}", text(f"did {n}"))
    results = await batch(subagents, "a big task", tmp_path)
    assert [r.report.text for r in results] == ["did 0", "did 1", "did 2"]
    correction = routed.requests[1]["messages"][-1]["content"]
    assert correction.startswith("That plan has 11 units; it must have 3 to 8.")
    routed.script(text(eleven), text(eleven))
    with pytest.raises(WorkflowError, match="the plan has 11 units, more than 8: narrow"):
        await batch(subagents, "a bigger task", tmp_path)
    routed.script(text('["only one"]'), text('["still one"]'))
    with pytest.raises(WorkflowError, match="does not split into 3 or more independent units"):
        await batch(subagents, "a tiny task", tmp_path)


async def test_simplify_on_a_fresh_commit_ignores_the_agents_own_files(
    routed: RoutedFake, repo: Path
) -> None:
    from agent.commands.registry import dispatch
    from agent.permissions.asking import remember

    run, _ = make_run(routed, repo)
    (repo / ".agent" / "settings.json").unlink()  # read already; only the agent's files remain
    status = ["status", "--porcelain", "--untracked-files=all"]
    assert git(repo, *status) == ""  # sessions and the audit log live in the state directory
    remember(repo, ["bash(ls)"])  # settings.local.json, and a .gitignore that lists itself
    assert (repo / ".agent" / "settings.local.json").is_file()
    assert git(repo, *status) == ""
    # A .gitignore an earlier version wrote does not list itself: it shows, but is no change.
    old = "sessions/\nsettings.local.json\naudit.jsonl\n*.log\nworktrees/\n"
    (repo / ".agent" / ".gitignore").write_text(old)
    assert git(repo, *status) == "?? .agent/.gitignore\n"

    async def turn(prompt: str) -> None:
        raise AssertionError("no turn expected")

    ctx = command_ctx(run, turn)
    await dispatch(ctx, "/simplify")
    assert "no changes to simplify" in ctx.console.lines[-1]
    assert routed.requests == []


async def test_batch_from_an_untracked_subdirectory_starts_at_the_worktree_top(
    routed: RoutedFake, repo: Path
) -> None:
    sub = repo / "sub"
    sub.mkdir()
    (sub / "scratch.txt").write_text("not committed\n")
    routed.script(text('["SUBDIR-1: run pwd", "SUBDIR-2: run pwd", "SUBDIR-3: run pwd"]'))
    for n in (1, 2, 3):
        routed.route(f"SUBDIR-{n}", tool_calls([("bash", {"command": "pwd"})]), text("ran"))
    run, _ = make_run(routed, repo)
    results = await batch(run.agent.ctx.subagents, "look around", sub)
    assert [r.report.ok for r in results] == [True, True, True]
    children = [r for r in routed.requests if is_child(r)]
    for n in (1, 2, 3):
        first, second = (r for r in children if f"SUBDIR-{n}" in r["messages"][1]["content"])
        told = first["messages"][1]["content"]
        assert "sub/, where the user is, holds nothing git tracks" in told
        top = next(line for line in told.splitlines() if line.startswith("cwd: "))[5:]
        assert Path(top).parent == repo / ".agent" / "worktrees"
        ran = second["messages"][-1]["content"]
        assert "No such file" not in ran and top in ran


async def test_loop_runs_a_slash_command_as_a_command(routed: RoutedFake, repo: Path) -> None:
    from agent.commands.registry import dispatch

    run, _ = make_run(routed, repo)
    (repo / "app.py").write_text("def add(a, b):\n    return b + a\n")
    reviewed = asyncio.Event()
    prompts: list[str] = []

    async def turn(prompt: str) -> None:
        prompts.append(prompt)
        reviewed.set()

    ctx = command_ctx(run, turn)
    await dispatch(ctx, "/loop 5m /review")
    assert "looping every 5m: /review" in ctx.console.lines[-1]
    await asyncio.wait_for(reviewed.wait(), 20)
    await dispatch(ctx, "/loop")
    assert len(prompts) == 1 and prompts[0] != "/review"
    assert "+    return b + a" in prompts[0]  # /review sent the diff with its own prompt
    await dispatch(ctx, "/loop 5m /nosuchcommand")
    assert "unknown command /nosuchcommand" in ctx.console.lines[-1]
    await dispatch(ctx, "/loop 5m /loop 1m hi")
    assert "a loop cannot run /loop" in ctx.console.lines[-1]
    assert run.agent.ctx.loop is None
    reviewed.clear()
    await dispatch(ctx, "/loop 1h /usr/bin/env is odd")  # a path, not a command: a prompt
    assert "looping every 1h: /usr/bin/env is odd" in ctx.console.lines[-1]
    await asyncio.wait_for(reviewed.wait(), 20)
    await dispatch(ctx, "/loop")
    assert prompts[-1] == "/usr/bin/env is odd"
