"""What a line typed at the prompt is (issue 20): `exit`/`quit`/`:q` end the REPL, `/?` is help,
an unknown `/word` is never sent to the model, and `//text` sends `/text`."""

from __future__ import annotations

import pexpect
import pytest
from fake_openai import FakeOpenAI, text
from helpers import user_texts
from pty_term import READY, Term, plain_repl

from agent.commands.registry import as_message, did_you_mean, parse


def test_lines_are_read_as_commands_or_messages() -> None:
    assert parse("/?") == ("help", "")
    assert parse("/help") == ("help", "")
    assert parse("//etc/hosts is missing") is None
    assert as_message("//etc/hosts is missing") == "/etc/hosts is missing"
    assert as_message("/usr/bin/env is odd") == "/usr/bin/env is odd"
    assert parse("/usr/bin/env is odd") is None  # a path, not a command
    assert did_you_mean("hlep", ["help", "hooks", "clear"]) == ["help"]
    assert did_you_mean("comapct", ["compact", "context", "cost"])[0] == "compact"
    assert did_you_mean("zzz", ["help"]) == []


@pytest.mark.parametrize("word", ["exit", "quit", ":q"])
def test_an_exit_word_ends_the_repl(term: Term, fake: FakeOpenAI, word: str) -> None:
    term.wait_for(READY, where="bottom")
    term.type(word)
    assert term.wait_exit() == 0
    assert fake.requests == []  # never sent


def test_help_unknown_commands_and_a_literal_slash(term: Term, fake: FakeOpenAI) -> None:
    fake.script(text("That path is fine."))
    term.wait_for(READY, where="bottom")
    term.type("/?")
    term.wait_for("/security-review")  # the help list
    term.wait_for(READY, where="bottom")
    term.type("/hlep me")
    term.wait_for("unknown command /hlep (did you mean /help")
    term.wait_for(READY, where="bottom")
    term.type("//etc/hosts looks odd")
    term.wait_for("That path is fine.")
    term.send("\x04")
    assert term.wait_exit() == 0
    assert len(fake.requests) == 1  # /? and /hlep were not sent
    assert user_texts(fake.requests[0])[-1].endswith("/etc/hosts looks odd")


def test_the_plain_repl_knows_the_same_words(
    fake_env: dict[str, str], fake: FakeOpenAI, project: object
) -> None:
    fake.script(text("sent with its slash"))
    child = plain_repl(fake_env, project)  # type: ignore[arg-type]
    child.expect("> ", timeout=30)
    child.sendline("/nosuch")
    child.expect("unknown command /nosuch", timeout=30)
    child.sendline("//x y")
    child.expect("sent with its slash", timeout=30)
    child.sendline("quit")
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    assert child.exitstatus == 0
    assert len(fake.requests) == 1
    assert user_texts(fake.requests[0])[-1].endswith("/x y")
