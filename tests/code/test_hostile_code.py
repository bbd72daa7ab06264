"""Hostile source files a repository can ship (issue 38): 480 KB of nested calls hung the
agent's start-up for good (a tags query without a limit, in C, holding the GIL: SIGTERM
ignored); other files outlast any budget or take gigabytes to parse. Each one now costs at
most the budget, in a parsing process of its own, is named with the limit it hit, and is
remembered as such so that it is not parsed again."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import hostile_files as h
import pytest
from fake_openai import FakeOpenAI, text
from helpers import alive, user_settings

from agent.base.record import ToolContext
from agent.code import bounded, index
from agent.code.cache import TagCache
from agent.code.index import tags_for
from agent.tools.code.tools import OUTLINE, SYMBOLS
from tests.code.trees import write

OK = {"core.py": "class Engine:\n    def start(self) -> None:\n        pass\n"}


def test_nested_calls_and_chains_are_read_within_the_budget(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", OK)
    h.nested_calls_js(root / "nested.js")
    h.member_chain_js(root / "chain.js")
    _, peak, out = h.measured(h.TAGS, str(root), "nested.js", "chain.js", "core.py")
    assert out.strip() == "['chain.js', 'core.py', 'nested.js'] {}", out
    assert peak < h.BUDGET_MB, peak


def test_a_file_over_the_memory_budget_is_named_and_the_rest_is_read(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", OK)
    h.memory_bomb_cpp(root / "gen.cpp")  # 1.5 GB in the agent's own process before
    _, peak, out = h.measured(h.TAGS, str(root), "gen.cpp", "core.py")
    assert out.strip() == "['core.py'] {'gen.cpp': 'over 512 MB of memory'}", out
    assert peak < h.BUDGET_MB, peak


@pytest.mark.timeout(240)
def test_a_file_over_the_time_budget_is_named_and_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bounded, "CPU_SECONDS", 2)  # the 10 s budget, made short for the test
    root = write(tmp_path / "repo", OK)
    h.parse_bomb_py(root / "bomb.py")  # minutes of CPU in one query, before
    cache = TagCache(tmp_path / "tags.sqlite")
    found = tags_for(root, ["bomb.py", "core.py"], cache)
    assert list(found.files) == ["core.py"]
    assert found.refused == {"bomb.py": "over 2 s of parsing"}
    note = found.refused_note("src")
    assert note == "1 file left out, over a parsing limit: src/bomb.py (over 2 s of parsing)"
    index._MEMO.clear()  # a new session: the cache alone remembers it

    def parse(*_: object, **__: object) -> bounded.Parsed:
        raise AssertionError("a file known to be over the budget was parsed again")

    monkeypatch.setattr(bounded.Worker, "parse", parse)
    again = tags_for(root, ["bomb.py", "core.py"], cache)
    assert again.refused == {"bomb.py": "over 2 s of parsing"} and list(again.files) == ["core.py"]
    (root / "bomb.py").write_text("def fixed():\n    pass\n")  # changed: read again
    monkeypatch.undo()
    assert "bomb.py" in tags_for(root, ["bomb.py"], cache).files


def test_a_huge_file_is_named_with_its_size(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {"big.py": "x = 1\n" * 200_000})
    found = tags_for(root, ["big.py"], TagCache(None))
    assert found.files == {} and found.refused == {"big.py": "over 1 MB"}


async def test_outline_and_symbols_name_what_they_left_out(tmp_path: Path) -> None:
    root = write(
        tmp_path / "repo", {"src/core.py": OK["core.py"], "src/big.py": "x = 1\n" * 200_000}
    )
    ctx = ToolContext(cwd=root)
    folder = await OUTLINE.run({"path": "src"}, ctx)
    assert "class Engine" in folder.output
    assert "[1 file left out, over a parsing limit: src/big.py (over 1 MB)]" in folder.output
    one = await OUTLINE.run({"path": "src/big.py"}, ctx)
    assert one.is_error and "src/big.py was not outlined: over 1 MB" in one.output
    found = await SYMBOLS.run({"name": "Engine"}, ctx)
    assert "src/core.py:1-3  class Engine" in found.output
    assert "src/big.py (over 1 MB); grep covers them]" in found.output


def test_start_up_in_the_hostile_repository_finishes(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path
) -> None:
    root = write(tmp_path / "repo", OK)
    h.nested_calls_js(root / "nested.js")
    fake.script(text("done"))
    user_settings(fake_env, {"repoMap": {"wait": 60}})  # this test is about the map
    run = subprocess.run(
        [sys.executable, "-m", "agent", "what starts the Engine?"],
        env=fake_env, cwd=root, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    first = str(fake.requests[0]["messages"][1]["content"])
    assert "<repo-map>" in first and "class Engine" in first


def _workers_of(pid: int) -> list[int]:
    """The parsing processes the agent `pid` started."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmd = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == pid and b"agent.code.worker" in cmd:
            out.append(int(entry.name))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds processes in /proc")
@pytest.mark.timeout(120)
def test_sigterm_while_a_file_is_parsed_ends_the_agent_and_its_parser(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path
) -> None:
    root = write(tmp_path / "repo", OK)
    h.parse_bomb_py(root / "bomb.py")
    turn = text("done")
    turn.stall_after, turn.stall_seconds = 0, 60.0  # were it asked: the turn goes on
    fake.script(turn)
    fake.allow_unused()
    agent = subprocess.Popen(
        [sys.executable, "-m", "agent", "what is in bomb.py?"],
        env=fake_env, cwd=root, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        workers: list[int] = []
        while not workers and agent.poll() is None:  # the map is being read
            time.sleep(0.05)
            workers = _workers_of(agent.pid)
        assert workers, "the agent ended before it parsed anything"
        time.sleep(0.5)  # into the parse of bomb.py, minutes of it before the budget
        agent.send_signal(signal.SIGTERM)
        assert agent.wait(timeout=60) != 0  # before: SIGTERM waited for the parse to end
    finally:
        if agent.poll() is None:
            agent.kill()
    deadline = time.monotonic() + 30
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(w) for w in workers), "the parsing process outlived the agent"
