"""The JSONL store: appends, torn and garbage lines, listing, pruning, snapshots and restore."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from agent.base.record import Call, ToolContext, ToolResult
from agent.session.checkpoints import Snapshots, checkpoints
from agent.session.restoring import plan_restore, restore
from agent.session.store import (
    SessionFile,
    list_sessions,
    load,
    messages_of,
    new_id,
    prune,
    sessions_dir,
)
from agent.tools.builtin import builtin_tools


def test_append_and_load_roundtrip(tmp_path: Path, state_dir: Path) -> None:
    s = SessionFile(tmp_path, new_id())
    s.append({"t": "meta", "cwd": str(tmp_path)})
    s.append({"t": "message", "message": {"role": "user", "content": "héllo"}})
    loaded = load(s.path)
    assert loaded.repaired == []
    assert messages_of(loaded.records) == [{"role": "user", "content": "héllo"}]
    assert s.path == sessions_dir(tmp_path) / f"{s.id}.jsonl"  # in the state directory
    assert s.path.is_relative_to(state_dir)
    assert s.path.stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / ".agent").exists()  # nothing written into the project


def test_torn_last_line_is_repaired(tmp_path: Path) -> None:
    s = SessionFile(tmp_path, "x")
    for i in range(3):
        s.append({"t": "message", "message": {"role": "user", "content": str(i)}})
    s.close()
    with open(s.path, "ab") as f:
        f.write(b'{"t":"message","message":{"role":"assi')
    loaded = load(s.path)
    assert [m["content"] for m in messages_of(loaded.records)] == ["0", "1", "2"]
    assert "torn" in loaded.repaired[0]
    assert s.path.read_bytes().endswith(b"\n")
    assert load(s.path).repaired == []


def test_garbage_line_in_the_middle_is_skipped(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    good = json.dumps({"t": "message", "message": {"role": "user", "content": "a"}})
    p.write_text(f"{good}\n\x00\x01garbage\n[1,2]\n{good}\n")
    loaded = load(p)
    assert len(messages_of(loaded.records)) == 2
    assert len(loaded.repaired) == 2


def test_reopened_file_after_torn_write_starts_a_new_line(tmp_path: Path) -> None:
    s = SessionFile(tmp_path, "y")
    s.append({"t": "a"})
    s.close()
    with open(s.path, "ab") as f:
        f.write(b'{"t": "tor')
    s2 = SessionFile(tmp_path, "y")
    s2.append({"t": "b"})
    assert [r["t"] for r in load(s2.path).records] == ["a", "b"]


def test_list_filters_by_cwd_and_sorts_newest_first(tmp_path: Path) -> None:
    for n, cwd in enumerate(["/a", "/b", "/a"]):
        s = SessionFile(tmp_path, f"s{n}")
        s.append({"t": "meta", "cwd": cwd})
        s.append({"t": "checkpoint", "n": 1, "time": 0, "prompt": f"p{n}", "msg_index": 1})
        s.close()
        os.utime(s.path, (1000 + n, 1000 + n))
    assert [x.id for x in list_sessions(tmp_path, Path("/a"))] == ["s2", "s0"]
    assert list_sessions(tmp_path)[0].first_prompt == "p2"


def made(n: int) -> str:
    """An id as the agent makes them (new_id): pruning removes nothing else."""
    return f"20240101-000000-{n:08x}"


def test_prune_keeps_newest(tmp_path: Path) -> None:
    for n in range(5):
        s = SessionFile(tmp_path, made(n))
        s.put_blob(b"data")
        s.close()
        os.utime(s.path, (time.time() - n, time.time() - n))
    assert sorted(prune(tmp_path, keep=2)) == [made(2), made(3), made(4)]
    assert sorted(x.id for x in list_sessions(tmp_path)) == [made(0), made(1)]
    assert (sessions_dir(tmp_path) / f"{made(0)}.files").is_dir()
    assert not (sessions_dir(tmp_path) / f"{made(4)}.files").exists()


async def _write(call: Call, ctx: ToolContext) -> ToolResult:
    path = ctx.cwd / call.args["path"]
    if call.args.get("delete"):
        path.unlink()
    else:
        path.write_text(call.args["content"])
    return ToolResult("ok")


async def test_snapshots_and_restore(tmp_path: Path) -> None:
    store = SessionFile(tmp_path, "z")
    snaps = Snapshots(store, tools={t.name: t for t in builtin_tools()})
    ctx = ToolContext(cwd=tmp_path)
    (tmp_path / "a.txt").write_text("original")
    snaps.begin_turn("edit a, create b", 1)
    await snaps(Call("1", "write_file", {"path": "a.txt", "content": "changed"}), ctx, _write)
    await snaps(Call("2", "write_file", {"path": "b.txt", "content": "new"}), ctx, _write)
    snaps.begin_turn("edit a again", 3)
    await snaps(Call("3", "edit_file", {"path": "a.txt", "content": "changed twice"}), ctx, _write)
    records = load(store.path).records
    cps = checkpoints(records)
    assert [c.n for c in cps] == [1, 2]
    assert len(cps[0].files) == 2
    assert len(cps[1].files) == 1
    plans = plan_restore(records, 1)
    assert not any(p.conflict for p in plans)
    restore(store, plans)
    assert (tmp_path / "a.txt").read_text() == "original"
    assert not (tmp_path / "b.txt").exists()


async def test_restore_refuses_files_changed_outside(tmp_path: Path) -> None:
    store = SessionFile(tmp_path, "w")
    snaps = Snapshots(store, tools={t.name: t for t in builtin_tools()})
    ctx = ToolContext(cwd=tmp_path)
    snaps.begin_turn("create", 1)
    await snaps(Call("1", "write_file", {"path": "c.txt", "content": "agent"}), ctx, _write)
    (tmp_path / "c.txt").write_text("user edit")
    plans = plan_restore(load(store.path).records, 1)
    assert plans[0].conflict
    assert restore(store, plans) == []
    assert (tmp_path / "c.txt").read_text() == "user edit"
    assert restore(store, plans, force=True) == [str((tmp_path / "c.txt").resolve())]
    assert not (tmp_path / "c.txt").exists()


async def test_blobs_are_deduplicated(tmp_path: Path) -> None:
    store = SessionFile(tmp_path, "d")
    assert store.put_blob(b"same") == store.put_blob(b"same")
    assert len(list(store.blob_dir.iterdir())) == 1


def test_one_writer_per_session_and_repairs_keep_the_writer(tmp_path: Path) -> None:
    from agent.session.store import SessionBusy, in_use

    s = SessionFile(tmp_path, "busy")
    s.append({"t": "a"})
    assert in_use(tmp_path, "busy") and not in_use(tmp_path, "other")
    with pytest.raises(SessionBusy, match="in use by another agent"):
        SessionFile(tmp_path, "busy")
    with open(s.path, "ab") as f:  # a torn record (e.g. from a crash of an earlier writer)
        f.write(b'{"t": "tor')
    assert [r["t"] for r in load(s.path).records] == ["a"]  # repaired in place...
    s.append({"t": "b"})  # ...so the live writer still writes to the file that is read
    assert [r["t"] for r in load(s.path).records] == ["a", "b"]
    s.close()
    assert not in_use(tmp_path, "busy")
    SessionFile(tmp_path, "busy").close()


def test_prune_looks_at_file_times_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import agent.session.listing as listing

    now = time.time()
    for n, age_days in enumerate([0, 0, 0, 0, 40]):
        s = SessionFile(tmp_path, made(n))
        s.append({"t": "meta", "cwd": "/x"})
        s.close()
        os.utime(s.path, (now - n - age_days * 86400, now - n - age_days * 86400))

    def no_reading(*args: object, **kw: object) -> None:
        raise AssertionError("prune read a session file")

    live = made(3)  # the live one: beyond `keep`, but protected
    with monkeypatch.context() as m:  # not monkeypatch.undo(): that unsets AGENT_STATE_DIR too
        m.setattr(listing, "summarize", no_reading)
        m.setattr(listing.json, "loads", no_reading)
        m.setattr(Path, "read_bytes", no_reading)
        assert prune(tmp_path, keep=3, max_age_days=30, protect=live) == [made(4)]
    assert sorted(x.id for x in list_sessions(tmp_path)) == [made(n) for n in range(4)]
    assert prune(tmp_path, keep=10, max_age_days=30) == []


def test_summary_parses_only_what_it_needs_and_misses_nothing(tmp_path: Path) -> None:
    from agent.session.store import summarize

    s = SessionFile(tmp_path, "sum")
    tricky = '{"t":"usage","cost":100}\n{"t":"checkpoint","n":9}'  # text, not records
    s.append({"t": "meta", "cwd": "/old"})
    s.append({"t": "checkpoint", "n": 1, "time": 0, "prompt": "first", "msg_index": 1})
    s.append({"t": "message", "message": {"role": "user", "content": tricky}})
    s.append({"t": "usage", "input": 1, "output": 2, "cached": 0, "reasoning": 0, "cost": 0.5})
    s.append({"t": "compact", "messages": [{"role": "user", "content": tricky}]})
    s.append({"t": "checkpoint", "n": 2, "time": 0, "prompt": "second", "msg_index": 3})
    s.append({"t": "checkpoint", "n": 3, "time": 0, "prompt": "third", "msg_index": 5})
    s.append({"t": "rewind", "reason": "rewind", "checkpoint": 3, "messages": []})
    s.append({"t": "rewind", "reason": "repair", "messages": []})
    s.append({"t": "usage", "cost": 0.25, "input": 1})  # cost not last: parsed the long way
    s.append({"t": "meta", "cwd": "/new"})
    s.close()
    with open(s.path, "ab") as f:  # written by hand or by another tool; garbage; a torn tail
        f.write(b'{"t": "usage", "cost": 0.125}\n\x00garbage\n[1]\n{"t":"usage","cost":1')
    got = summarize(s.path)
    assert got is not None
    assert (got.turns, got.first_prompt, got.cwd, got.started) == (2, "first", "/new", True)
    assert got.cost == pytest.approx(0.875)


def test_prune_never_removes_a_session_another_agent_has_open(tmp_path: Path) -> None:
    held = SessionFile(tmp_path, made(1))
    held.append({"t": "a"})  # open and locked by this "other agent"
    os.utime(held.path, (1000, 1000))  # old and beyond `keep`
    idle = SessionFile(tmp_path, made(2))
    idle.append({"t": "a"})
    idle.close()
    os.utime(idle.path, (1000, 1000))
    assert prune(tmp_path, keep=0, max_age_days=1) == [made(2)]
    assert held.path.exists() and not idle.path.exists()
    held.close()


def test_summaries_quote_the_users_words_not_attached_files(tmp_path: Path) -> None:
    from agent.context.mentions import attach, without_attachments
    from agent.session.resume import describe

    (tmp_path / "main.py").write_text("print('secret sauce')\n")
    sent = attach("explain @main.py please", tmp_path)
    assert "secret sauce" in sent
    assert without_attachments(sent) == "explain @main.py please"
    assert without_attachments(sent[:40]) == "explain @main.py please"  # cut mid-block
    s = SessionFile(tmp_path, "s1")
    s.append({"t": "meta", "cwd": str(tmp_path)})
    s.append({"t": "checkpoint", "n": 1, "time": 0, "prompt": sent[:200], "msg_index": 1})
    s.close()
    line = describe(list_sessions(tmp_path)[0])
    assert line.endswith("explain @main.py please") and "sauce" not in line
