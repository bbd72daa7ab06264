"""Skills in a real session against the scripted model: the list in the first message (not the
system prompt), the skill tool handing over the body, a script the skill names run with the
skill's allowed-tools for that turn only, trust, and /skills and /<skill-name>."""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import refusing, run_agent
from rich.console import Console
from routed_fake import close_runs, make_run, tool_names
from skill_files import write_skill

from agent.app import build
from agent.base.events import Notice, Recorder
from agent.commands.registry import Ctx, all_commands, dispatch
from agent.config.load import Flags
from agent.permissions.grants import Grant, confirm
from agent.ui.startup import configure

COUNT = (
    "import csv, sys\nrows = list(csv.reader(open(sys.argv[1])))\nprint(f'{len(rows) - 1} rows')\n"
)
BODY = "To report on a CSV file, run `python3 scripts/count.py FILE` and say how many rows."


@pytest.fixture(autouse=True)
async def _closed() -> AsyncIterator[None]:
    yield
    await close_runs()


def csv_skill(repo: Path, extra: str = "allowed-tools: Bash(python3:*)\n") -> Path:
    folder = write_skill(
        repo / ".agent" / "skills", "csv-report", "Report on CSV files.", BODY, extra
    )
    (folder / "scripts").mkdir()
    (folder / "scripts" / "count.py").write_text(COUNT)
    (folder / "reference.md").write_text("Columns are comma-separated.\n")
    return folder


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


async def test_the_list_goes_in_the_first_message_and_the_tool_gives_the_body(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    folder = csv_skill(repo)
    script = folder / "scripts" / "count.py"
    asked, asker = refusing()
    fake.script(
        tool_calls([("skill", {"name": "csv-report"})]),
        tool_calls([("bash", {"command": f"python3 {script} data.csv"})]),
        text("data.csv has 2 rows"),
        tool_calls([("bash", {"command": f"python3 {script} data.csv"})]),  # the next turn
        text("asked"),
    )
    confirm(Grant.of_file(("Bash(python3:*)",), "", folder / "SKILL.md"))  # seen before
    run, _ = make_run(fake, repo, mode="default", asker=asker)
    await run.turn("how many rows in data.csv?")
    first = fake.requests[0]
    system, user = first["messages"][0]["content"], first["messages"][1]["content"]
    assert "<skills>" not in system and "csv-report" not in system
    assert "<skills>\n" in user and "- csv-report: Report on CSV files." in user
    assert user.endswith("how many rows in data.csv?")
    assert "skill" in tool_names(first)
    loaded = tool_results(fake.requests[1])[0]
    assert loaded.startswith(f'<skill name="csv-report" folder="{folder}">')
    assert BODY in loaded and "Files: reference.md, scripts/count.py" in loaded
    assert "Allowed without asking while this skill is in use: Bash(python3:*)" in loaded
    assert tool_results(fake.requests[2])[-1].strip().startswith("2 rows")
    assert asked == []  # the skill's allowed-tools covered its script
    assert run.skills.used == {"csv-report"}
    await run.turn("and again")  # a new turn: the skill's rules are over
    [req] = asked
    assert req.tool == "bash"
    assert "denied" in tool_results(fake.requests[-1])[-1].lower()
    assert "<skills>" not in fake.requests[-1]["messages"][-1]["content"]  # first message only


async def test_a_deny_rule_beats_a_skill_s_allowed_tools(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    folder = csv_skill(repo)
    fake.script(
        tool_calls([("skill", {"name": "csv-report"})]),
        tool_calls([("bash", {"command": f"python3 {folder}/scripts/count.py data.csv"})]),
        text("blocked"),
    )
    settings = {"permissions": {"neverAllow": ["bash(python3:*)"]}}
    run, _ = make_run(fake, repo, mode="default", settings=settings, asker=refusing()[1])
    await run.turn("count")
    assert "denied by rule" in tool_results(fake.requests[-1])[-1]


async def test_a_skill_s_reference_file_in_the_home_directory_is_readable(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    folder = write_skill(home / ".agent" / "skills", "style", "House style.", "See guide.md.")
    (folder / "guide.md").write_text("Use tabs.\n")
    asked, asker = refusing()
    fake.script(
        tool_calls([("skill", {"name": "style"})]),
        tool_calls([("read_file", {"path": str(folder / "guide.md")})]),
        text("tabs"),
    )
    run, _ = make_run(fake, repo, mode="default", asker=asker)
    await run.turn("what is the style?")
    assert "Use tabs." in tool_results(fake.requests[-1])[-1] and asked == []


async def test_an_unknown_skill_is_an_error_the_model_can_act_on(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    csv_skill(repo)
    fake.script(tool_calls([("skill", {"name": "csv-reprt"})]), text("ok"))
    run, _ = make_run(fake, repo)
    await run.turn("go")
    out = tool_results(fake.requests[-1])[-1]
    assert "no skill named 'csv-reprt'" in out and "did you mean csv-report?" in out


async def test_without_skills_there_is_no_tool_and_no_list(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    fake.script(text("hi"))
    run, _ = make_run(fake, repo)
    await run.turn("hello")
    assert "skill" not in tool_names(fake.requests[0])
    assert "<skills>" not in fake.requests[0]["messages"][1]["content"]


async def test_an_untrusted_project_s_skills_are_left_out_and_said(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    csv_skill(repo)
    write_skill(home / ".agent" / "skills", "mine", "My own skill.", "Steps.")
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "fake-model"}
    cfg = configure(Flags(no_mcp=True), {**env, "AGENT_SANDBOX": "off"}, repo)
    assert not cfg.trusted
    rec = Recorder()
    run = build(cfg, rec)
    try:
        fake.script(text("hi"))
        await run.turn("hello")
    finally:
        await run.agent.llm.aclose()
        run.store.close()
    user = fake.requests[0]["messages"][1]["content"]
    assert "- mine: My own skill." in user and "- csv-report:" not in user
    notices = [e.message for e in rec.events if isinstance(e, Notice)]
    assert any("1 project skill(s) not loaded: the project is not trusted" in n for n in notices)


async def test_a_broken_skill_is_said_and_the_session_starts(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    bad = repo / ".agent" / "skills" / "bad"
    bad.mkdir(parents=True)
    (bad / "SKILL.md").write_text('---\nname: bad\ndescription: "unclosed\n---\nx\n')
    fake.script(text("hi"))
    run, rec = make_run(fake, repo)
    await run.turn("hello")
    notices = [e.message for e in rec.events if isinstance(e, Notice)]
    assert any("skill skipped:" in n and "SKILL.md: front matter line 3" in n for n in notices), (
        notices
    )


async def test_skills_command_and_running_a_skill_by_name(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    csv_skill(repo)
    run, _ = make_run(fake, repo)
    console = Console(file=io.StringIO(), width=200, color_system=None)
    ctx = Ctx(run, console, run.turn, commands=all_commands(repo, home, trusted=True))
    assert await dispatch(ctx, "/skills")
    listing = console.file.getvalue()
    assert "/csv-report  [project]" in listing and "Report on CSV files." in listing
    assert "(used)" not in listing
    fake.script(text("2 rows"))
    assert await dispatch(ctx, "/csv-report data.csv")
    sent = fake.requests[-1]["messages"][-1]["content"]
    assert '<skill name="csv-report"' in sent and BODY in sent
    assert sent.rstrip().endswith("Arguments: data.csv")
    assert await dispatch(ctx, "/skills")
    assert "/csv-report  (used)" in console.file.getvalue()


def test_a_skill_runs_one_shot_from_the_command_line(
    fake: FakeOpenAI, fake_env: dict[str, str], repo: Path
) -> None:
    csv_skill(repo)
    fake.script(text("2 rows"))
    proc = run_agent(
        fake_env, repo, "--trust-project", "--output-format", "json", "/csv-report data.csv"
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1])["result"] == "2 rows"
    sent = fake.requests[0]["messages"][-1]["content"]
    assert BODY in sent and "Arguments: data.csv" in sent
