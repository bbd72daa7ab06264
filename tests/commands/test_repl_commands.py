"""/status and /copy in the real REPL, in a pseudo-terminal against the fake server: what they
print reaches the screen, and /copy's OSC 52 escape reaches the terminal itself (the console
the commands print to would have taken it out)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text
from pty_term import READY, Term

from agent.commands.clipboard import osc52


@pytest.fixture
def ssh_term(fake_env: dict[str, str], project: Path) -> Iterator[Term]:
    """The REPL as a session over ssh sees it (the clipboard is the terminal's)."""
    t = Term({**fake_env, "SSH_CONNECTION": "10.0.0.1 50000 10.0.0.2 22"}, project)
    yield t
    t.close()


def test_status_and_copy_in_the_repl(ssh_term: Term, fake: FakeOpenAI) -> None:
    term = ssh_term
    fake.script(text("Copy this answer, please."))
    term.wait_for(READY, where="bottom")
    term.type("/status")
    shown = term.wait_for("settings     ")
    assert "model        fake-model" in shown
    assert "API key      AGENT_API_KEY from the environment" in shown
    assert "test-key" not in shown  # never the key
    assert "sandbox      off" in shown
    term.wait_for(READY, where="bottom")
    term.type("/copy")
    term.wait_for("no answer to copy yet")
    term.wait_for(READY, where="bottom")
    term.type("say something")
    term.wait_for("Copy this answer, please.")
    term.wait_for(READY, where="bottom")
    term.type("/copy")
    term.wait_for("copied the last answer (25 characters) with an OSC 52 escape")
    assert osc52("Copy this answer, please.") in term.raw
    term.send("\x04")
    assert term.wait_exit() == 0
