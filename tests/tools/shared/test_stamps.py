"""Stale-read protection in a real session: an edit or overwrite of an existing file waits for
a read in this session, and for a new read after the file changed on disk; the agent's own
writes count as reads; a new file needs none."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from routed_fake import close_runs, make_run

from agent.tools.shared import stamps
from agent.tools.shared.stamps import FileStamps


@pytest.fixture(autouse=True)
async def _closed() -> AsyncIterator[None]:
    yield
    await close_runs()


def results(fake: FakeOpenAI) -> list[str]:
    return [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "tool"]


def call(name: str, **args: Any) -> Any:
    return tool_calls([(name, args)])


async def test_an_edit_waits_for_a_read(fake: FakeOpenAI, tmp_path: Path) -> None:
    f = tmp_path / "a.py"
    f.write_text("x = 1\n")
    fake.script(
        call("edit_file", path="a.py", old_string="x = 1", new_string="x = 2"),
        call("write_file", path="a.py", content="x = 3\n"),
        call("read_file", path="a.py", offset=1, limit=1),
        call("edit_file", path="a.py", old_string="x = 1", new_string="x = 2"),
        call("edit_file", path="a.py", old_string="x = 2", new_string="x = 4"),  # its own write
        call("write_file", path="new.py", content="y = 1\n"),  # a new file needs no read
        call("edit_file", path="new.py", old_string="y = 1", new_string="y = 2"),
        text("done"),
    )
    run, _ = make_run(fake, tmp_path)
    await run.turn("change x")
    out = results(fake)
    for refused in out[:2]:
        assert refused.startswith("Error: a.py has not been read in this session")
        assert "Hint: read_file a.py (any range), then change it" in refused
    assert out[3].startswith("Edited a.py") and out[4].startswith("Edited a.py")
    assert out[5].startswith("Created new.py") and out[6].startswith("Edited new.py")
    assert f.read_text() == "x = 4\n" and (tmp_path / "new.py").read_text() == "y = 2\n"


async def test_a_change_on_disk_needs_a_new_read(fake: FakeOpenAI, tmp_path: Path) -> None:
    f = tmp_path / "a.py"
    f.write_text("x = 1\n")
    fake.script(
        call("read_file", path="a.py"),
        call("bash", command="echo 'y = 2' >> a.py"),  # changed outside the file tools
        call("edit_file", path="a.py", old_string="x = 1", new_string="x = 9"),
        call("read_file", path="a.py"),
        call("edit_file", path="a.py", old_string="x = 1", new_string="x = 9"),
        text("done"),
    )
    run, _ = make_run(fake, tmp_path)
    await run.turn("edit after a command")
    out = results(fake)
    assert out[2].startswith("Error: a.py changed on disk since this session last read")
    assert out[4].startswith("Edited a.py")
    assert f.read_text() == "x = 9\ny = 2\n"


def test_a_change_in_the_same_tick_is_caught_by_the_hash(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text("one\n")
    record = FileStamps()
    record.saw(f)  # just written: racily clean, so hashed
    st = f.stat()
    f.write_text("two\n")  # same size
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same mtime, as a coarse clock
    assert "changed on disk" in record.problem(f)
    record.saw(f)
    assert record.problem(f) == ""


def test_an_old_file_is_judged_by_size_and_mtime(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text("one\n")
    os.utime(f, (1_000_000, 1_000_000))
    record = FileStamps()
    record.saw(f)
    assert record.seen[os.path.realpath(f)].digest == ""  # not racy: no hash needed
    os.utime(f, (1_000_001, 1_000_001))
    assert "changed on disk" in record.problem(f)


def test_outside_a_session_nothing_is_checked(tmp_path: Path) -> None:
    from agent.base.record import ToolContext

    assert stamps.stamps_of(ToolContext(cwd=tmp_path)) is None
