"""`agent -c`, `agent -r ID` and the `agent -r` picker start an interactive session on the
stored conversation (full REPL in a pseudo-terminal, and the plain fallback)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pexpect
import pytest
from fake_openai import FakeOpenAI, text
from helpers import run_agent
from pty_term import Term, plain_repl

from agent.session.resume import PickInterrupted, pick
from agent.session.store import sessions_dir

READY = "shift-tab"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    return p


def first_session(fake: FakeOpenAI, env: dict[str, str], project: Path, q: str) -> str:
    fake.script(text(f"answer to {q}"))
    r = run_agent(env, project, "--output-format", "json", q)
    assert r.returncode == 0, r.stderr
    return str(json.loads(r.stdout.splitlines()[-1])["session_id"])


def contents(request: dict) -> list[str]:
    return [str(m["content"]) for m in request["messages"][1:]]


@pytest.mark.parametrize("key", ["\x03", "\x04"], ids=["ctrl-c", "ctrl-d"])
def test_the_picker_cancels_cleanly(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, key: str
) -> None:
    first_session(fake, fake_env, project, "some question")
    term = Term(fake_env, project, "-r")
    try:
        term.wait_for("resume which?")
        term.send(key)
        assert term.wait_exit() == (130 if key == "\x03" else 2)  # Ctrl-C: an interrupt
        assert "no session chosen" in term.text() and "Traceback" not in term.text()
    finally:
        term.close()


class _Terminal(io.StringIO):
    """The picker's terminal, where Ctrl-C is pressed the moment the question appears: the
    SIGINT lands while the question is still being written, before anything reads an answer."""

    def isatty(self) -> bool:
        return True

    def flush(self) -> None:
        if "resume which?" in self.getvalue():
            raise KeyboardInterrupt


def test_ctrl_c_as_the_picker_asks_is_still_an_interrupt(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    """The exit code must not depend on how far the picker got when the key came (under load
    the question can be on the screen before the picker reads its answer)."""
    first_session(fake, fake_env, project, "some question")

    def picking() -> None:
        terminal = _Terminal()
        try:
            pick(project, project, out=terminal, inp=terminal)
        except KeyboardInterrupt:  # the program would end with a traceback, killed by SIGINT
            pytest.fail("Ctrl-C as the picker asked escaped the picker")

    with pytest.raises(PickInterrupted, match="no session chosen"):
        picking()


@pytest.mark.parametrize("how", ["-c", "-r ID", "picker"])
def test_repl_resumes_the_stored_conversation(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, how: str
) -> None:
    old = first_session(fake, fake_env, project, "the old question")
    first_session(fake, fake_env, project, "a newer question")
    args = {"-c": ["-c"], "-r ID": ["-r", old[:-2]], "picker": ["-r"]}[how]
    term = Term(fake_env, project, *args)
    try:
        if how == "picker":
            term.wait_for("resume which?")
            listing = term.text()
            assert listing.index("a newer question") < listing.index("the old question")
            assert "<env>" not in listing  # the user's words, not the environment block
            term.send("2\r")
        term.wait_for(READY, where="bottom")
        want = "a newer question" if how == "-c" else "the old question"
        term.wait_for(f"(2 messages) · last: {want}")
        fake.script(text("continued"))
        term.type("and then?")
        term.wait_for("continued")
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()
    sent = contents(fake.requests[-1])
    assert sent[0].endswith(want) and sent[1:] == [f"answer to {want}", "and then?"]
    sessions = list(sessions_dir(project).glob("*.jsonl"))
    assert len(sessions) == 2  # continued in place, no third session


def test_plain_repl_resumes_and_a_bad_id_is_a_usage_error(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    old = first_session(fake, fake_env, project, "plain old question")
    fake.script(text("plain continued"))
    child = plain_repl(fake_env, project, "-r", old)
    try:
        child.expect("last: plain old question", timeout=30)
        child.send("more\r")
        child.expect("plain continued", timeout=30)
        child.sendeof()
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert contents(fake.requests[-1])[1:] == ["answer to plain old question", "more"]
    bad = Term(fake_env, project, "-r", "nope")
    try:
        assert bad.wait_exit() == 2
        assert "no session 'nope'" in bad.text()
    finally:
        bad.close()


def test_picker_skips_unused_sessions_counts_live_turns_and_ctrl_d_cancels(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    sid = first_session(fake, fake_env, project, "kept question")
    path = sessions_dir(project) / f"{sid}.jsonl"
    with path.open("a") as f:  # a second turn, then /rewind to before it
        f.write(
            json.dumps({"t": "checkpoint", "n": 2, "time": 0, "prompt": "gone", "msg_index": 3})
        )
        f.write("\n" + json.dumps({"t": "rewind", "reason": "rewind", "checkpoint": 2}) + "\n")
    unused = sessions_dir(project) / "20991231-000000-unused.jsonl"
    unused.write_text(json.dumps({"t": "meta", "cwd": str(project)}) + "\n")
    term = Term(fake_env, project, "-r")
    try:
        term.wait_for("resume which?")
        listing = term.text()
        assert "unused" not in listing
        assert "  1 turn " in listing and "kept question" in listing
        term.send("\x04")
        assert term.wait_exit() == 2
        assert "no session chosen" in term.text()
    finally:
        term.close()
    assert len(fake.requests) == 1  # nothing was resumed or sent
