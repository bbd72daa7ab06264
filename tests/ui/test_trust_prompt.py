"""Issue 43, item 5: trust you can see. Whatever waits for trust (a project's `.claude/`
commands included) brings the question; yes or no is remembered; /trust shows and changes it;
a project rooted at the home directory warns."""

from __future__ import annotations

import json
from pathlib import Path

from fake_openai import FakeOpenAI, text
from helpers import run_agent
from pty_term import Term

READY = "shift-tab"


def claude_command(project: Path) -> None:
    folder = project / ".claude" / "commands"
    folder.mkdir(parents=True)
    (folder / "hello.md").write_text("---\ndescription: greet\n---\nsay hello to $ARGUMENTS\n")


def table(env: dict[str, str]) -> dict[str, list[str]]:
    return json.loads((Path(env["HOME"]) / ".agent" / "trusted.json").read_text())


def test_a_no_is_remembered_and_trust_changes_it(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    claude_command(project)
    term = Term(fake_env, project)
    try:
        shown = term.wait_for("Trust this project?")
        assert ".claude/commands/" in shown and "add commands and skills" in shown
        term.type("n")
        term.wait_for("not trusted (remembered; /trust changes it)")
        term.wait_for(READY, where="bottom")
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()
    assert str(project) in table(fake_env)["declined"]

    term = Term(fake_env, project)  # not asked again; said, with the way back
    try:
        term.wait_for(READY, where="bottom")
        shown = term.text().replace("\n", "")  # a long line wraps
        assert "Trust this project?" not in shown
        assert "not applied, as you chose: this project's configuration" in shown
        assert "/trust changes that" in shown
        term.type("/trust")
        shown = term.wait_for("trust this project?")
        assert "not trusted (you said no)" in shown
        assert "waiting for trust: .claude/commands/hello.md" in shown
        term.send("\r")  # yes, the first row
        term.wait_for("from the next session")
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()
    assert str(project) in table(fake_env)["projects"]
    assert str(project) not in table(fake_env)["declined"]

    fake.script(text("hello there"))
    term = Term(fake_env, project)  # trusted now: the command of .claude/ is there
    try:
        term.wait_for(READY, where="bottom")
        assert "Trust this project?" not in term.text()
        term.type("/hello world")
        term.wait_for("hello there")
    finally:
        term.close()
    assert "say hello to world" in str(fake.requests[-1]["messages"][-1]["content"])


def test_trust_yes_and_no_in_one_shot_runs(fake_env: dict[str, str], project: Path) -> None:
    claude_command(project)
    r = run_agent(fake_env, project, "/trust no")
    assert r.returncode == 0, r.stderr
    assert "not trusted" in r.stdout + r.stderr
    assert str(project) in table(fake_env)["declined"]
    r = run_agent(fake_env, project, "/trust")  # shown, then trusted as it always was
    assert r.returncode == 0, r.stderr
    assert "not trusted (you said no)" in r.stdout + r.stderr
    assert str(project) in table(fake_env)["projects"]


def test_a_project_rooted_at_home_warns(fake: FakeOpenAI, fake_env: dict[str, str]) -> None:
    home = Path(fake_env["HOME"])
    (home / ".git").mkdir()  # a dotfiles repository: every folder below is "the project"
    work = home / "code" / "thing"
    work.mkdir(parents=True)
    fake.script(text("ok"))
    r = run_agent(fake_env, work, "hi")
    assert r.returncode == 0, r.stderr
    assert f"the project is your home directory ({home})" in r.stderr
