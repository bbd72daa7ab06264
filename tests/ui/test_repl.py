"""The REPL in a real pseudo-terminal against the fake server, and its parts in-process."""

from __future__ import annotations

import asyncio
import io
import time
from pathlib import Path

import pexpect
import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import user_texts
from prompt_toolkit.document import Document
from pty_term import READY, SHIFT_TAB, Term, plain_repl
from rich.console import Console

from agent.base.events import (
    AssistantMessage,
    ReasoningDelta,
    TextDelta,
    ToolEnd,
    ToolStart,
    TurnEnd,
)
from agent.commands.registry import Command
from agent.context.compaction import is_valid
from agent.context.mentions import attach, run_shell, shell_note
from agent.ui.completion import ReplCompleter, rank_paths, with_dirs
from agent.ui.keys import next_mode
from agent.ui.tui import LiveRenderer, finished, tail


# -- in a pseudo-terminal ------------------------------------------------------------------
def test_question_streams_the_answer_and_ctrl_d_exits(term: Term, fake: FakeOpenAI) -> None:
    fake.script(text("Hello from **the fake** model.\n\n```python\nx = 1\n```\n", pieces=6))
    term.wait_for(READY, where="bottom")
    assert "fake-model" in term.bottom()
    term.type("hi there")
    term.wait_for("Hello from the fake model.")
    term.wait_for("x = 1")
    term.wait_for(READY, where="bottom")
    assert term.count("Hello from the fake model.") == 1  # rendered once, never duplicated
    term.send("\x04")
    assert term.wait_exit() == 0
    assert user_texts(fake.requests[0])[-1].endswith("hi there")
    # leaving says which session it was, what it cost and how to go on with it
    assert "continue it with: agent -c" in term.text() and "session 2" in term.text()


@pytest.mark.parametrize("key", ["\x03", "\x1b"], ids=["ctrl-c", "esc"])
def test_interrupt_a_slow_stream_then_ask_again(term: Term, fake: FakeOpenAI, key: str) -> None:
    fake.script(text("tick " * 200, pieces=200, delay=0.1), text("second answer"))
    term.wait_for(READY, where="bottom")
    term.type("slow one")
    term.wait_for("tick tick")
    term.send(key)
    term.wait_for("interrupted")
    term.wait_for(READY, where="bottom")
    term.type("and now?")
    term.wait_for("second answer")
    term.send("\x04")
    assert term.wait_exit() == 0
    second = fake.requests[1]
    assert is_valid(second["messages"])
    users = user_texts(second)
    assert users[0].endswith("slow one")
    assert users[-1] == "and now?"


def test_a_hash_line_goes_to_memory_not_to_the_model(
    term: Term, fake: FakeOpenAI, project: Path
) -> None:
    """`# note` adds a line to ./AGENT.md (as `/memory add`); `## heading` is a message."""
    fake.script(text("a heading, noted"))
    term.wait_for(READY, where="bottom")
    term.type("# always run the tests with -q")
    term.wait_for("added to")
    assert (project / "AGENT.md").read_text().endswith("- always run the tests with -q\n")
    term.wait_for(READY, where="bottom")
    term.type("## a heading")
    term.wait_for("a heading, noted")
    term.send("\x04")
    assert term.wait_exit() == 0
    assert len(fake.requests) == 1 and user_texts(fake.requests[0])[-1].endswith("## a heading")


def test_tab_completes_a_command_and_ctrl_c_twice_exits(term: Term) -> None:
    term.wait_for(READY, where="bottom")
    term.send("/he")
    term.wait_for("List the commands")  # the completion menu shows the help text
    term.send("\t")
    term.wait_for("> /help")
    term.send("\r")
    term.wait_for("/security-review")
    term.wait_for(READY, where="bottom")
    term.send("\x03")
    term.wait_for("Ctrl-C again")
    term.send("\x03")
    assert term.wait_exit() == 0


@pytest.mark.parametrize("answer", ["y", "n", "esc"])
def test_permission_prompt(term: Term, fake: FakeOpenAI, project: Path, answer: str) -> None:
    fake.script(tool_calls([("write_file", {"path": "hello.txt", "content": "hi there\n"})]))
    if answer != "esc":
        fake.script(text("finished"))
    term.wait_for(READY, where="bottom")
    term.type("write hello.txt")
    shown = term.wait_for("Allow?")
    assert "permission: write_file" in shown
    assert str(project / "hello.txt") in shown.replace("\n", "")  # wrapped where long
    assert "+hi there" in shown
    if answer == "esc":
        term.send("\x1b")
        term.wait_for("interrupted")
        term.wait_for(READY, where="bottom")
        assert len(fake.requests) == 1
        fake.script(text("all done here"))
        term.type("never mind")
        term.wait_for("all done here")  # not "finished": the interrupted call's line has it
        assert is_valid(fake.requests[1]["messages"])
        assert "interrupted" in fake.requests[1]["messages"][-2]["content"]
    else:
        term.send(answer)  # at once: nothing was being typed, so the first key answers
        if answer == "n":
            term.wait_for("reason for the model")
            term.type("not now")
        term.wait_for("finished")
        result = fake.requests[1]["messages"][-1]
        assert result["role"] == "tool"
        if answer == "y":
            assert "hello.txt" in result["content"]
        else:
            assert "permission denied" in result["content"]
            assert "not now" in result["content"]
    assert (project / "hello.txt").exists() is (answer == "y")
    term.send("\x04")
    assert term.wait_exit() == 0


def test_typing_at_a_permission_prompt_does_not_answer_it(
    term: Term, fake: FakeOpenAI, project: Path
) -> None:
    fake.script(
        tool_calls([("write_file", {"path": "w.txt", "content": "w\n"})]),
        text("wrote"),
        text("noted"),
    )
    term.wait_for(READY, where="bottom")
    term.type("write w.txt")
    term.wait_for("Allow?")
    for ch in "yes and then":  # typing a message when the prompt pops up
        term.send(ch)
        time.sleep(0.05)
    term.wait_for("typing kept")
    time.sleep(0.3)
    assert not (project / "w.txt").exists() and len(fake.requests) == 1
    term.send("y")  # typed within a word: not an answer either
    term.send("\r")  # ... and Enter ends that word: it queues the message
    term.answer("y")
    term.wait_for("wrote")
    term.wait_for("noted")
    assert (project / "w.txt").read_text() == "w\n"
    assert user_texts(fake.requests[-1])[-1] == "yes and theny"
    term.send("\x04")
    assert term.wait_exit() == 0


def test_keys_typed_through_the_moment_a_prompt_appears_never_answer_it(
    term: Term, fake: FakeOpenAI, project: Path
) -> None:
    call = tool_calls([("write_file", {"path": "t.txt", "content": "t\n"})], pieces=8, delay=0.1)
    fake.script(call, text("not written"))
    term.wait_for(READY, where="bottom")
    term.type("write t.txt")
    for _ in range(30):  # typing "y" after "y" through the moment the question appears
        term.send("y")
        time.sleep(0.08)
    term.wait_for("Allow?")
    time.sleep(0.3)
    assert not (project / "t.txt").exists()
    term.answer("n")
    term.wait_for("reason for the model")
    term.send("\r")
    term.wait_for("not written")
    assert not (project / "t.txt").exists()
    term.wait_for("> yyy")  # what was typed is kept for the next message
    term.send("\x15\x04")
    assert term.wait_exit() == 0


def test_shift_tab_cycles_the_mode_in_the_toolbar(term: Term, fake: FakeOpenAI) -> None:
    fake.script(tool_calls([("write_file", {"path": "auto.txt", "content": "x\n"})]), text("done"))
    term.wait_for("default", where="bottom")
    for mode in ("acceptEdits", "plan", "default", "acceptEdits"):
        term.send(SHIFT_TAB)
        term.wait_for(f"⏵ {mode}", where="bottom")
    term.type("write auto.txt")  # acceptEdits: no prompt
    term.wait_for("done")
    assert "Allow?" not in term.text()
    term.send("\x04")
    assert term.wait_exit() == 0


def test_bang_command_and_file_mention(term: Term, fake: FakeOpenAI) -> None:
    fake.script(text("noted"))
    term.wait_for(READY, where="bottom")
    term.type("!echo marker-$((40 + 2))")
    term.wait_for("marker-42")
    term.wait_for(READY, where="bottom")
    term.type("what does @notes.txt say?")
    term.wait_for("noted")
    last = user_texts(fake.requests[0])[-1]
    assert "I ran `echo marker-$((40 + 2))` myself" in last
    assert "marker-42" in last
    assert '<file path="notes.txt">' in last
    assert "mango" in last
    term.send("\x04")
    assert term.wait_exit() == 0


def test_multiline_paste_history_and_search(
    fake_env: dict[str, str], project: Path, fake: FakeOpenAI
) -> None:
    fake.script(text("got two lines"), text("got the paste"), text("again"))
    term = Term(fake_env, project)
    try:
        term.wait_for(READY, where="bottom")
        term.send("\r")  # an empty line does nothing (the fake fails on a stray request)
        term.send("line one\x1b\r")  # Alt-Enter
        term.send("line two\n")  # Ctrl-J
        term.send("line three\\\r")  # a trailing backslash, as in a shell
        term.type("line four")
        term.wait_for("got two lines")
        term.wait_for(READY, where="bottom")
        term.send("\x1b[200~pasted one\r\npasted two\x1b[201~")
        term.wait_for("pasted two")
        term.send("\r")
        term.wait_for("got the paste")
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()
    assert user_texts(fake.requests[0])[-1].endswith("line one\nline two\nline three\nline four")
    assert user_texts(fake.requests[1])[-1] == "pasted one\npasted two"
    history = Path(fake_env["HOME"]) / ".agent" / "history"
    assert "+pasted two" in history.read_text()
    term = Term(fake_env, project)  # a new session searches the saved history
    try:
        term.wait_for(READY, where="bottom")
        term.send("\x12")  # Ctrl-R
        term.send("line tw")
        term.wait_for("line two")
        term.send("\r")  # take the match
        term.wait_for("line three")
        term.send("\r")  # send it
        term.wait_for("again")
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()
    assert user_texts(fake.requests[2])[-1].endswith("line one\nline two\nline three\nline four")


def test_stdout_not_a_terminal_falls_back_to_the_plain_repl(
    fake_env: dict[str, str], project: Path, fake: FakeOpenAI
) -> None:
    fake.script(text("plain answer"))
    child = plain_repl(fake_env, project)
    try:
        child.expect("Ctrl-D exits", timeout=30)
        child.send("hello\r")
        child.expect("plain answer", timeout=30)
        child.sendeof()
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_plain_repl_runs_slash_commands(
    fake_env: dict[str, str], project: Path, fake: FakeOpenAI
) -> None:
    fake.script(text("plain answer"))
    child = plain_repl(fake_env, project)
    try:
        child.expect("Ctrl-D exits", timeout=30)
        child.send("/todo\r")
        child.expect("No tasks.", timeout=30)
        child.send("/nosuch\r")
        child.expect("unknown command /nosuch", timeout=30)
        child.send("what is in @notes.txt\r")
        child.expect("plain answer", timeout=30)
        child.send("/cost\r")
        child.expect("price unknown for fake-model", timeout=30)  # never a wrong number
        child.send("/exit\r")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert len(fake.requests) == 1  # the commands never reached the model
    assert "mango" in user_texts(fake.requests[0])[-1]  # the @file was attached


# -- parts, in-process ---------------------------------------------------------------------
def test_next_mode_cycles() -> None:
    assert next_mode("default", "default") == "acceptEdits"
    assert next_mode("acceptEdits", "default") == "plan"
    assert next_mode("plan", "default") == "default"
    assert next_mode("plan", "bypassPermissions") == "bypassPermissions"
    assert next_mode("bypassPermissions", "bypassPermissions") == "default"
    assert next_mode("dontAsk", "default") == "default"


def test_finished_blocks() -> None:
    assert finished("para one\n\npara tw") == len("para one\n\n")
    assert finished("no end yet") == 0
    code = "```py\nx = 1\n\ny = 2\n```\n"
    assert finished(code[:-5]) == 0  # a blank line inside a fence does not end the block
    assert finished(code + "after") == len(code)
    long = "Intro:\n```py\n" + "\n".join(f"x{i} = {i}" for i in range(50))
    assert tail(long, 3) == "```py\nx47 = 47\nx48 = 48\nx49 = 49"
    assert tail("a\nb", 3) == "a\nb"


def test_completer() -> None:
    async def noop(ctx: object, args: str) -> None:
        return None

    cmds = {
        "help": Command("help", "List the commands.", noop),
        "history": Command("history", "Show history.", noop, source="user: x.md"),
    }
    paths = with_dirs(["src/app.py", "notes.txt", "src/lib/util.py"])
    c = ReplCompleter(lambda: cmds, lambda: paths)

    def complete(s: str) -> list[tuple[str, str]]:
        return [(x.text, x.display_meta_text) for x in c.get_completions(Document(s), None)]

    assert complete("/he") == [("/help", "List the commands.")]
    assert complete("/h") == [("/help", "List the commands."), ("/history", "Show history. (user)")]
    assert complete("/help x") == []
    assert [t for t, _ in complete("look at @no")] == ["notes.txt"]
    assert [t for t, _ in complete("@util")] == ["src/lib/util.py"]
    assert "src/" in [t for t, _ in complete("@sr")]
    assert complete("mail me@no") == []
    ranked = rank_paths(["a/b/app.py", "app.py", "x/apple", "lib/map.py"], "app")
    assert ranked == ["app.py", "x/apple", "a/b/app.py", "lib/map.py"]


def test_attach_mentions(project: Path) -> None:
    (project / "bin.dat").write_bytes(b"\0\1\2")
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("x = 1\n")
    out = attach("see @notes.txt, @src and @bin.dat; mail a@b.c @missing", project)
    assert '<file path="notes.txt">\nthe secret word is mango\n</file>' in out
    assert '<directory path="src">\na.py\n</directory>' in out
    assert "binary file" in out
    assert "missing" not in out.split("\n\n", 1)[1]
    assert attach("nothing here", project) == "nothing here"


async def test_run_shell_collects_and_cancels(project: Path) -> None:
    shown: list[str] = []
    out: list[str] = []
    code = await run_shell("echo one; echo two >&2; exit 3", project, shown.append, out)
    assert (code, out, shown) == (3, ["one", "two"], ["one", "two"])
    started = asyncio.Event()
    task = asyncio.ensure_future(
        run_shell("echo start; sleep 30", project, lambda _: started.set(), [])
    )
    await asyncio.wait_for(started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 10)
    assert "interrupted" in shell_note("sleep 30", "start", None)
    assert "exited 0" in shell_note("true", "", 0)


async def test_renderer_prints_each_block_once() -> None:
    console = Console(file=io.StringIO(), width=80, color_system=None)
    r = LiveRenderer(console)
    r.begin()
    r.emit(ReasoningDelta("let me see\nmore"))
    for piece in (
        "Hello ",
        "**world**.\n",
        "\nSecond ",
        "para.\n\n```py\nx = 1\n",
        "```\n",
        "tail",
    ):
        r.emit(TextDelta(piece))
    r.emit(AssistantMessage("", "", [], None))
    r.emit(ToolStart("c1", "read_file", {"path": "a.py"}))
    r.emit(ToolEnd("c1", "read_file", {"path": "a.py"}, "x", False, 12, "read a.py · 1 lines"))
    r.emit(TurnEnd("error_interrupted", "", 1, "interrupted"))
    r.end()
    shown = console.file.getvalue()
    for part in (
        "[thinking]",
        "let me see",
        "[/thinking]",
        "Hello world.",
        "Second para.",
        "x = 1",
    ):
        assert shown.count(part) == 1, part
    assert "tail" in shown
    assert "✓ read a.py · 1 lines · 12 ms" in shown
    assert "interrupted" in shown
    assert r.interrupted


async def test_progress_during_a_permission_prompt_waits_for_its_answer() -> None:
    from agent.base.events import SubagentProgress

    console = Console(file=io.StringIO(), width=80, color_system=None)
    r = LiveRenderer(console)
    r.begin("working")
    r.pause()  # a unit of /batch asks; the others go on working
    r.hold()
    r.emit(SubagentProgress("[unit 2] → bash make", "t2", "general", "tool_call"))
    r.line("a notice")
    assert "unit 2" not in console.file.getvalue() and "a notice" not in console.file.getvalue()
    r.release()
    r.resume()
    r.end()
    shown = console.file.getvalue()
    assert shown.index("[unit 2] → bash make") < shown.index("a notice")


def test_a_permission_prompt_while_idle_leaves_the_repl_usable(
    term: Term, fake: FakeOpenAI, project: Path
) -> None:
    fake.script(
        text("first run"),  # /loop runs now …
        tool_calls([("bash", {"command": "touch looped"})]),  # … and again while idle
        text("second run"),
        text("plain answer"),
    )
    term.wait_for(READY, where="bottom")
    term.type("/loop 2s check things")
    term.wait_for("first run")
    term.wait_for("Allow?", timeout=30)  # asked from the background, the prompt steps aside
    term.answer("y")
    term.wait_for("second run")
    assert (project / "looped").exists()
    term.type("/loop")  # typing works again: the loop stops
    term.wait_for("stopped")
    term.type("and a question")
    term.wait_for("plain answer")
    term.send("\x04")
    assert term.wait_exit() == 0


async def test_renderer_drops_the_live_text_of_a_retried_reply() -> None:
    from agent.base.events import ErrorEvent

    console = Console(file=io.StringIO(), width=80, color_system=None)
    r = LiveRenderer(console)
    r.begin()
    r.emit(TextDelta("partial answer that ge"))  # only in the live region
    r.emit(ErrorEvent("the reply was cut off: dropped", retrying=True, discard=True))
    assert r.text == ""
    for piece in ("partial answer ", "that gets cut off somewhere"):
        r.emit(TextDelta(piece))
    assert r.text == "partial answer that gets cut off somewhere"  # the live region: once
    r.emit(AssistantMessage(r.text, "", []))
    r.end()
    shown = console.file.getvalue()
    assert shown.count("partial answer") == 1
    assert "partial answer that gets cut off somewhere" in shown
    assert "↻" not in shown  # nothing of the cut reply was printed for good


async def test_renderer_marks_a_retry_after_printed_blocks() -> None:
    from agent.base.events import ErrorEvent

    console = Console(file=io.StringIO(), width=80, color_system=None)
    r = LiveRenderer(console)
    r.begin()
    r.emit(TextDelta("First para.\n\nSecond pa"))  # the first block is printed for good
    r.emit(ErrorEvent("the reply was cut off: dropped", retrying=True, discard=True))
    r.emit(TextDelta("First para.\n\nSecond para."))
    assert r.text == "Second para."
    r.emit(AssistantMessage("First para.\n\nSecond para.", "", []))
    r.end()
    shown = console.file.getvalue()
    assert shown.count("First para.") == 2  # the cut copy, then the retried reply …
    cut, retried = shown.split("↻ reply cut off; retrying")  # … with the note between them
    assert "First para." in cut and "Second pa" not in cut
    assert "First para." in retried and retried.count("Second para.") == 1


def test_one_shot_on_a_terminal_restarts_a_cut_reply_on_a_new_line(
    fake_env: dict[str, str], fake: FakeOpenAI, project: Path
) -> None:
    answer = "partial answer that gets cut off somewhere"
    fake.script(text(answer, pieces=8, cut_after=4), text(answer, pieces=8))
    t = Term(fake_env, project, "q")
    try:
        assert t.wait_exit() == 0
        shown = t.text()
        assert "↻ reply cut off; retrying" in shown
        assert answer in shown.splitlines()  # the retried reply whole, on its own line
    finally:
        t.close()
