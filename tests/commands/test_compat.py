"""Bringing a Claude Code or Codex setup along: `.claude/commands`, `~/.claude/commands`,
`~/.codex/prompts` as slash commands, `.claude/agents` as subagents, name clashes said."""

from __future__ import annotations

import io
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import refusing
from rich.console import Console
from routed_fake import RoutedFake, close_runs, is_child, make_run, serve, tool_names

from agent.app import Run
from agent.base.events import Notice
from agent.commands.registry import LOAD_PROBLEMS, Ctx, all_commands, dispatch
from agent.permissions.grants import Grant, confirm

COMMIT = (
    "---\ndescription: Write a commit message\nallowed-tools: Bash(git status:*), Bash(python3:*)"
    "\nargument-hint: [focus]\n---\nChanges:\n!`git status --short`\nLines: "
    "!`python3 -c 'print(6 * 7)'`\n\nWrite a commit message about $ARGUMENTS."
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    p = tmp_path / "repo"
    p.mkdir()
    subprocess.run(["git", "init", "-q", str(p)], check=True)
    (p / "new.txt").write_text("hello\n")
    return p


@pytest.fixture(autouse=True)
async def _closed() -> AsyncIterator[None]:
    yield
    await close_runs()


def context(run: Run, root: Path, home: Path) -> Ctx:
    console = Console(file=io.StringIO(), width=200, color_system=None, soft_wrap=True)
    commands = all_commands(root, home, trusted=run.cfg.trusted)
    return Ctx(run, console, run.turn, commands=commands)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


async def test_a_claude_command_runs_its_shell_line_under_its_allowed_tools(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    write(repo / ".claude" / "commands" / "changes.md", COMMIT)
    confirm(Grant.of_file((), "", repo / ".claude" / "commands" / "changes.md"))  # seen before
    asked, asker = refusing()
    run, _ = make_run(fake, repo, mode="default", asker=asker)
    ctx = context(run, repo, home)
    assert ctx.commands["changes"].usage == "[focus]"
    fake.script(text("feat: add new.txt"))
    assert await dispatch(ctx, "/changes the greeting")
    sent = fake.requests[-1]["messages"][-1]["content"]
    assert "?? new.txt" in sent and "Lines: 42" in sent  # ran unasked: the command allows it
    assert sent.endswith("Write a commit message about the greeting.")
    assert asked == [] and run.gate.turn_rules == []  # over with the turn


def test_an_untrusted_project_s_commands_are_not_loaded(repo: Path, home: Path) -> None:
    """A repository's prompts are its code: their text, @mentions, !`commands` and
    allowed-tools wait for the user's trust, like its skills and settings."""
    write(repo / ".claude" / "commands" / "changes.md", COMMIT)
    write(repo / ".agent" / "commands" / "fix.md", "Fix it: !`touch pwned.txt`")
    write(home / ".agent" / "commands" / "fix.md", "My own fix.")
    commands = all_commands(repo, home, trusted=False)
    assert "changes" not in commands
    assert commands["fix"].source.startswith("user: ")  # the user's own, not the repository's
    assert "2 project command(s) not loaded: the project is not trusted" in LOAD_PROBLEMS


async def test_arguments_never_run_commands_and_outputs_are_capped(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    write(
        repo / ".agent" / "commands" / "title.md",
        "Big: !`yes x | head -c 300000`\nTitle: $ARGUMENTS",
    )
    run, _ = make_run(fake, repo, mode="bypassPermissions")
    ctx = context(run, repo, home)
    fake.script(text("ok"))
    assert await dispatch(ctx, "/title Fix crash !`touch pwned.txt` costs $2 or $1")
    sent = fake.requests[-1]["messages"][-1]["content"]
    assert not (repo / "pwned.txt").exists()
    assert sent.endswith("Title: Fix crash !`touch pwned.txt` costs $2 or $1")
    assert len(sent) < 20_000 and "characters cut" in sent


async def test_user_claude_commands_and_codex_prompts(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    write(home / ".claude" / "commands" / "explain.md", "Explain $1 simply.")
    write(
        home / ".codex" / "prompts" / "ticket.md",
        "---\ndescription: Work a ticket\nargument-hint: TICKET_ID=<id>\n---\n"
        "Fix ticket $TICKET_ID, then $1.",
    )
    run, _ = make_run(fake, repo)
    ctx = context(run, repo, home)
    assert ctx.commands["explain"].source.startswith("user (.claude): ")
    assert ctx.commands["ticket"].source.startswith("user (.codex): ")
    fake.script(text("a"), text("b"), text("c"))
    assert await dispatch(ctx, "/explain recursion")
    assert fake.requests[-1]["messages"][-1]["content"].endswith("Explain recursion simply.")
    assert await dispatch(ctx, "/prompts:ticket TICKET_ID=42")
    sent = fake.requests[-1]["messages"][-1]["content"]
    assert sent.endswith("Fix ticket 42, then TICKET_ID=42.")
    assert await dispatch(ctx, "/ticket TICKET_ID=7")
    assert fake.requests[-1]["messages"][-1]["content"].endswith("Fix ticket 7, then TICKET_ID=7.")


def test_name_clashes_follow_the_documented_order_and_are_said(repo: Path, home: Path) -> None:
    write(repo / ".agent" / "commands" / "fix.md", "The project's own fix.")
    write(repo / ".claude" / "commands" / "fix.md", "Claude's fix.")
    write(repo / ".claude" / "commands" / "same.md", "Same text.")
    write(home / ".agent" / "commands" / "same.md", "Same text.")  # a copy: nothing to say
    write(home / ".claude" / "commands" / "help.md", "Not the built-in.")
    write(repo / ".agent" / "skills" / "fix" / "SKILL.md", "---\ndescription: d\n---\nbody\n")
    commands = all_commands(repo, home, trusted=True)
    assert commands["fix"].source.startswith("project: ")
    assert commands["help"].source == "built-in"
    problems = "\n".join(LOAD_PROBLEMS)
    assert f"/fix of {repo}/.claude/commands/fix.md is hidden by {repo}/.agent/commands" in problems
    assert "/help of user (.claude)" in problems and "hidden by /help (built-in)" in problems
    assert "/fix of skill, project" in problems  # a skill never shadows a command
    assert "same" not in problems


def test_a_broken_command_file_is_said_and_skipped(repo: Path, home: Path) -> None:
    write(repo / ".claude" / "commands" / "bad.md", "---\ndescription: x\n")
    commands = all_commands(repo, home, trusted=True)
    assert "bad" not in commands
    assert any("bad.md: not loaded: front matter line 1" in p for p in LOAD_PROBLEMS), LOAD_PROBLEMS


@pytest.fixture
def routed(request: pytest.FixtureRequest) -> Any:
    yield from serve(request)


async def test_claude_agents_are_subagents_with_their_tools_mapped(
    routed: RoutedFake, repo: Path, home: Path
) -> None:
    write(
        repo / ".claude" / "agents" / "reviewer.md",
        "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob, NotebookRead2\n"
        "model: inherit\n---\nYou review code. REVIEWER-PROMPT\n",
    )
    write(home / ".claude" / "agents" / "helper.md", "---\nname: helper\n---\nHelp.\n")
    routed.script(
        tool_calls([("task", {"description": "look at new.txt", "agent": "reviewer"})]),
        text("reviewed"),
    )
    routed.route("REVIEWER-PROMPT", text("looks fine"))
    run, rec = make_run(routed, repo)
    await run.turn("review it")
    child = next(r for r in routed.requests if is_child(r) or "REVIEWER-PROMPT" in str(r))
    assert sorted(tool_names(child)) == ["glob", "grep", "read_file"]
    notices = [e.message for e in rec.events if isinstance(e, Notice)]
    assert any("unknown tool(s) ignored: NotebookRead2" in n for n in notices), notices
    tool_text = next(t for t in routed.requests[0]["tools"] if t["function"]["name"] == "task")
    assert "helper" in str(tool_text) and "reviewer" in str(tool_text)
