"""/commit and /undo commit in a real git repository: only the files this session changed are
committed (the user's other changes, staged or not, stay), never protected ones; the model writes
the message when none is given; /undo commit reverts with a new commit, keeping history."""

from __future__ import annotations

import io
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from rich.console import Console
from routed_fake import close_runs, make_run

from agent.commands.commit import _split, commit_cmd
from agent.commands.registry import Ctx
from agent.commands.session import rewind
from agent.permissions.paths import Workspace


@pytest.fixture(autouse=True)
async def _closed() -> AsyncIterator[None]:
    yield
    await close_runs()


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q")
    git(r, "config", "user.email", "t@example.com")
    git(r, "config", "user.name", "T")
    (r / "a.py").write_text("a = 1\n")
    (r / "b.py").write_text("b = 1\n")
    (r / ".agent").mkdir()
    (r / ".agent" / ".gitignore").write_text("*\n")
    git(r, "add", "a.py", "b.py")
    git(r, "commit", "-q", "-m", "start")
    return r


def edit(path: str, old: str, new: str) -> object:
    return tool_calls([("edit_file", {"path": path, "old_string": old, "new_string": new})])


async def test_commit_takes_only_the_sessions_files(fake: FakeOpenAI, repo: Path) -> None:
    (repo / "b.py").write_text("b = 2  # the user's own change\n")
    (repo / "c.py").write_text("c = 1\n")
    git(repo, "add", "c.py")  # staged by the user
    fake.script(
        tool_calls([("read_file", {"path": "a.py"})]),
        edit("a.py", "a = 1", "a = 2"),
        tool_calls([("write_file", {"path": "new.py", "content": "n = 1\n"})]),
        text("done"),
    )
    run, _ = make_run(fake, repo)
    await run.turn("change a, add new")
    out = io.StringIO()
    ctx = Ctx(run, Console(file=out, width=200, soft_wrap=True), run.turn)
    await commit_cmd(ctx, "agent: change a, add new")
    assert "committed" in out.getvalue(), out.getvalue()
    assert git(repo, "show", "--name-only", "--format=%s", "HEAD").split() == [
        "agent:", "change", "a,", "add", "new", "a.py", "new.py",
    ]  # fmt: skip
    status = git(repo, "status", "--porcelain")
    assert " M b.py" in status and "A  c.py" in status  # the user's, as they were


async def test_the_model_writes_the_message_and_undo_reverts(fake: FakeOpenAI, repo: Path) -> None:
    fake.script(
        tool_calls([("read_file", {"path": "a.py"})]),
        edit("a.py", "a = 1", "a = 3"),
        text("done"),
        text("Set a to 3\n\nThe new default."),  # the side request for the message
    )
    run, _ = make_run(fake, repo)
    await run.turn("set a to 3")
    out = io.StringIO()
    ctx = Ctx(run, Console(file=out, width=200, soft_wrap=True), run.turn)
    await commit_cmd(ctx, "")
    asked = fake.requests[-1]["messages"][-1]["content"]
    assert asked.startswith("[Write a git commit message") and "+a = 3" in asked
    assert git(repo, "log", "-1", "--format=%B").strip() == "Set a to 3\n\nThe new default."
    agent_commit = git(repo, "rev-parse", "HEAD").strip()
    await rewind(ctx, "")
    assert f"this session committed {agent_commit[:10]}" in out.getvalue()
    await rewind(ctx, "commit")
    assert (repo / "a.py").read_text() == "a = 1\n"
    assert git(repo, "rev-parse", "HEAD~1").strip() == agent_commit  # a new commit on top
    await rewind(ctx, "commit")
    assert "no commit of this session to revert" in out.getvalue()


async def test_nothing_to_commit(fake: FakeOpenAI, repo: Path) -> None:
    fake.script(text("nothing changed"))
    run, _ = make_run(fake, repo)
    await run.turn("hi")
    out = io.StringIO()
    await commit_cmd(Ctx(run, Console(file=out, width=200, soft_wrap=True), run.turn), "msg")
    assert "nothing to commit" in out.getvalue()
    assert git(repo, "log", "--format=%s").split() == ["start"]


def test_protected_files_are_never_committed(tmp_path: Path) -> None:
    ws = Workspace.make(tmp_path, home=tmp_path / "home")
    paths = [str(tmp_path / p) for p in ("a.py", ".env", ".git/config", "sub/id_rsa")]
    mine, kept_out = _split([*paths, "/elsewhere/x.py"], tmp_path, ws)
    assert mine == ["a.py"] and kept_out == [".env", ".git/config", "sub/id_rsa"]


async def test_names_are_never_patterns_and_nothing_stays_staged(
    fake: FakeOpenAI, repo: Path
) -> None:
    (repo / "ab.txt").write_text("x\n")
    git(repo, "add", "ab.txt")
    git(repo, "commit", "-q", "-m", "ab")
    (repo / "ab.txt").write_text("user change\n")  # the user's, not staged
    fake.script(
        tool_calls([("write_file", {"path": "*", "content": "star\n"})]),
        text("done"),
        text(""),  # the model writes no message
    )
    run, _ = make_run(fake, repo)
    await run.turn("make a file named *")
    out = io.StringIO()
    ctx = Ctx(run, Console(file=out, width=200, soft_wrap=True), run.turn)
    await commit_cmd(ctx, "")
    assert "no commit: the message is empty" in out.getvalue()
    assert git(repo, "diff", "--cached", "--name-only") == ""  # nothing left staged
    await commit_cmd(ctx, "add the star file")
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["*"]
    assert " M ab.txt" in git(repo, "status", "--porcelain")  # the user's change stays theirs
