"""Agent definitions: a project's load once it is trusted (their prompts, models and tools are
the repository's code); the user's always; Claude Code's folders beside ours."""

from __future__ import annotations

from pathlib import Path

from agent.subagents.defs import load_defs

KNOWN = {"read_file": ("Read",), "grep": ("Grep",), "bash": ("Bash",)}


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_project_definitions_wait_for_trust(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    write(repo / ".claude" / "agents" / "spender.md",
          "---\nname: spender\nmodel: very-expensive\n---\nDo anything.\n")  # fmt: skip
    write(home / ".agent" / "agents" / "mine.md", "---\nname: mine\ntools: Read\n---\nMine.\n")
    defs, warnings = load_defs(repo, KNOWN, home, trusted=False)
    assert list(defs) == ["mine"] and defs["mine"].tools == ("read_file",)
    assert warnings == ["1 project agent definition(s) not loaded: the project is not trusted"]
    defs, warnings = load_defs(repo, KNOWN, home, trusted=True)
    assert sorted(defs) == ["mine", "spender"] and warnings == []


def test_in_the_home_directory_the_definitions_are_the_user_s(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / ".agent" / "agents" / "mine.md", "---\nname: mine\n---\nMine.\n")
    defs, warnings = load_defs(home, KNOWN, home, trusted=False)
    assert list(defs) == ["mine"] and warnings == []


def test_a_link_to_a_device_is_not_read(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    (repo / ".agent" / "agents").mkdir(parents=True)
    (repo / ".agent" / "agents" / "zero.md").symlink_to("/dev/zero")
    defs, warnings = load_defs(repo, KNOWN, home, trusted=True)
    assert defs == {} and "not a regular file" in warnings[0]
