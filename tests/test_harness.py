"""The suite's own footing (issue 40): it reads nothing of the machine it runs on, and an agent
forked from the warm zygote behaves as one started by exec."""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import time
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text
from helpers import run_agent


def test_nothing_comes_from_the_machine(tmp_path: Path) -> None:
    assert os.environ["HOME"] != pwd.getpwuid(os.getuid()).pw_dir
    assert Path(os.environ["HOME"]).is_dir()
    assert not [k for k in os.environ if k.startswith("XDG_") or k in ("COLUMNS", "LINES")]
    assert os.environ["LC_ALL"] == "C.UTF-8" and time.strftime("%Z") == "UTC"
    # a commit needs an identity: the suite's own, not the machine's (which may have none)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "f").write_text("x\n")
    subprocess.run(["git", "add", "f"], cwd=tmp_path, check=True)
    subprocess.run(["git", "commit", "-qm", "first"], cwd=tmp_path, check=True)
    log = subprocess.run(
        ["git", "log", "--format=%an <%ae> %D"], cwd=tmp_path, capture_output=True, text=True
    )
    assert log.stdout.strip() == "Agent Tests <tests@agent.invalid> HEAD -> main"


def _events(stdout: str) -> list[str]:
    return [json.loads(line)["type"] for line in stdout.splitlines()]


@pytest.mark.parametrize("stdin", [None, "piped context"])
def test_a_forked_agent_runs_as_an_exec_one_does(
    fake: FakeOpenAI,
    fake_env: dict[str, str],
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    stdin: str | None,
) -> None:
    fake.script(text("same"), text("same"))
    env = {**fake_env, "AGENT_MODEL": "model-of-this-run"}  # not in the zygote's environment
    args = ("--output-format", "json", "say it")
    forked = run_agent(env, project, *args, stdin=stdin)
    monkeypatch.setenv("AGENT_TESTS_EXEC", "1")
    started = run_agent(env, project, *args, stdin=stdin)
    assert forked.returncode == started.returncode == 0, forked.stderr + started.stderr
    assert _events(forked.stdout) == _events(started.stdout)
    assert json.loads(forked.stdout.splitlines()[-1])["result"] == "same"
    assert [r["model"] for r in fake.requests] == ["model-of-this-run"] * 2
    first, second = (str(r["messages"][-1]["content"]) for r in fake.requests)
    assert first == second  # the same prompt: stdin read (or not) alike
    assert ("piped context" in first) is (stdin is not None)
    assert str(project) in first  # the folder it runs in
