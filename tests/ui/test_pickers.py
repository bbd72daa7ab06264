"""Issue 43, items 3 and 4 in the real REPL (a pseudo-terminal read as a screen): a command's
output under its line and Ctrl-O for all of it; sessions and checkpoints labelled by the user's
own words in arrow-key pickers; Esc Esc rewinds and puts the prompt back; /clear keeps the
earlier conversation resumable; a resumed session is drawn again."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent
from pty_term import Term

from agent.session.store import resumable, sessions_dir

READY = "shift-tab"
DOWN, UP, ESC = "\x1b[B", "\x1b[A", "\x1b"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project with code in it: its first message carries a repository map."""
    p = tmp_path / "proj"
    (p / "src").mkdir(parents=True)
    (p / "src" / "shapes.py").write_text("class Square:\n    def area(self):\n        return 4\n")
    subprocess.run(["git", "init", "-q"], cwd=p, check=True)
    subprocess.run(["git", "add", "."], cwd=p, check=True)
    return p


def ready(term: Term) -> None:
    term.wait_for(READY, where="bottom")


def test_a_commands_output_shows_its_first_lines_and_ctrl_o_shows_all(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    script = "seq 1 12; echo first-err >&2; echo second-err >&2; exit 3"
    fake.script(tool_calls([("bash", {"command": script})]), text("it failed"))
    term = Term(fake_env, project, "--permission-mode", "bypassPermissions")
    try:
        ready(term)
        term.type("run it")
        shown = term.wait_for("it failed")
        assert "⎿ 1\n" in shown and "      4\n" in shown and "      5\n" not in shown
        assert "… +8 lines (ctrl-o shows all)" in shown
        assert "first-err" in shown and "second-err" in shown  # stderr of a failed command
        term.send("\x0f")  # Ctrl-O
        shown = term.wait_for("\n12\n")
        assert "\n11\n" in shown and "[stderr]\nfirst-err\nsecond-err" in shown
    finally:
        term.close()


def test_sessions_are_picked_by_the_users_words_and_drawn_again(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text("the answer about **squares**"))
    term = Term(fake_env, project)
    try:
        ready(term)
        term.type("!echo from-the-shell")
        term.wait_for("\nfrom-the-shell")  # its output (the line typed shows the words too)
        term.type("what is in @src/shapes.py")
        term.wait_for("the answer about")
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()
    sent = str(fake.requests[0]["messages"][-1]["content"])
    assert "<env>" in sent and "from-the-shell" in sent and "class Square" in sent
    fake.script(text("ok"))
    r = run_agent(fake_env, project, "--output-format", "json", "a second session")
    assert r.returncode == 0, r.stderr

    term = Term(fake_env, project, "-r")
    try:
        term.wait_for("resume which?")
        rows = [ln for ln in term.text().splitlines() if "turn " in ln or "turns" in ln]
        assert len(rows) == 2 and "a second session" in rows[0]
        assert rows[1].endswith("what is in @src/shapes.py")  # the words typed, nothing else
        fake.script(text("more"))
        term.send(DOWN + "\r")
        ready(term)
        shown = term.wait_for("last: what is in @src/shapes.py")
        assert "> what is in @src/shapes.py" in shown and "the answer about squares" in shown
        assert shown.index("the answer about") < shown.index("resumed here")
        term.type("and?")
        term.wait_for("more")
    finally:
        term.close()


def test_esc_esc_rewinds_and_puts_the_prompt_back(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text("one"), text("two"), text("two again"))
    term = Term(fake_env, project)
    try:
        ready(term)
        term.type("first prompt")
        term.wait_for("one")
        term.type("second prompt")
        term.wait_for("two")
        ready(term)
        term.send(ESC + ESC)
        shown = term.wait_for("rewind to before which prompt?")
        assert "❯  2. #2" in shown and "second prompt" in shown
        assert "<env>" not in shown and "shapes" not in shown
        term.send("\r")  # the last prompt, chosen by default
        term.wait_for("what goes back?")
        term.send(DOWN + "\r")  # conversation only
        term.wait_for("conversation rewound to before #2")
        ready(term)
        term.wait_for("> second prompt", where="text")
        term.send("\r")  # the prompt put back, sent again as it is
        term.wait_for("two again")
    finally:
        term.close()
    sent = [str(m["content"]) for m in fake.requests[-1]["messages"][1:]]
    assert sent[1:] == ["one", "second prompt"]  # #2's first exchange is gone


def test_clear_clears_the_screen_and_leaves_the_conversation_resumable(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text("an answer to keep"))
    term = Term(fake_env, project)
    try:
        ready(term)
        term.type("keep this conversation")
        term.wait_for("an answer to keep")
        term.type("/clear")
        term.wait_for("the earlier one: /resume")
        assert "an answer to keep" not in "\n".join(term.screen.display)
        term.type("/resume")
        shown = term.wait_for("resume which?")
        assert "keep this conversation" in shown
        term.send(ESC)
        ready(term)
    finally:
        term.close()
    kept = [s for s in resumable(project, project) if s.first_prompt == "keep this conversation"]
    assert len(kept) == 1 and kept[0].turns == 1
    records = [json.loads(x) for x in (sessions_dir(project) / f"{kept[0].id}.jsonl").open()]
    assert not any(r.get("t") == "rewind" for r in records)  # nothing of it was dropped


def test_model_with_no_name_picks_among_the_servers_models(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.models = ["alpha", "fake-model", "zeta"]
    fake.script(text("from zeta"))
    term = Term(fake_env, project)
    try:
        ready(term)
        term.type("/model")
        shown = term.wait_for("model for the next request?")
        assert "❯  2. fake-model" in shown and "alpha" in shown and "zeta" in shown
        term.send(DOWN + "\r")
        term.wait_for("model: fake-model → zeta from the next request")
        term.type("hello")
        term.wait_for("from zeta")
    finally:
        term.close()
    assert fake.requests[-1]["model"] == "zeta"


def test_a_long_paste_shows_as_a_placeholder_and_is_sent_whole(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(text("read it"))
    pasted = "\r\n".join(f"row {n}" for n in range(1, 401))
    term = Term(fake_env, project)
    try:
        ready(term)
        term.send("look at this: ")
        term.send(f"\x1b[200~{pasted}\x1b[201~")
        term.wait_for("[pasted text #1 +400 lines]")
        term.send(" and say")
        term.wait_for("+400 lines] and say")
        assert "row 2" not in term.text()
        term.send("\r")
        term.wait_for("read it")
    finally:
        term.close()
    sent = str(fake.requests[0]["messages"][-1]["content"])
    assert "look at this: row 1\nrow 2\n" in sent
    assert "row 400 and say" in sent and "[pasted text" not in sent
    history = (Path(fake_env["HOME"]) / ".agent" / "history").read_text()
    assert "+row 400 and say" in history and "[pasted text" not in history
