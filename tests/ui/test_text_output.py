"""Text mode to a file or a pipe (`agent "q" > answer.txt`, `$(agent "q")`): stdout carries the
final answer alone; what the model says between tool calls is progress, on stderr with the tool
lines; a turn that fails leaves stdout empty and says why on stderr. A terminal still sees every
reply streamed as it comes (issue 43, item 8)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, Turn, error, text, tool_calls
from helpers import run_agent, user_settings
from pty_term import Term

from agent.base.events import AssistantMessage, Event, TextDelta, ToolStart, TurnEnd
from agent.ui.render import TextRenderer

NARRATION = "Let me look at the notes first."
ANSWER = "The notes say: buy mangoes."


def look(narration: str = NARRATION, **kw: Any) -> Turn:
    return tool_calls([("read_file", {"path": "notes.txt"})], text=narration, **kw)


def test_stdout_is_the_final_answer_and_the_narration_is_progress(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(look(), look("And once more, to be sure."), text(ANSWER, pieces=4))
    r = run_agent(fake_env, project, "what do the notes say?")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ANSWER + "\n"
    err = r.stderr
    first, second = err.index(NARRATION + "\n"), err.index("And once more, to be sure.\n")
    tool = err.index("→ read_file notes.txt")
    assert first < tool < second  # in the order it happened, each on lines of its own
    assert ANSWER not in err


def test_a_run_stopped_at_the_turn_limit_leaves_stdout_empty(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(look(), look("Still looking."))
    r = run_agent(fake_env, project, "--max-turns", "2", "q")
    assert r.returncode == 53
    assert r.stdout == ""
    said = r.stderr.index("Still looking.\n")
    assert said < r.stderr.index("error: reached the turn limit (2)")
    assert NARRATION in r.stderr


def test_a_failed_request_leaves_stdout_empty_and_says_why(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(look(), error(400, "the model is gone"))
    r = run_agent(fake_env, project, "q")
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr.index(NARRATION) < r.stderr.index("error: ")
    assert "the model is gone" in r.stderr


def test_a_reply_cut_off_and_retried_is_written_once(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    narration = "Reading the notes, which may take a while to explain in words."
    cut = look(narration, pieces=8, cut_after=4)
    fake.script(cut, look(narration, pieces=8), text(ANSWER, pieces=8, cut_after=4))
    fake.script(text(ANSWER, pieces=8))
    r = run_agent(fake_env, project, "q")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ANSWER + "\n"
    assert r.stderr.count(narration) == 1
    assert r.stderr.count("retrying") == 2


def test_an_answer_a_stop_hook_sends_back_was_progress(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    flag, hook = tmp_path / "asked-once", tmp_path / "stop.sh"
    hook.write_text(
        f'[ -e "{flag}" ] && exit 0\ntouch "{flag}"\n'
        'echo \'{"decision": "block", "reason": "check the notes too"}\'\n'
    )
    hook.chmod(0o755)
    user_settings(fake_env, {"hooks": {"Stop": [{"hooks": [{"command": str(hook)}]}]}})
    fake.script(text("Done, I think."), look(), text(ANSWER))
    r = run_agent(fake_env, project, "q")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ANSWER + "\n"
    assert r.stderr.index("Done, I think.\n") < r.stderr.index("→ read_file notes.txt")


def test_a_terminal_still_sees_the_reply_as_it_streams(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    # the server holds the rest of the answer until the run is interrupted: what the screen
    # shows by then was streamed, not written once the reply was whole
    fake.allow_unused()
    fake.script(look(), text(ANSWER + " More to come.", pieces=2, stall_after=1, stall_seconds=60))
    term = Term(fake_env, project, "q")
    try:
        term.wait_for("The notes say")
        assert "More to come" not in term.text()
        assert NARRATION in term.text()
        term.send("\x03")
        assert term.wait_exit() == 130
    finally:
        term.close()


def play(events: list[Event]) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    r = TextRenderer(out, err)
    for event in events:
        r.emit(event)
    r.finish({"subtype": "error_interrupted"})
    return out.getvalue(), err.getvalue()


def test_a_reply_cut_short_by_an_interrupt_goes_to_stderr() -> None:
    out, err = play(
        [TextDelta("Half of a rep"), TurnEnd("error_interrupted", "", 1, "interrupted")]
    )
    assert out == ""
    assert err.index("Half of a rep\n") < err.index("error: interrupted")


def test_an_answer_followed_by_more_work_that_fails_goes_to_stderr() -> None:
    out, err = play(
        [
            TextDelta("All done."),
            AssistantMessage("All done.", "", []),
            ToolStart("c1", "read_file", {"path": "a"}),
            TurnEnd("error_max_turns", "All done.", 2, "reached the turn limit"),
        ]
    )
    assert out == ""
    assert err.index("All done.\n") < err.index("→ read_file a")
