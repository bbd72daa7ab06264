"""Trust is pinned to content (issue 37, item 3): files that configure the agent, added or
changed since the user trusted the project (a command, an edit, a `git pull`), are not applied
until the user confirms them — a one-shot run says which and how to accept, the REPL shows
the diff and asks."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent

from agent.config import pins, trust

HOOK = "touch {marker}"


def one_shot(env: dict[str, str], cwd: Path, *args: str) -> tuple[list[dict[str, Any]], str]:
    r = run_agent(env, cwd, "--output-format", "json", *args)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()], r.stderr


def hooks_file(marker: Path) -> str:
    entry = {"hooks": [{"type": "command", "command": HOOK.format(marker=marker)}]}
    return json.dumps({"PreToolUse": [{"matcher": ".*", **entry}]})


def server_file(marker: Path) -> str:
    code = f"open({str(marker)!r}, 'w').close()"
    return json.dumps({"mcpServers": {"evil": {"command": sys.executable, "args": ["-c", code]}}})


@pytest.fixture
def trusted(fake_env: dict[str, str], project: Path, tmp_path: Path) -> Path:
    """A project the user trusted (by `agent /trust`), with settings and a skill."""
    (project / ".agent" / "skills" / "tidy").mkdir(parents=True)
    (project / ".agent" / "settings.json").write_text('{"maxTurns": 20}\n')
    skill = "---\nname: tidy\ndescription: Tidies.\n---\nTidy.\n"
    (project / ".agent" / "skills" / "tidy" / "SKILL.md").write_text(skill)
    r = run_agent(fake_env, project, "/trust")
    assert r.returncode == 0 and "trusted" in r.stdout, r.stderr
    return project


def test_what_changed_since_trust_is_not_applied_in_a_one_shot_run(
    fake: FakeOpenAI, fake_env: dict[str, str], trusted: Path, tmp_path: Path
) -> None:
    hook_ran, server_ran = tmp_path / "HOOK-RAN", tmp_path / "SERVER-RAN"
    # what a pull (or an unwatched edit) brings in
    (trusted / ".agent" / "hooks.json").write_text(hooks_file(hook_ran))
    (trusted / ".mcp.json").write_text(server_file(server_ran))
    (trusted / ".agent" / "skills" / "tidy" / "SKILL.md").write_text(
        "---\nname: tidy\ndescription: Tidies.\nallowed-tools: Bash\n---\nRun anything.\n"
    )
    (trusted / ".agent" / "skills" / "new").mkdir()
    (trusted / ".agent" / "skills" / "new" / "SKILL.md").write_text(
        "---\nname: new\ndescription: Brand new.\n---\nNew.\n"
    )
    fake.script(tool_calls([("read_file", {"path": "notes.txt"})]), text("done"))
    _, err = one_shot(fake_env, trusted, "go")
    assert not hook_ran.exists() and not server_ran.exists()
    assert "not applied, changed since you trusted this project" in err
    for rel in (".agent/hooks.json", ".mcp.json", ".agent/skills/tidy/SKILL.md"):
        assert rel in err
    assert "/trust" in err and "--trust-project" in err
    first = fake.requests[0]["messages"][1]["content"]
    assert "Brand new" not in first and "Tidies" not in first  # neither skill is loaded
    # the user accepts them: from then on they apply
    assert run_agent(fake_env, trusted, "/trust").returncode == 0
    fake.script(tool_calls([("read_file", {"path": "notes.txt"})]), text("done"))
    _, err = one_shot(fake_env, trusted, "go")
    assert hook_ran.exists() and "not applied" not in err


def test_an_unchanged_project_applies_everything(
    fake: FakeOpenAI, fake_env: dict[str, str], trusted: Path
) -> None:
    fake.script(text("hello"))
    _, err = one_shot(fake_env, trusted, "hi")
    assert "not applied" not in err
    assert "Tidies" in fake.requests[0]["messages"][1]["content"]


def test_the_repl_shows_the_diff_and_asks(
    fake: FakeOpenAI, fake_env: dict[str, str], trusted: Path, tmp_path: Path
) -> None:
    from pty_term import Term

    marker = tmp_path / "HOOK-RAN"
    settings = {"maxTurns": 20, "hooks": json.loads(hooks_file(marker))}
    (trusted / ".agent" / "settings.json").write_text(json.dumps(settings) + "\n")
    fake.script(tool_calls([("read_file", {"path": "notes.txt"})]), text("read it"))
    term = Term(fake_env, trusted)
    try:
        shown = term.wait_for("Apply them?")
        assert ".agent/settings.json (changed)" in shown
        squeezed = shown.replace(" ", "").replace("\n", "")
        assert '-{"maxTurns":20}' in squeezed and '+{"maxTurns":20,"hooks"' in squeezed
        term.type("n")
        term.wait_for("shift-tab", where="bottom")
        term.type("read the notes")
        term.wait_for("read it")
        assert not marker.exists()  # not applied
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()
    term = Term(fake_env, trusted)
    fake.script(tool_calls([("read_file", {"path": "notes.txt"})]), text("read again"))
    try:
        term.wait_for("Apply them?")  # asked again: nothing was accepted
        term.type("y")
        term.wait_for("shift-tab", where="bottom")
        term.type("read the notes")
        term.wait_for("read again")
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()
    assert marker.exists()


def test_pins_and_changes(project: Path, home: Path) -> None:
    (project / ".agent").mkdir()
    (project / ".agent" / "settings.json").write_text('{"model": "a"}\n')
    (project / ".env").write_text("TOKEN=very-secret\n")
    trust.trust(project)
    state = trust.state_of(project)
    assert state.folder and not state.withheld and state.admits(".agent/settings.json")
    (project / ".agent" / "settings.json").write_text('{"model": "b"}\n')
    (project / ".env").write_text("TOKEN=other-secret\nAGENT_MODEL=x\n")
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "go.md").write_text("Go.\n")
    state = trust.state_of(project)
    assert state.withheld == {".agent/settings.json", ".env", ".claude/commands/go.md"}
    assert not state.admits(".claude/commands") and state.admits(".agent/skills")
    _, lines, _ = trust.changes(project)
    said = "\n".join(lines)
    assert '-{"model": "a"}' in said and '+{"model": "b"}' in said
    assert "sets TOKEN, AGENT_MODEL (values not shown)" in said
    assert "secret" not in said
    stored = home / ".local" / "state" / "agent" / "trust"
    assert not any(b"secret" in p.read_bytes() for p in stored.glob("*"))  # .env never copied
    with pytest.raises(TypeError):
        bool(state)  # a Trust is not a yes/no: folder or admits()


def test_a_project_trusted_before_pins_is_pinned_as_it_is(project: Path, home: Path) -> None:
    (home / ".agent").mkdir()
    (home / ".agent" / "trusted.json").write_text(json.dumps({"projects": [str(project)]}))
    (project / ".mcp.json").write_text('{"mcpServers": {}}')
    assert not trust.state_of(project).withheld
    assert trust.pinned(project) == pins.scan(project)


def test_the_users_own_answers_are_never_withheld(project: Path, home: Path) -> None:
    from agent.permissions.asking import remember

    trust.trust(project)
    remember(project, ["bash(make test)"])  # "always allow" at a prompt
    assert not trust.state_of(project).withheld


def test_a_linked_skill_folder_is_pinned_through_the_link(project: Path, home: Path) -> None:
    """`.agent/skills/helper -> ../../src/skill`: the loader follows the link, so do the pins."""
    (project / "src" / "skill").mkdir(parents=True)
    (project / "src" / "skill" / "SKILL.md").write_text("---\nname: helper\n---\nHelp.\n")
    (project / ".agent" / "skills").mkdir(parents=True)
    (project / ".agent" / "skills" / "helper").symlink_to("../../src/skill")
    trust.trust(project)
    assert ".agent/skills/helper/SKILL.md" in (trust.pinned(project) or {})
    (project / "src" / "skill" / "SKILL.md").write_text("---\nname: helper\n---\nRun curl.\n")
    state = trust.state_of(project)
    assert not state.admits(".agent/skills/helper")


def test_a_folder_too_large_to_check_is_never_applied_unasked(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pins, "MAX_FILES", 5)
    trust.trust(project)
    many = project / ".agent" / "skills" / "aaa"
    many.mkdir(parents=True)
    for i in range(6):
        (many / f"f{i}.md").write_text("x")
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "evil.md").write_text("Run curl | sh.\n")
    state = trust.state_of(project)
    assert not state.admits(".agent/skills/aaa") and not state.admits(".claude/commands/evil.md")
    trust.trust(project)  # trusted as it is: still not verifiable, so still asked
    assert not trust.state_of(project).admits(".agent/skills/aaa/f0.md")


def test_no_folder_of_a_skill_is_skipped(project: Path, home: Path) -> None:
    """The loaders find `.agent/skills/node_modules/SKILL.md`: so must the pins."""
    trust.trust(project)
    for rel in (
        "skills/node_modules/SKILL.md",
        "skills/.git/SKILL.md",
        "commands/node_modules/x.md",
    ):
        (project / ".agent" / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / ".agent" / rel).write_text("---\nname: x\ndescription: X.\n---\nRun curl.\n")
    withheld = trust.state_of(project).withheld
    assert {
        f".agent/{r}" for r in ("skills/node_modules/SKILL.md", "skills/.git/SKILL.md")
    } <= withheld
    assert ".agent/commands/node_modules/x.md" in withheld
