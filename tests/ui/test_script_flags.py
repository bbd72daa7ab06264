"""The flags for scripts: -p/--print, --append-system-prompt, --system-prompt-file, --add-dir
and --output-last-message, end to end against the scripted fake."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent

from agent import cli
from agent.config.automation import Automation
from agent.config.load import Flags
from agent.sandbox.runtime import for_session
from agent.ui import oneshot
from agent.ui.startup import configure


def system_of(fake: FakeOpenAI) -> str:
    return str(fake.requests[0]["messages"][0]["content"])


def test_print_flag_runs_one_shot(fake: FakeOpenAI, fake_env: dict, project: Path) -> None:
    fake.script(text("mango"))
    r = run_agent(fake_env, project, "-p", "what is the word?", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["result"] == "mango"
    fake.script(text("mango"))
    r = run_agent(fake_env, project, "--print", "what is the word?")
    assert r.stdout == "mango\n"


@pytest.mark.parametrize(
    "flags",
    [["-p"], ["--output-schema", "s.json"], ["--output-last-message", "out.txt"]],
)
def test_one_shot_flags_never_open_the_repl(
    flags: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "read_prompt", lambda words: None)  # a terminal, no prompt
    with pytest.raises(SystemExit) as e:
        cli.main(flags)
    assert e.value.code == 2
    assert "runs one-shot: give a prompt" in capsys.readouterr().err


def test_append_system_prompt_adds_to_the_built_in_one(
    fake: FakeOpenAI, fake_env: dict, project: Path
) -> None:
    (project / "AGENT.md").write_text("Use tabs.\n")
    fake.script(text("ok"))
    r = run_agent(fake_env, project, "--append-system-prompt", "Answer in haiku.", "q")
    assert r.returncode == 0, r.stderr
    system = system_of(fake)
    assert "# Rules, in priority order" in system and "# Example" in system
    # before the memory block, which stays last
    assert system.index("Answer in haiku.") < system.index("# Project memory")
    assert system.rstrip().endswith("Use tabs.")


def test_system_prompt_file_replaces_the_persona_and_keeps_the_rules(
    fake: FakeOpenAI, fake_env: dict, project: Path, tmp_path: Path
) -> None:
    prompt = tmp_path / "reviewer.md"
    prompt.write_text("# Your job\nYou review pull requests for security problems only.\n")
    fake.script(text("ok"))
    r = run_agent(fake_env, project, "--system-prompt-file", str(prompt), "q")
    assert r.returncode == 0, r.stderr
    system = system_of(fake)
    assert "You review pull requests for security problems only." in system
    assert "# Role and boundaries" in system  # the tool rules stay
    assert "read before you edit" in system
    assert "# Response format" not in system and "# Example" not in system
    empty = tmp_path / "empty.md"
    empty.write_text("\n")
    r = run_agent(fake_env, project, "--system-prompt-file", str(empty), "q")
    assert r.returncode == 2 and "the file is empty" in r.stderr


def test_add_dir_extends_the_writable_roots(
    fake: FakeOpenAI, fake_env: dict, project: Path, tmp_path: Path
) -> None:
    other = tmp_path / "shared-docs"
    other.mkdir()
    target = str(other / "out.md")
    fake.script(tool_calls([("write_file", {"path": target, "content": "x\n"})]), text("done"))
    r = run_agent(fake_env, project, "--permission-mode", "acceptEdits", "-p", "write it")
    assert r.returncode == 0
    assert not (other / "out.md").exists()  # outside the workspace: denied
    fake.script(tool_calls([("write_file", {"path": target, "content": "x\n"})]), text("done"))
    r = run_agent(
        fake_env,
        project,
        *("--permission-mode", "acceptEdits", "--add-dir", str(other), "--sandbox"),
        *("workspace-write", "--output-format", "json", "write it"),
    )
    assert r.returncode == 0, r.stderr
    assert (other / "out.md").read_text() == "x\n"
    init = json.loads(r.stdout.splitlines()[0])
    assert str(other.resolve()) in init["sandbox"]["writable"]
    r = run_agent(fake_env, project, "--add-dir", str(tmp_path / "nope"), "q")
    assert r.returncode == 2 and "not a directory" in r.stderr


def test_add_dir_feeds_additional_directories(tmp_path: Path, project: Path) -> None:
    other = tmp_path / "more"
    other.mkdir()
    env = {"AGENT_BASE_URL": "http://127.0.0.1:9/v1", "AGENT_API_KEY": "k", "AGENT_MODEL": "m"}
    cfg = configure(Flags(add_dirs=(str(other),), sandbox="read-only"), env, project)
    assert cfg.permissions["additionalDirectories"][-1] == str(other)
    assert other in for_session(cfg).extra


def test_output_last_message_writes_the_answer(
    fake: FakeOpenAI, fake_env: dict, project: Path, tmp_path: Path
) -> None:
    out = tmp_path / "last.txt"
    fake.script(text("The word is mango."))
    r = run_agent(
        fake_env, project, "--output-format", "json", "--output-last-message", str(out), "q"
    )
    assert r.returncode == 0, r.stderr
    assert out.read_text() == "The word is mango.\n"
    schema = tmp_path / "s.json"
    schema.write_text('{"type": "object", "required": ["word"]}')
    fake.script(text('```json\n{"word": "mango"}\n```'))
    args = ("--output-schema", str(schema), "--output-last-message", "last.json", "q")
    r = run_agent(fake_env, project, *args)
    assert r.returncode == 0, r.stderr
    assert r.stdout == '{"word":"mango"}\n'
    assert (project / "last.json").read_text() == '{"word":"mango"}\n'  # the parsed value
    r = run_agent(fake_env, project, "--output-last-message", "nowhere/last.txt", "q")
    assert r.returncode == 2  # said before anything runs
    assert "nowhere/last.txt: its directory does not exist" in r.stderr


def test_automation_defaults_are_off() -> None:
    a = Automation()
    assert not a.capped and a.output_schema is None
    assert a.warnings("m", None) == ()
    assert "no price is known for model m" in Automation(max_budget_usd=1).warnings("m", None)[0]


def test_an_unexpected_error_still_ends_with_the_result_line(
    fake: FakeOpenAI,
    fake_env: dict,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    for key, value in fake_env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(project)
    monkeypatch.setattr(oneshot, "_session", broken)
    monkeypatch.setattr(cli, "read_prompt", lambda words: "q")  # no stdin to wait for
    assert cli.main(["--output-format", "json", "q"]) == 1
    out, err = capsys.readouterr()
    result = json.loads(out.splitlines()[-1])  # the result line is always last
    assert result["type"] == "result" and result["subtype"] == "error_during_execution"
    assert result["is_error"] is True and "RuntimeError: a bug" in result["error"]
    assert "internal error: RuntimeError: a bug" in err
