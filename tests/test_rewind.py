"""/rewind in a real git repository: edits, creations, the "changed outside" refusal."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text, tool_calls

from agent.app import build
from agent.config import Flags, load_config
from agent.events import Recorder
from agent.rewind import describe, listing, rewind_conversation, rewind_files
from agent.session import load, messages_of


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    r = tmp_path / "repo"
    r.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=r, check=True)
    (r / "app.py").write_text("print('v1')\n")
    subprocess.run(["git", "add", "."], cwd=r, check=True)
    subprocess.run(
        ["git", "-c", "user.email=a@b", "-c", "user.name=t", "commit", "-qm", "init"],
        cwd=r,
        check=True,
    )
    return r


@pytest.fixture
async def run(fake: FakeOpenAI, repo: Path) -> AsyncIterator[object]:
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "m"}
    cfg = load_config(Flags(permission_mode="acceptEdits"), env, repo)
    r = build(cfg, Recorder())
    yield r
    await r.agent.llm.aclose()


def git_status(repo: Path) -> str:
    return subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout


async def _two_turns(fake: FakeOpenAI, run: object) -> None:
    fake.script(
        tool_calls(
            [
                ("edit_file", {"path": "app.py", "old_string": "v1", "new_string": "v2"}),
                ("write_file", {"path": "new.py", "content": "x = 1\n"}),
            ]
        ),
        text("edited and created"),
        tool_calls([("edit_file", {"path": "app.py", "old_string": "v2", "new_string": "v3"})]),
        text("edited again"),
    )
    await run.agent.run_turn("change things")  # type: ignore[attr-defined]
    await run.agent.run_turn("change more")  # type: ignore[attr-defined]


async def test_rewind_files_and_conversation(fake: FakeOpenAI, run: object, repo: Path) -> None:
    await _two_turns(fake, run)
    assert (repo / "app.py").read_text() == "print('v3')\n"
    cps = listing(run)
    assert [c.n for c in cps] == [1, 2]
    assert len(cps[0].files) == 2 and len(cps[1].files) == 1
    assert describe(cps[0]).endswith("change things · changed since: app.py, new.py")
    out = rewind_files(run, cps[1])
    assert (repo / "app.py").read_text() == "print('v2')\n" and (repo / "new.py").exists()
    out = rewind_files(run, cps[0])
    assert (repo / "app.py").read_text() == "print('v1')\n"
    assert not (repo / "new.py").exists()
    assert "bash" in out.message
    status = git_status(repo)
    assert status.strip() == "?? .agent/"
    out = rewind_conversation(run, cps[1])
    assert out.conversation
    agent = run.agent  # type: ignore[attr-defined]
    assert agent.messages[-1]["content"] == "edited and created"
    stored = messages_of(load(run.store.path).records)  # type: ignore[attr-defined]
    assert stored == agent.messages[1:]
    fake.script(text("fresh"))
    await agent.run_turn("new direction")
    sent = fake.requests[-1]["messages"]
    assert [m["role"] for m in sent][-2:] == ["assistant", "user"]
    assert sent[-2]["content"] == "edited and created"


async def test_changed_outside_is_refused(fake: FakeOpenAI, run: object, repo: Path) -> None:
    await _two_turns(fake, run)
    (repo / "app.py").write_text("print('user edit')\n")
    cp = listing(run)[0]
    out = rewind_files(run, cp)
    assert out.conflicts == [str((repo / "app.py").resolve())]
    assert (repo / "app.py").read_text() == "print('user edit')\n"
    assert not (repo / "new.py").exists()  # the file without a conflict was restored
    rewind_files(run, cp, force=True)
    assert (repo / "app.py").read_text() == "print('v1')\n"


async def test_rewind_past_a_compaction_uses_the_session_file(
    fake: FakeOpenAI, run: object, repo: Path
) -> None:
    from agent.compaction import SUMMARY_PREFIX, Policy, compact, is_valid

    await _two_turns(fake, run)
    agent = run.agent  # type: ignore[attr-defined]
    before = [dict(m) for m in agent.messages]
    fake.script(text("## Task\nchange things"))
    agent.compaction = Policy(100_000, keep_turns=1)
    assert await compact(agent)
    assert agent.messages[1]["content"].startswith(SUMMARY_PREFIX)
    assert "change things" not in [m["content"] for m in agent.messages]
    out = rewind_conversation(run, listing(run)[1])
    assert out.conversation, out.message
    cut = before.index({"role": "user", "content": "change more"})
    assert agent.messages == before[:cut]  # the first turn verbatim, not its summary
    assert is_valid(agent.messages)
    stored = messages_of(load(run.store.path).records)  # type: ignore[attr-defined]
    assert stored == agent.messages[1:]
    fake.script(text("again"))
    await agent.run_turn("other way")
    assert fake.requests[-1]["messages"][1:-1] == before[1:cut]


async def test_rewind_after_clear_and_to_the_start(fake: FakeOpenAI, run: object) -> None:
    agent = run.agent  # type: ignore[attr-defined]
    fake.script(text("a1"), text("a2"), text("a3"), text("a4"), text("fresh"))
    for q in ("t1", "t2"):
        await agent.run_turn(run.user_message(q))  # type: ignore[attr-defined]
    agent.messages[1:] = []  # what /clear does, recorded the same way
    run.store.append({"t": "rewind", "reason": "clear", "messages": []})  # type: ignore[attr-defined]
    run.first_turn = True  # type: ignore[attr-defined]
    for q in ("t3", "t4"):
        await agent.run_turn(run.user_message(q))  # type: ignore[attr-defined]
    cps = listing(run)
    assert [c.prompt for c in cps] == ["t1", "t2", "t3", "t4"]
    rewind_conversation(run, cps[1])  # before t2: the conversation from before /clear
    assert [m["content"] for m in agent.messages[2:]] == ["a1"]
    assert agent.messages[1]["content"].endswith("t1")
    assert not run.first_turn  # type: ignore[attr-defined]
    rewind_conversation(run, cps[0])  # before the very first message
    assert agent.messages[1:] == []
    await agent.run_turn(run.user_message("again"))  # type: ignore[attr-defined]
    first = fake.requests[-1]["messages"][1]["content"]
    assert first.startswith("<env>") and first.endswith("again")  # the env block is back
