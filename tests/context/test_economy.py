"""Context economy on a real session (app.build, real tools, the session folder) against the
fake server: unchanged re-reads, long outputs saved to files, stale results cleared."""

from __future__ import annotations

import io
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from rich.console import Console
from routed_fake import close_runs, make_run
from web_server import QuietHandler, serve

from agent.base.events import Compacted
from agent.commands.registry import Ctx
from agent.commands.session import rewind
from agent.context.clearing import STUB_PREFIX
from agent.session.store import load, messages_of

UNCHANGED = "[unchanged since your read at turn"


@pytest.fixture(autouse=True)
async def _closed() -> AsyncIterator[None]:
    yield
    await close_runs()


def results(request: dict[str, Any]) -> dict[str, str]:
    """tool_call_id -> content of the tool results a request carried."""
    return {m["tool_call_id"]: m["content"] for m in request["messages"] if m["role"] == "tool"}


def call(name: str, args: dict[str, Any], call_id: str, usage: Any = None) -> Any:
    """One tool call; no usage reported, so the agent sizes the context by its estimate."""
    return tool_calls([(name, args)], ids=[call_id], usage=usage, usage_mode=None)


def source(tmp_path: Path, lines: int = 40) -> Path:
    p = tmp_path / "mod.py"
    p.write_text("".join(f"def f{i}():\n    return {i}\n" for i in range(lines)))
    return p


async def test_an_unchanged_reread_is_one_line_and_a_changed_one_is_whole(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    p = source(tmp_path)
    fake.script(
        call("read_file", {"path": "mod.py"}, "a"),
        call("read_file", {"path": "./mod.py"}, "b"),  # the same file, spelled otherwise
        call("read_file", {"path": "mod.py", "offset": 3, "limit": 4}, "c"),  # another range
        call("bash", {"command": "echo 'x = 1' >> mod.py"}, "d"),  # changed outside the tools
        call("read_file", {"path": "mod.py"}, "e"),
        call("read_file", {"path": "mod.py"}, "f"),
        text("done"),
    )
    run, _ = make_run(fake, tmp_path)
    await run.turn("look at mod.py")
    last = results(fake.requests[-1])
    assert "def f0():" in last["a"]
    assert last["b"].startswith(UNCHANGED + " 1 (call a)")
    assert "\n" not in last["b"]
    assert "     3\t" in last["c"]  # another range is its own read
    assert "x = 1" in last["e"]  # changed by a command: sent whole
    assert last["f"].startswith(UNCHANGED + " 1 (call e)")
    assert run.agent.economy.counts["unchanged_reads"] == 2
    assert p.read_text().endswith("x = 1\n")


async def test_an_edit_forgets_the_read_even_when_undone(fake: FakeOpenAI, tmp_path: Path) -> None:
    source(tmp_path, 5)
    edit = {"path": "mod.py", "old_string": "return 1", "new_string": "return 100"}
    undo = {"path": "mod.py", "old_string": "return 100", "new_string": "return 1"}
    fake.script(
        call("read_file", {"path": "mod.py"}, "a"),
        call("edit_file", edit, "b"),
        call("edit_file", undo, "c"),
        call("read_file", {"path": "mod.py"}, "d"),  # same text as "a", but edited since
        text("done"),
    )
    run, _ = make_run(fake, tmp_path)
    await run.turn("edit and undo")
    last = results(fake.requests[-1])
    assert last["d"] == last["a"] and "def f1():" in last["d"]


async def test_after_compaction_the_text_is_sent_again(fake: FakeOpenAI, tmp_path: Path) -> None:
    source(tmp_path)
    fake.script(
        call("read_file", {"path": "mod.py"}, "a"),
        text("read it"),
        text("the next thing"),
        text("Summary: read mod.py."),  # the compaction's summary
        call("read_file", {"path": "mod.py"}, "b"),
        text("read again"),
    )
    run, _ = make_run(fake, tmp_path, settings={"compactKeepTurns": 1})
    await run.turn("read mod.py")
    await run.turn("something else")
    assert await run.agent.compact()
    await run.turn("read it again")
    last = results(fake.requests[-1])
    assert "def f0():" in last["b"]  # the first copy went with the compaction


async def test_after_rewind_the_text_is_sent_again(fake: FakeOpenAI, tmp_path: Path) -> None:
    source(tmp_path)
    fake.script(
        text("hello"),
        call("read_file", {"path": "mod.py"}, "a"),
        text("read it"),
        call("read_file", {"path": "mod.py"}, "b"),
        text("read again"),
    )
    run, _ = make_run(fake, tmp_path)
    out = io.StringIO()
    ctx = Ctx(run, Console(file=out, width=200), run.turn)
    await run.turn("hi")
    await run.turn("read mod.py")
    await rewind(ctx, "2 conversation")  # back to before the read
    assert "rewound" in out.getvalue() or "conversation" in out.getvalue()
    await run.turn("read mod.py now")
    last = results(fake.requests[-1])
    assert list(last) == ["b"] and "def f0():" in last["b"]


def _saved(where: str) -> tuple[int, str]:
    """(permissions, text) of a saved output."""
    return os.stat(where).st_mode & 0o777, Path(where).read_text()


async def test_a_long_output_is_saved_and_paged(fake: FakeOpenAI, tmp_path: Path) -> None:
    cmd = "python3 -c \"print('\\n'.join(f'line {i:05d} ' + 'x' * 30 for i in range(6000)))\""
    fake.script(call("bash", {"command": cmd}, "a"), text("seen"))
    run, _ = make_run(fake, tmp_path)
    await run.turn("run it")
    shown = results(fake.requests[-1])["a"]
    assert len(shown) < 6_000
    assert shown.startswith("line 00000 ")
    assert "line 05999 " in shown and "[exit code 0" in shown  # the tail keeps the status
    where = shown.split("is saved in ", 1)[1].split(" — ", 1)[0]
    assert Path(where).parent == run.store.blob_dir
    mode, whole = _saved(where)
    assert mode == 0o600
    assert whole.count("\n") >= 6000 and "line 03000 " in whole
    assert "(240,000" in shown or "characters, 6,0" in shown
    # The model pages through it with read_file, allowed without asking (default mode).
    fake.script(call("read_file", {"path": where, "offset": 3001, "limit": 2}, "b"), text("ok"))
    run.set_mode("default")
    await run.turn("look inside")
    page = results(fake.requests[-1])["b"]
    assert "line 03000 " in page and "permission" not in page


async def test_spilling_can_be_turned_off(fake: FakeOpenAI, tmp_path: Path) -> None:
    cmd = "seq 1 20000"
    fake.script(call("bash", {"command": cmd}, "a"), text("seen"))
    run, _ = make_run(fake, tmp_path, settings={"toolResults": {"spillAt": 0}})
    await run.turn("run it")
    shown = results(fake.requests[-1])["a"]
    assert "is saved in" not in shown and len(shown) <= 12_000
    assert not run.store.blob_dir.exists() or not any(run.store.blob_dir.glob("out-*"))


async def test_stale_results_are_cleared_once_oldest_first(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    for i in range(8):
        (tmp_path / f"f{i}.txt").write_text(f"file {i} " + "word " * 900)
    turns = [call("read_file", {"path": f"f{i}.txt"}, f"c{i}") for i in range(8)]
    fake.script(*turns, text("done"))
    settings = {"contextLimit": 12_000, "toolResults": {"clearAt": 0.5, "keepTurns": 2}}
    run, rec = make_run(fake, tmp_path, settings=settings)
    await run.turn("read them all")
    cleared = [e for e in rec.events if isinstance(e, Compacted) and e.trigger == "clear"]
    assert cleared and all(e.post_tokens < e.pre_tokens for e in cleared)
    reqs = [r["messages"] for r in fake.requests]
    breaks = [i for i in range(1, len(reqs)) if reqs[i][: len(reqs[i - 1])] != reqs[i - 1]]
    assert len(breaks) == len(cleared)  # the prefix changed only where results were cleared
    last = results(fake.requests[-1])
    assert last["c0"].startswith(STUB_PREFIX) and "read_file" in last["c0"]
    assert "re-run or re-read to see it again" in last["c0"]
    assert all(not last[f"c{i}"].startswith(STUB_PREFIX) for i in (6, 7))  # the last two turns
    stubbed = [k for k, v in last.items() if v.startswith(STUB_PREFIX)]
    assert stubbed == [f"c{i}" for i in range(len(stubbed))]  # oldest first
    # The session file holds the cleared history: a resumed session sends the same.
    stored = messages_of(load(run.store.path).records)
    assert any(str(m.get("content", "")).startswith(STUB_PREFIX) for m in stored)


async def test_context_shows_kinds_and_tools(fake: FakeOpenAI, tmp_path: Path) -> None:
    from agent.core.report import context_breakdown, context_report

    source(tmp_path)
    fake.script(call("read_file", {"path": "mod.py"}, "a"), text("ok", usage=None, usage_mode=None))
    run, _ = make_run(fake, tmp_path)
    await run.turn("read")
    d = context_breakdown(run.agent)
    assert d["tool_results"]["read_file"] == d["parts"]["tool results"] > 0
    assert d["parts"]["user text"] > 0 and d["parts"]["tool calls"] > 0
    assert sum(d["parts"].values()) == d["total"]
    report = context_report(run.agent)
    assert "tool results" in report and "read_file" in report


def test_the_bad_setting_names_its_file(tmp_path: Path) -> None:
    from agent.config.settings import ConfigError, read_settings

    bad = tmp_path / "settings.json"
    bad.write_text(json.dumps({"toolResults": {"spillAt": "lots"}}))
    with pytest.raises(ConfigError, match=r"settings.json: key 'toolResults.spillAt' must be"):
        read_settings(bad)
    assert os.path.exists(bad)


class _BigPage(QuietHandler):
    def do_GET(self) -> None:
        rows = "".join(f"<p>paragraph {i:04d} about the topic at hand</p>" for i in range(3000))
        self.reply(200, f"<html><title>Big</title><body>{rows}</body></html>".encode(), "text/html")


async def test_a_long_web_page_is_saved_and_a_prompt_still_picks(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    with serve(_BigPage) as host:
        url = f"http://{host}/doc"
        fake.script(
            call("web_fetch", {"url": url}, "a"),
            call("web_fetch", {"url": url, "prompt": "paragraph 2999"}, "b"),
            text("read"),
        )
        web = {"webFetch": {"allowPrivateHosts": True}}
        run, _ = make_run(fake, tmp_path, settings=web)
        await run.turn("fetch it")
    last = results(fake.requests[-1])
    assert "paragraph 0000" in last["a"] and "paragraph 2999" in last["a"]
    assert "is saved in" in last["a"] and len(last["a"]) < 6_000
    assert "is saved in" not in last["b"] and "paragraph 2999" in last["b"]  # picked, not cut
