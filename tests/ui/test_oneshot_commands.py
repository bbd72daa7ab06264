"""Slash commands in one-shot runs (issue 20): run as the REPL would — the user's and the
project's commands, /review, /init, the informational ones — and refused with exit code 2 when
they need the REPL or do not exist."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text
from helpers import run_agent, user_settings, user_texts


def results(stdout: str) -> tuple[dict, dict]:
    lines = [json.loads(line) for line in stdout.splitlines()]
    return lines[0], lines[-1]


def test_a_project_command_runs_with_its_arguments(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    (project / ".agent" / "commands").mkdir(parents=True)
    (project / ".agent" / "commands" / "explain.md").write_text(
        "---\ndescription: Explain a file\n---\nExplain $1 in one sentence. Focus: $ARGUMENTS\n"
    )
    untrusted = run_agent(fake_env, project, "--output-format", "json", "/explain notes.txt")
    assert untrusted.returncode == 2  # a repository's prompts wait for the user's trust
    assert "1 project command(s) not loaded: the project is not trusted" in untrusted.stderr
    fake.script(text("It stores notes."))
    args = ("--trust-project", "--output-format", "json", "/explain notes.txt briefly")
    r = run_agent(fake_env, project, *args)
    assert r.returncode == 0, r.stderr
    init, result = results(r.stdout)
    assert init["subtype"] == "init"
    assert (result["subtype"], result["result"], result["num_turns"]) == (
        "success",
        "It stores notes.",
        1,
    )
    sent = user_texts(fake.requests[0])[-1]
    assert "Explain notes.txt in one sentence. Focus: notes.txt briefly" in sent


def test_review_never_sends_a_file_a_read_deny_rule_forbids(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    (project / "secrets").mkdir()
    (project / "secrets" / "plan.txt").write_text("old\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "."], cwd=project, check=True)
    subprocess.run(["git", "commit", "-qm", "i"], cwd=project, check=True)
    (project / "secrets" / "plan.txt").write_text("launch code 1234\n")
    (project / "notes.txt").write_text("the secret word is kiwi\n")
    user_settings(fake_env, {"permissions": {"neverAllow": ["read_file(secrets/**)"]}})
    fake.script(text("Reviewed."))
    r = run_agent(fake_env, project, "/review")
    assert r.returncode == 0, r.stderr
    sent = user_texts(fake.requests[0])[-1]
    assert "kiwi" in sent and "launch code" not in sent
    assert "secrets/plan.txt" in sent  # named as changed, never shown


def test_a_command_whose_file_cannot_be_read_says_why(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    (project / ".claude" / "commands" / "ops").mkdir(parents=True)
    (project / ".claude" / "commands" / "ops" / "deploy.md").write_text(
        "---\ndescription: Deploy\n\tmodel: x\n---\nDeploy $1.\n"
    )
    r = run_agent(fake_env, project, "--trust-project", "/ops:deploy staging")
    assert r.returncode == 2
    assert "/ops:deploy cannot run:" in r.stderr and "unknown command" not in r.stderr
    assert "ops/deploy.md: not loaded: front matter line 3: a tab in the indentation" in r.stderr


def test_review_runs_on_the_diff_in_text_mode(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "."], cwd=project, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "i"],
        cwd=project, check=True,
    )  # fmt: skip
    (project / "notes.txt").write_text("the secret word is kiwi\n")
    fake.script(text("Looks fine: one word changed."))
    r = run_agent(fake_env, project, "/review")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Looks fine: one word changed.\n"
    assert "kiwi" in user_texts(fake.requests[0])[-1]  # the diff went with it


def test_an_informational_command_prints_its_output(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    r = run_agent(fake_env, project, "/tools")
    assert r.returncode == 0, r.stderr
    assert "read_file" in r.stdout and fake.requests == []
    r = run_agent(fake_env, project, "--output-format", "json", "/cost")
    _, result = results(r.stdout)
    assert result["subtype"] == "success" and result["result"].startswith("requests       0")


@pytest.mark.parametrize(
    ("prompt", "said"),
    [
        ("/rewind 1 files", "/rewind needs the interactive REPL"),
        ("/undo", "/rewind needs the interactive REPL"),  # an alias
        ("/resume", "/resume needs the interactive REPL"),
        ("/revew", "unknown command /revew (did you mean /review"),
    ],
)
def test_repl_only_and_unknown_commands_exit_2(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, prompt: str, said: str
) -> None:
    r = run_agent(fake_env, project, "--output-format", "json", prompt)
    assert r.returncode == 2
    assert said in r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["subtype"] == "error_during_execution"
    assert fake.requests == []


def test_a_path_or_a_double_slash_is_a_plain_prompt(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text("a"), text("b"))
    assert run_agent(fake_env, project, "/usr/bin/env is missing").returncode == 0
    assert run_agent(fake_env, project, "//review is a word").returncode == 0
    assert user_texts(fake.requests[0])[-1].endswith("/usr/bin/env is missing")
    assert user_texts(fake.requests[1])[-1].endswith("\n\n/review is a word")  # one slash
