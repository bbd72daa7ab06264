"""The gate (issue 37, item 4): no mode writes what runs later outside the sandbox (settings,
MCP servers, skills, editor tasks, git's files) without asking, and a skill's or command's
allowed-tools reach neither outside the workspace nor past the user's first look at them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.permissions.decide import decide
from agent.permissions.later import runs_later
from agent.permissions.paths import Workspace, secret_name
from agent.tools.builtin import builtin_tools

TOOLS = {t.name: t for t in builtin_tools()}
LATER = [
    ".mcp.json",
    ".envrc",
    ".gitmodules",
    ".gitattributes",
    ".env.local",
    ".claude/settings.json",
    ".claude/skills/x/SKILL.md",
    ".agent/skills/x/SKILL.md",
    ".agent/commands/deploy.md",
    ".vscode/tasks.json",
    ".idea/workspace.xml",
    "sub/.claude/commands/x.md",
]


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    return Workspace.make(root, home=tmp_path / "home")


@pytest.mark.parametrize("rel", LATER)
@pytest.mark.parametrize("mode", ["acceptEdits", "default", "dontAsk"])
def test_an_edit_of_what_runs_later_is_asked_in_every_mode(
    ws: Workspace, rel: str, mode: str
) -> None:
    path = str(ws.root / rel)
    for tool, args in (
        ("write_file", {"path": path, "content": "x"}),
        ("edit_file", {"path": path, "old_string": "a", "new_string": "b"}),
    ):
        d = decide({}, mode, TOOLS[tool], args, ws)
        assert d.kind == "ask" and d.source == "protected", (tool, d)
    d = decide({}, mode, TOOLS["read_file"], {"path": path}, ws)  # reading it is another matter
    assert d.kind == "allow" or secret_name(Path(rel).name), d


def test_ordinary_edits_still_go_through_in_accept_edits(ws: Workspace) -> None:
    for rel in ("src/app.py", ".gitignore", ".env.example", ".agent/worktrees/w/src/a.py"):
        args = {"path": str(ws.root / rel), "content": "x"}
        assert decide({}, "acceptEdits", TOOLS["write_file"], args, ws).kind == "allow", rel
    assert runs_later(".agent/worktrees/w/.claude/x") != ""  # a worktree's own still count


@pytest.mark.parametrize(
    "command",
    [
        "cp evil.json .mcp.json",
        "tee .claude/settings.json < x",
        "mkdir -p .vscode",
        "echo '* filter=x' > .gitattributes",
        "mv plan.md .agent/commands/plan.md",
        "ln -s /tmp/x .envrc",
        "sed -i s/a/b/ .claude/commands/go.md",
    ],
)
def test_a_command_that_writes_what_runs_later_is_asked(ws: Workspace, command: str) -> None:
    d = decide({"alwaysAllow": ["bash"]}, "acceptEdits", TOOLS["bash"], {"command": command}, ws)
    assert d.kind == "ask" and d.source == "protected", d  # protected: the sandbox asks too


def test_reading_or_running_from_there_is_not(ws: Workspace) -> None:
    for command in ("cat .claude/settings.json", "python3 .agent/skills/x/run.py data.csv"):
        d = decide({"alwaysAllow": ["bash"]}, "default", TOOLS["bash"], {"command": command}, ws)
        assert d.kind == "allow", (command, d)


@pytest.mark.parametrize(
    "rel", [".GIT/hooks/pre-commit", ".MCP.json", ".Agent/settings.json", ".ENV"]
)
def test_another_case_is_the_same_file_on_some_disks(ws: Workspace, rel: str) -> None:
    """On macOS `.GIT/hooks/pre-commit` is `.git/hooks/pre-commit`: asked about the same."""
    args = {"path": str(ws.root / rel), "content": "x"}
    d = decide({}, "acceptEdits", TOOLS["write_file"], args, ws)
    assert d.kind == "ask" and d.source == "protected", d
