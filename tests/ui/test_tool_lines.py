"""Issue 43, item 7 in the real REPL: a write's diff is shown once (the permission prompt's),
a denial's reason is never cut, the todo list is drawn under the call that changed it, long
lines wrap at word boundaries."""

from __future__ import annotations

import json
from pathlib import Path

from fake_openai import FakeOpenAI, text, tool_calls
from pty_term import Term

READY = "shift-tab"
LONG = "a" * 150  # a path segment longer than a cut line would keep
CLOSING = (
    "all done, and this closing sentence is long enough to wrap at a word boundary in a "
    "terminal of one hundred and ten columns, as the screen shows"
)


def test_diff_once_denial_whole_todo_under_its_call(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    settings = Path(fake_env["HOME"]) / ".agent" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"neverAllow": [f"bash(curl {LONG}:*)"]}}))
    fake.script(
        tool_calls([("write_file", {"path": "notes.md", "content": "# Notes\nunique line\n"})]),
        tool_calls([("bash", {"command": f"curl {LONG} -o x"})]),
        tool_calls([("todo", {"action": "add", "text": "read the code"})]),
        text(CLOSING),
    )
    term = Term(fake_env, project)
    try:
        term.wait_for(READY, where="bottom")
        term.type("go")
        term.wait_for("Allow?")
        term.answer("y")
        shown = term.wait_for("all done")
    finally:
        term.close()
    assert shown.count("+unique line") == 1  # the prompt's diff; the result's is not repeated
    flat = "".join(shown.split())  # wrapped lines joined
    assert f"deniedbyrule'bash(curl{LONG}:*)'" in flat  # the whole reason, never cut
    lines = shown.splitlines()
    added = next(i for i, ln in enumerate(lines) if "Added task 1" in ln)
    assert lines[added + 1] == "todo:" and "[ ] 1. read the code" in lines[added + 2]
    at = next(i for i, ln in enumerate(lines) if ln.startswith("all done"))
    assert lines[at] != CLOSING and f"{lines[at]} {lines[at + 1]}" == CLOSING  # between words


def test_a_server_that_fails_at_start_is_said_before_the_first_prompt_is_used(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    settings = Path(fake_env["HOME"]) / ".agent" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"mcpServers": {"gone": {"command": "/nonexistent/server"}}}))
    fake.script(text("hello"))
    term = Term(fake_env, project)
    try:
        term.wait_for(READY, where="bottom")
        shown = term.wait_for("MCP server 'gone' failed")  # nothing typed yet
        assert "\n>" in shown.split("MCP server 'gone' failed")[1]  # above the prompt
        term.type("hi")
        shown = term.wait_for("hello")
        assert shown.count("MCP server 'gone' failed") == 1  # said once
    finally:
        term.close()
