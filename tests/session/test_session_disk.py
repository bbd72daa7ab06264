"""A session file that cannot be written (full disk, RLIMIT_FSIZE) degrades, never breaks the
session: short writes are completed, a failed record is cut off, one warning, work goes on."""

from __future__ import annotations

import errno
import io
import os
import resource
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest
from fake_openai import FakeOpenAI, text
from helpers import run_agent

import agent.session.store as session_mod
from agent.base.events import MessageAdded, Notice, Recorder, TurnEnd
from agent.config.providers import preset
from agent.session.checkpoints import Snapshots
from agent.session.recorder import SessionRecorder
from agent.session.store import SessionFile, load, messages_of, sessions_dir

LIMIT = 16384  # bytes: the start of a session fits, a long reply does not
LONG = "word " * 8000  # 40 kB


def _msg(n: int) -> dict[str, Any]:
    return {"t": "message", "message": {"role": "user", "content": f"record {n} " + "é" * 50}}


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))  # Python ignores SIGXFSZ: EFBIG


def test_short_writes_are_completed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.write
    monkeypatch.setattr(session_mod.os, "write", lambda fd, data: real(fd, bytes(data[:7])))
    s = SessionFile(tmp_path, "short")
    for n in range(5):
        s.append(_msg(n))
    loaded = load(s.path)
    assert loaded.repaired == []
    assert messages_of(loaded.records) == [_msg(n)["message"] for n in range(5)]


class _Disk:
    """os.write that fills up: after `room` more bytes, writes fail with EFBIG."""

    def __init__(self, room: int) -> None:
        self.room, self.real = room, os.write

    def __call__(self, fd: int, data: bytes) -> int:
        if self.room <= 0:
            raise OSError(errno.EFBIG, os.strerror(errno.EFBIG))
        n = self.real(fd, bytes(data[: self.room]))
        self.room -= n
        return n


def test_a_failed_write_is_cut_off_and_stops_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = SessionFile(tmp_path, "full")
    s.append(_msg(0))
    size = s.path.stat().st_size
    with monkeypatch.context() as m:  # not monkeypatch.undo(): that unsets AGENT_STATE_DIR too
        m.setattr(session_mod.os, "write", _Disk(40))
        s.append(_msg(1))  # 40 bytes get written, then the disk is full: no exception
    assert s.path.stat().st_size == size  # the torn start of record 1 was cut off
    assert "File too large; this session is no longer saved" in s.error
    assert str(s.path) in s.error
    assert s.take_warning() == s.error and s.take_warning() == ""  # said once
    s.append(_msg(2))  # recording stopped for the rest of the session
    assert s.put_blob(b"x") and not s.blob_dir.exists()
    s.close()
    assert s.path.stat().st_size == size
    again = SessionFile(tmp_path, "full")  # the next run on this session records again
    again.append(_msg(3))
    assert messages_of(load(again.path).records) == [_msg(0)["message"], _msg(3)["message"]]


def test_a_torn_tail_that_cannot_be_cut_does_not_swallow_later_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = SessionFile(tmp_path, "torn")
    s.append(_msg(0))

    def no_truncate(fd: int, size: int) -> None:
        raise OSError(errno.EIO, "I/O error")

    with monkeypatch.context() as m:  # not monkeypatch.undo(): that unsets AGENT_STATE_DIR too
        m.setattr(session_mod.os, "write", _Disk(25))
        m.setattr(session_mod.os, "ftruncate", no_truncate)
        s.append(_msg(1))
    s.close()
    assert not s.path.read_bytes().endswith(b"\n")  # a torn record was left behind
    again = SessionFile(tmp_path, "torn")
    again.append(_msg(2))
    loaded = load(again.path)
    assert messages_of(loaded.records) == [_msg(0)["message"], _msg(2)["message"]]
    assert loaded.repaired == ["line 2: unreadable record skipped"]


def test_a_failed_blob_write_stops_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = SessionFile(tmp_path, "blob")

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("agent.config.safefile.write_all", full)
    digest = s.put_blob(b"before the edit")
    assert len(digest) == 64
    assert "No space left on device" in s.error
    assert not list(s.blob_dir.glob("*"))


def test_the_recorder_warns_once_through_the_agents_sink(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionFile(tmp_path, "warn")
    recorder = SessionRecorder(store, preset("openai"), Snapshots(store))
    shown = Recorder()
    recorder.report_to(shown)
    recorder.emit(MessageAdded({"role": "user", "content": "fits"}))
    monkeypatch.setattr(session_mod.os, "write", _Disk(0))
    for _ in range(3):
        recorder.emit(MessageAdded({"role": "assistant", "content": "lost"}))
    recorder.emit(TurnEnd("success", "lost", 1))
    notices = [e.message for e in shown.events if isinstance(e, Notice)]
    assert notices == [store.error]


# -- end to end: `python -m agent` under a small RLIMIT_FSIZE ---------------------------------
@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / ".agent").mkdir(parents=True)
    return p


def test_one_shot_with_a_full_disk_still_answers(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, state_dir: Path
) -> None:
    import subprocess

    fake_env["AGENT_STATE_DIR"] = str(state_dir)  # where sessions_dir(project) looks
    fake.script(text(LONG, pieces=20))
    r = subprocess.run(
        [sys.executable, "-m", "agent", "write a lot"],
        env=fake_env,
        cwd=project,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        preexec_fn=_limit_file_size,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == LONG.strip()
    assert "Traceback" not in r.stderr
    assert r.stderr.count("cannot write the session file") == 1
    assert "File too large; this session is no longer saved" in r.stderr
    (path,) = sessions_dir(project).glob("*.jsonl")
    saved = load(path)
    assert saved.repaired == []  # the record that did not fit was cut off whole
    assert [m["role"] for m in messages_of(saved.records)] == ["user"]
    fake.script(text("resumed"))
    r = run_agent(fake_env, project, "-c", "and now?")  # the saved part resumes normally
    assert r.returncode == 0, r.stderr
    roles = [m["role"] for m in fake.requests[1]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]


def test_the_repl_keeps_answering_with_a_full_disk(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text(LONG, pieces=20), text("second answer"), text("third answer"))
    line = " ".join([sys.executable, "-m", "agent", "| cat"])  # the plain REPL
    child = pexpect.spawn(
        "bash", ["-c", line], env=fake_env, cwd=str(project), preexec_fn=_limit_file_size
    )
    child.logfile_read = io.BytesIO()
    try:
        child.send("first\r")
        child.expect("this session is no longer saved", timeout=30)
        child.send("second\r")
        child.expect("second answer", timeout=30)
        child.send("third\r")
        child.expect("third answer", timeout=30)
        child.sendeof()
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)
    shown = child.logfile_read.getvalue().decode(errors="replace")
    assert child.exitstatus == 0
    assert shown.count("cannot write the session file") == 1
    assert "Errno" not in shown and "Traceback" not in shown
    sent = [m["content"] for m in fake.requests[2]["messages"][1:]]
    assert sent[1:] == [LONG, "second", "second answer", "third"]  # the whole conversation


def test_a_torn_tail_is_said_once_and_kept(tmp_path: Path) -> None:
    from agent.session.salvage import check

    s = SessionFile(tmp_path, "cut")
    s.append(_msg(0))
    s.close()
    with open(s.path, "ab") as f:
        f.write(b'{"t":"message","message":{"role":"user","con')  # killed mid-write
    original = s.path.read_bytes()
    said = check(s.path)
    assert "line 2 is unreadable" in said
    [copy] = s.path.parent.glob("cut.jsonl.corrupt-*")
    assert copy.read_bytes() == original and str(copy) in said
    again = SessionFile(tmp_path, "cut")  # ends the torn line, then records go on
    again.append(_msg(1))
    again.close()
    assert check(s.path) == ""  # the same line, now a whole one: reported already
    assert len(list(s.path.parent.glob("cut.jsonl.corrupt-*"))) == 1
