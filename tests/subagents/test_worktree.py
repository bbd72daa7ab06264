"""`agent --worktree [NAME]` with real git repositories: kept with changes, removed when clean."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent

from agent.config.settings import project_root
from agent.session.store import sessions_dir
from agent.subagents import worktree as w

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    run = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    (r / "app.py").write_text("print(1)\n")
    (r / "AGENT.md").write_text("COMMITTED-MEMORY\n")
    git(r, "add", ".")
    git(r, "commit", "-q", "-m", "init")
    # Personal files of the main checkout, never in a worktree: they must still apply.
    (r / ".agent").mkdir()
    (r / ".agent" / "AGENT.md").write_text("MAIN-ONLY-MEMORY\n")
    allow = {"permissions": {"alwaysAllow": ["write_file"]}}
    (r / ".agent" / "settings.local.json").write_text(json.dumps(allow))
    return r


def agent(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_agent({**env, **GIT_ENV}, cwd, "--trust-project", *args)


def branches(repo: Path) -> list[str]:
    return git(repo, "branch", "--format=%(refname:short)").split()


def test_worktree_with_changes_is_kept(
    fake: FakeOpenAI, fake_env: dict[str, str], repo: Path, state_dir: Path
) -> None:
    fake_env["AGENT_STATE_DIR"] = str(state_dir)  # where sessions_dir() looks in this process
    fake.script(
        tool_calls([("write_file", {"path": "new.txt", "content": "hello\n"})]), text("wrote it")
    )
    out = agent(fake_env, repo, "--worktree", "w1", "add a file")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "wrote it\n"
    wt = repo / ".agent" / "worktrees" / "w1"
    assert (wt / "new.txt").read_text() == "hello\n"
    assert not (repo / "new.txt").exists()
    assert "worktree kept" in out.stderr
    assert "git merge agent/w1" in out.stderr
    assert f"git worktree remove --force {wt}" in out.stderr
    assert "agent/w1" in branches(repo)
    assert str(wt) in git(repo, "worktree", "list")
    # Settings (the write_file allow rule), memory and sessions are the main repository's.
    system = fake.requests[0]["messages"][0]["content"]
    assert "MAIN-ONLY-MEMORY" in system
    assert system.count("COMMITTED-MEMORY") == 1
    env_block = fake.requests[0]["messages"][1]["content"]
    assert f"cwd: {wt}" in env_block
    assert f"project root: {repo}" in env_block
    assert "git branch agent/w1" in env_block
    assert list(sessions_dir(repo).glob("*.jsonl"))
    assert not sessions_dir(wt).exists()
    assert not (repo / ".agent" / "sessions").exists() and not (wt / ".agent").exists()
    status = git(repo, "status", "--porcelain", "--untracked-files=all")
    for own in ("worktrees", ".gitignore", "settings.local.json", "sessions", "audit"):
        assert own not in status


def test_resuming_a_worktree_session_elsewhere_says_so(
    fake: FakeOpenAI, fake_env: dict[str, str], repo: Path
) -> None:
    fake.script(
        tool_calls([("write_file", {"path": "new.txt", "content": "hello\n"})]), text("wrote it")
    )
    first = agent(fake_env, repo, "--worktree", "w3", "--output-format", "json", "add a file")
    sid = json.loads(first.stdout.splitlines()[-1])["session_id"]
    wt = repo / ".agent" / "worktrees" / "w3"
    fake.script(text("ok"), text("ok again"))
    out = agent(fake_env, repo, "-r", sid, "where is new.txt?")
    assert out.returncode == 0, out.stderr
    assert f"session {sid} ran in {wt}; it continues in {repo}" in out.stderr
    note = fake.requests[-1]["messages"][-1]["content"]
    assert note.startswith(f"[This session ran in {wt} until now; it continues in {repo}.")
    assert note.endswith("where is new.txt?")
    # said once: the next resume from here is in the same directory again
    again = agent(fake_env, repo, "-c", "and now?")
    assert "continues in" not in again.stderr
    assert fake.requests[-1]["messages"][-1]["content"] == "and now?"


def test_clean_worktree_is_removed_with_its_branch(
    fake: FakeOpenAI, fake_env: dict[str, str], repo: Path
) -> None:
    fake.script(text("nothing to change"))
    out = agent(fake_env, repo, "--worktree", "w2", "look around")
    assert out.returncode == 0, out.stderr
    assert "worktree w2 had no changes: removed it and branch agent/w2" in out.stderr
    assert not (repo / ".agent" / "worktrees" / "w2").exists()
    assert "agent/w2" not in branches(repo)
    listed = git(repo, "worktree", "list", "--porcelain").splitlines()
    assert [ln for ln in listed if ln.startswith("worktree ")] == [f"worktree {repo.resolve()}"]


def test_default_name_and_json_output(
    fake: FakeOpenAI, fake_env: dict[str, str], repo: Path
) -> None:
    fake.script(text("ok"))
    out = agent(fake_env, repo, "--output-format", "json", "question", "--worktree")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines[0]["cwd"].startswith(str(repo / ".agent" / "worktrees"))
    assert lines[-1]["type"] == "result"
    assert "had no changes: removed it" in out.stderr
    assert branches(repo) == ["main"]


def test_not_a_repository_is_a_usage_error(fake_env: dict[str, str], tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    out = agent(fake_env, plain, "--output-format", "json", "--worktree", "x", "q")
    assert out.returncode == 2
    assert "needs a git repository" in out.stderr
    assert json.loads(out.stdout.splitlines()[-1])["subtype"] == "error_during_execution"


def test_create_refuses_taken_names_and_finish_reports_commits(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    wt = w.create(repo, "c1")
    assert project_root(wt.path) == repo.resolve()
    with pytest.raises(w.WorktreeError, match="exists already"):
        w.create(repo, "c1")
    with pytest.raises(w.WorktreeError, match="invalid worktree name"):
        w.create(repo, "../evil")
    (wt.path / "a.txt").write_text("a")
    assert w.commit_all(wt, "add a")
    assert w.changes(wt) == (0, 1)
    message = w.finish(wt)
    assert "has 1 commit(s)" in message
    assert "commit:" not in message
    assert wt.path.is_dir()


def test_repl_in_a_worktree_edits_there_and_keeps_it(
    fake: FakeOpenAI, fake_env: dict[str, str], repo: Path
) -> None:
    from pty_term import Term

    fake.script(
        tool_calls([("write_file", {"path": "from_repl.txt", "content": "hi\n"})]),
        text("wrote it in the worktree"),
    )
    wt = repo / ".agent" / "worktrees" / "r1"
    term = Term({**fake_env, **GIT_ENV}, repo, "--trust-project", "--worktree", "r1")
    try:
        term.wait_for("shift-tab", where="bottom")
        # the header names where the session runs (wrapped where the path is long)
        assert str(wt) in term.text().replace("\n", "")
        term.type("add a file")
        term.wait_for("wrote it in the worktree")
        term.wait_for("shift-tab", where="bottom")
        term.send("\x04")
        assert term.wait_exit() == 0
        shown = term.text()
    finally:
        term.close()
    assert (wt / "from_repl.txt").read_text() == "hi\n"
    assert not (repo / "from_repl.txt").exists()
    assert "worktree kept" in shown and "git merge agent/r1" in shown
    assert "agent/r1" in branches(repo)
    assert f"cwd: {wt}" in fake.requests[0]["messages"][1]["content"]


def test_a_worktree_holding_only_ignored_work_is_kept(repo: Path) -> None:
    (repo / ".gitignore").write_text("*.env\nbuild/\n__pycache__/\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "ignore")
    wt = w.create(repo, "ign")
    (wt.path / "__pycache__").mkdir()
    (wt.path / "__pycache__" / "app.pyc").write_bytes(b"\0")
    assert w.ignored_work(wt) == []  # a cache alone does not count
    (wt.path / "local.env").write_text("TOKEN=1\n")
    (wt.path / "build").mkdir()
    (wt.path / "build" / "out.bin").write_bytes(b"\1")
    note = w.finish(wt)
    assert "only git-ignored files (build/, local.env)" in note
    assert wt.path.exists() and (wt.path / "local.env").exists()
    assert f"git worktree remove --force {wt.path}" in note
    (wt.path / "local.env").unlink()
    shutil.rmtree(wt.path / "build")
    assert "had no changes: removed it" in w.finish(wt)
    assert not wt.path.exists()


def test_worktree_needs_trust_where_the_repository_is_not_plain(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--worktree` in a repository whose own config sets more than plain settings: refused
    until the project is trusted (--trust-project, or trusted before)."""
    from types import SimpleNamespace

    from agent.config import trust

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(repo)
    git(repo, "config", "core.pager", "less")
    said: list[str] = []

    def run(name: str, trust: bool) -> int:
        args = SimpleNamespace(worktree=name, trust_project=trust)
        return w.with_worktree(args, lambda: 0, lambda m: said.append(m) or 2)

    assert run("t1", False) == 2
    assert said[0].startswith(".git/config sets core.pager, which runs a command")
    assert said[0].endswith("until you trust the project (--trust-project)")
    assert not (repo / ".agent" / "worktrees" / "t1").exists()
    assert run("t2", True) == 0
    trust.trust(repo.resolve())
    assert run("t3", False) == 0
    assert branches(repo) == ["main"]  # clean worktrees: removed with their branches
