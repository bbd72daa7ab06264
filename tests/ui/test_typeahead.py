"""Text typed while a turn runs: kept in the typeahead buffer, queued on Enter, sent after the
turn (in a real pseudo-terminal), put back in the prompt after an interrupt."""

from __future__ import annotations

from fake_openai import FakeOpenAI, text
from helpers import user_texts
from pty_term import READY, Term

from agent.ui.typeahead import TypeAhead


def test_buffer_edits_queues_and_skips_escape_sequences() -> None:
    t = TypeAhead()
    t.feed(b"fix the tesz\x7ft")
    assert (t.queued, t.text) == ([], "fix the test")
    t.feed(b"\x1b[A\x1bOB\x1b[1;5C")  # arrows, Ctrl-arrow: nothing typed
    t.feed(b"s\r\r")  # an empty line is not queued
    t.feed(b"and the doc: na\xc3")  # "ï" split across two reads
    t.feed(b"\xafve")
    assert t.queued == ["fix the tests"]
    assert t.text == "and the doc: naïve"
    t.feed(b" \x17")  # Ctrl-W drops the last word
    assert t.text == "and the doc: "
    t.feed(b"\x15second\r")
    t.feed(b"third")
    assert t.shown() == ("↳ queued: fix the tests … (sent when this turn ends) · typing: third")
    assert t.take() == (["fix the tests", "second"], "third")  # each Enter: its own input
    assert t.take() == ([], "") and t.shown() == ""
    t.feed(b"\x1bx")  # Alt-x
    t.feed(b"y\tz")
    assert t.text == "y z"


def test_a_paste_is_one_message() -> None:
    t = TypeAhead()
    t.feed(b"look at this:\r\n  line 1\r\n  line 2")  # one read: pasted
    assert (t.queued, t.text) == ([], "look at this:\n  line 1\n  line 2")
    assert t.shown() == "↳ typing: look at this: ⏎   line 1 ⏎   line 2"
    t.feed(b"\r")  # Enter queues all of it
    assert t.queued == ["look at this:\n  line 1\n  line 2"]
    t.take()
    t.feed(b"a\nb\n")  # a paste ending in a line break is queued whole
    t.feed(b"c")
    assert t.take() == (["a\nb"], "c")


def test_ctrl_d_on_an_empty_line_queues_exit() -> None:
    t = TypeAhead()
    t.feed(b"half\x04")  # inside a line: not an exit (as at the prompt), and not typed
    assert (t.queued, t.text) == ([], "half")
    t.feed(b"\r")
    t.feed(b"\x04")
    assert t.take() == (["half", "exit"], "")


def test_ctrl_d_pressed_during_a_turn_ends_the_session_after_it(
    term: Term, fake: FakeOpenAI
) -> None:
    """Pressed as the answer streams (or just as it ends), Ctrl-D is not lost: the session
    ends once the turn has."""
    fake.script(text("tick " * 40, pieces=40, delay=0.1))
    term.wait_for(READY, where="bottom")
    term.type("slow one")
    term.wait_for("tick tick")
    term.send("\x04")
    term.wait_for("queued: exit")
    assert term.wait_exit() == 0
    assert len(fake.requests) == 1


def test_enter_during_a_turn_sends_the_message_after_it(term: Term, fake: FakeOpenAI) -> None:
    fake.script(text("tick " * 40, pieces=40, delay=0.1), text("second answer"), text("third"))
    term.wait_for(READY, where="bottom")
    term.type("slow one")
    term.wait_for("tick tick")
    term.send("next question\r")
    term.send("half typed")
    term.wait_for("queued: next question")
    term.wait_for("typing: half typed")
    term.wait_for("second answer")
    term.wait_for(READY, where="bottom")
    assert term.count("> next question") == 1
    assert "> half typed" in term.text()
    term.send("\r")
    term.wait_for("third")
    assert user_texts(fake.requests[1])[-1] == "next question"
    assert user_texts(fake.requests[2])[-1] == "half typed"
    term.send("\x04")
    assert term.wait_exit() == 0


def test_an_interrupt_puts_typed_text_back_in_the_prompt(term: Term, fake: FakeOpenAI) -> None:
    fake.script(text("tick " * 200, pieces=200, delay=0.1), text("done"))
    term.wait_for(READY, where="bottom")
    term.type("slow one")
    term.wait_for("tick tick")
    term.send("do this instead\r")
    term.wait_for("queued: do this instead")
    term.send("\x1b")
    term.wait_for("interrupted")
    term.wait_for(READY, where="bottom")
    assert "> do this instead" in term.text()
    assert len(fake.requests) == 1  # Esc never sends what was queued
    term.send("\r")
    term.wait_for("done")
    assert user_texts(fake.requests[1])[-1] == "do this instead"
    term.send("\x04")
    assert term.wait_exit() == 0


def test_a_paste_during_a_turn_is_sent_as_one_message(term: Term, fake: FakeOpenAI) -> None:
    fake.script(text("tick " * 40, pieces=40, delay=0.1), text("got the paste"))
    term.wait_for(READY, where="bottom")
    term.type("slow one")
    term.wait_for("tick tick")
    term.send("first line\nsecond line\nthird line")
    term.wait_for("typing: first line ⏎ second line")
    term.send("\r")
    term.wait_for("got the paste")
    assert user_texts(fake.requests[1])[-1] == "first line\nsecond line\nthird line"
    assert len(fake.requests) == 2
    term.send("\x04")
    assert term.wait_exit() == 0


def test_a_command_and_a_question_typed_ahead_both_run_in_order(
    term: Term, fake: FakeOpenAI
) -> None:
    """Issue 21: `/cost` Enter, `what is 2+2` Enter while a turn runs: both run, in order."""
    fake.script(text("tick " * 40, pieces=40, delay=0.1), text("four"))
    term.wait_for(READY, where="bottom")
    term.type("slow one")
    term.wait_for("tick tick")
    term.send("/cost\r")
    term.send("what is 2+2\r")
    term.wait_for("queued: /cost …")
    term.wait_for("four")
    term.wait_for(READY, where="bottom")
    screen = term.text()
    assert screen.index("> /cost") < screen.index("requests") < screen.index("> what is 2+2")
    assert user_texts(fake.requests[1])[-1] == "what is 2+2"  # not swallowed as /cost's args
    assert len(fake.requests) == 2
    term.send("\x04")
    assert term.wait_exit() == 0
