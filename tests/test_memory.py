"""Memory files (§7): discovery root → cwd, @imports, the prompt's sections and size budget."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent import memory
from agent.memory import (
    MEMORY_HEADER,
    find_imports,
    init_prompt,
    load_memory,
    memory_report,
    system_prompt,
)
from agent.tokens import estimate, estimate_tools
from agent.tools import builtin_tools


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(root, cwd two levels down, home) with a real `git init` root."""
    root = tmp_path / "repo"
    cwd = root / "pkg" / "sub"
    cwd.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    home = tmp_path / "home"
    (home / ".agent").mkdir(parents=True)
    return root, cwd, home


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def names(files: list[memory.MemoryFile], base: Path) -> list[str]:
    return [f.path.resolve().relative_to(base.resolve()).as_posix() for f in files]


def test_discovery_outermost_first(repo: tuple[Path, Path, Path], tmp_path: Path) -> None:
    root, cwd, home = repo
    write(home / ".agent" / "AGENT.md", "user prefs")
    write(root / "AGENT.md", "root rules")
    write(root / ".agent" / "AGENT.md", "root private")
    write(root / "pkg" / "CLAUDE.md", "pkg claude")
    write(cwd / "AGENTS.md", "sub agents")
    write(tmp_path / "AGENT.md", "outside the repo: never loaded")
    files = load_memory(cwd, root, home)
    assert names(files, tmp_path) == [
        "home/.agent/AGENT.md",
        "repo/AGENT.md",
        "repo/.agent/AGENT.md",
        "repo/pkg/CLAUDE.md",
        "repo/pkg/sub/AGENTS.md",
    ]
    prompt = system_prompt(cwd, root, home)
    order = [prompt.index(t) for t in ("user prefs", "root rules", "pkg claude", "sub agents")]
    assert order == sorted(order)
    assert "outside the repo" not in prompt
    assert prompt.index("# Example") < prompt.index(MEMORY_HEADER)
    assert "## pkg/CLAUDE.md" in prompt
    assert "## ~/.agent/AGENT.md" in prompt


def test_no_memory_keeps_base_prompt(repo: tuple[Path, Path, Path]) -> None:
    root, cwd, home = repo
    assert system_prompt(cwd, root, home) == memory.base_prompt().rstrip() + "\n"
    assert "No memory files" in memory_report(cwd, root, home)


def test_imports_relative_home_and_tree(repo: tuple[Path, Path, Path]) -> None:
    root, cwd, home = repo
    write(root / "AGENT.md", "Style: see @docs/style.md, and @~/shared.md.\n")
    write(root / "docs" / "style.md", "STYLE\n@../conventions/naming.md")
    write(root / "conventions" / "naming.md", "NAMING")
    write(home / "shared.md", "SHARED")
    files = load_memory(cwd, root, home)
    assert [(f.path.name, f.depth) for f in files] == [
        ("AGENT.md", 0),
        ("style.md", 1),
        ("naming.md", 2),
        ("shared.md", 1),
    ]
    prompt = system_prompt(cwd, root, home)
    assert all(t in prompt for t in ("STYLE", "NAMING", "SHARED"))
    report = memory_report(cwd, root, home)
    assert "  └ @docs/style.md" in report
    assert "    └ @conventions/naming.md" in report
    assert "tokens" in report
    assert "~/shared.md" in report


def test_imports_skip_code_blocks_and_non_paths() -> None:
    text = (
        "Use @real/one.md here.\n"
        "````bash\n@fenced/skip.md\n```\nstill fenced @fenced/two.md\n````\n"
        "~~~\n@tilde/skip.md\n~~~\n"
        "Inline `@inline/skip.md` and ``x @double/skip.md y`` but @after/code.md.\n"
        "mail me@example.com, decorate with @dataclass, see @README.md\n"
    )
    assert find_imports(text) == ["real/one.md", "after/code.md", "README.md"]


def test_cycle_missing_and_duplicate_are_noted(repo: tuple[Path, Path, Path]) -> None:
    root, cwd, home = repo
    write(root / "AGENT.md", "A @a.md @missing.md @b.md")
    write(root / "a.md", "AAA @b.md")
    write(root / "b.md", "BBB @a.md @AGENT.md")
    files = load_memory(cwd, root, home)
    notes = {(f.path.name, f.depth): f.note for f in files}
    assert notes[("b.md", 2)] == ""
    assert notes[("a.md", 3)].startswith("import cycle")
    assert notes[("AGENT.md", 3)].startswith("import cycle")
    assert notes[("missing.md", 1)] == "not found"
    assert notes[("b.md", 1)] == "already loaded above"
    assert system_prompt(cwd, root, home).count("BBB") == 1
    assert "not found" in memory_report(cwd, root, home)


def test_import_depth_limit(repo: tuple[Path, Path, Path]) -> None:
    root, cwd, home = repo
    write(root / "AGENT.md", "L0 @l1.md")
    for i in range(1, 8):
        write(root / f"l{i}.md", f"L{i} @l{i + 1}.md")
    files = load_memory(cwd, root, home)
    loaded = [f.path.name for f in files if f.text]
    assert loaded == ["AGENT.md", *(f"l{i}.md" for i in range(1, 6))]
    assert files[-1].depth == 6
    assert files[-1].note.startswith("too deep")


def test_prompt_has_four_sections_and_guidance() -> None:
    base = memory.base_prompt()
    heads = [line for line in base.splitlines() if line.startswith("# ")]
    assert len(heads) == 4
    assert "safety > correctness > speed" in base
    for phrase in ("think", "plan", "ask instead of guessing", "read_file", "verify"):
        assert phrase in base


def test_prompt_plus_tools_within_budget() -> None:
    schemas = [t.schema() for t in builtin_tools()]
    assert estimate(memory.base_prompt()) + estimate_tools(schemas) <= 3000


def test_prompt_has_no_volatile_facts(repo: tuple[Path, Path, Path]) -> None:
    root, cwd, home = repo
    prompt = system_prompt(cwd, root, home)
    assert str(cwd) not in prompt
    assert "date:" not in prompt
    assert prompt == system_prompt(cwd, root, home)


def test_init_prompt_new_and_existing(tmp_path: Path) -> None:
    fresh = init_prompt(tmp_path)
    assert "no AGENT.md yet" in fresh
    assert "## Commands" in fresh
    assert "test" in fresh
    write(tmp_path / "AGENT.md", "old")
    write(tmp_path / "CLAUDE.md", "claude")
    again = init_prompt(tmp_path)
    assert "improve AGENT.md" in again
    assert "AGENT.md, CLAUDE.md" in again
    assert "{existing}" not in again


def test_estimate_beats_chars_over_four() -> None:
    """The heuristic stays on the safe side where chars/4 is far too low (JSON, digits, CJK)."""
    assert estimate("") == 0
    assert estimate("hello world") == 2
    digits = " ".join(str(n * 7919) for n in range(200))
    assert estimate(digits) > len(digits) / 4 * 1.5
    assert estimate("终端编码代理") >= 4
    assert estimate('{"a": [1, 2], "b": {"c": null}}') > 10


def test_imports_never_reach_secrets_or_outside_the_project(
    repo: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    root, cwd, home = repo
    write(home / ".ssh" / "id_rsa", "PRIVATE-KEY")
    write(home / ".bash_history", "export TOKEN=HISTORY-TOKEN")
    write(root / ".env", "API=ENV-SECRET")
    write(tmp_path / "elsewhere" / "notes.md", "ELSEWHERE")
    write(home / "notes.md", "HOME-NOTES")
    (root / "docs").mkdir(exist_ok=True)
    (root / "docs" / "link.md").symlink_to(home / ".ssh" / "id_rsa")
    write(
        root / "AGENT.md",
        "@~/.ssh/id_rsa @~/.bash_history @./.env @docs/link.md "
        f"@{tmp_path / 'elsewhere' / 'notes.md'} @~/notes.md",
    )
    # The user's own memory may import from anywhere, secrets still excepted.
    write(home / ".agent" / "AGENT.md", f"@{tmp_path / 'elsewhere' / 'notes.md'} @~/.aws/config")
    write(home / ".aws" / "config", "AWS-SECRET")
    prompt = system_prompt(cwd, root, home)
    for secret in ("PRIVATE-KEY", "HISTORY-TOKEN", "ENV-SECRET", "AWS-SECRET"):
        assert secret not in prompt
    assert "HOME-NOTES" in prompt
    assert prompt.count("ELSEWHERE") == 1  # via the user's file, not the repository's
    report = memory_report(cwd, root, home)
    assert "holds credentials: never imported into the prompt (skipped)" in report
    assert ".env may hold secrets: never imported" in report
    assert "outside the repository and home" in report


def test_discovered_symlinks_never_reach_secrets_or_outside(
    repo: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """AGENT.md -> .env (or ~/.ssh/id_rsa, or a file outside) is refused like such an import."""
    root, cwd, home = repo
    write(root / ".env", "API=ENV-SECRET")
    write(home / ".ssh" / "id_rsa", "PRIVATE-KEY")
    write(home / ".aws" / "credentials", "AWS-SECRET")
    write(tmp_path / "elsewhere" / "notes.md", "ELSEWHERE")
    (root / "AGENT.md").symlink_to(root / ".env")
    (root / "CLAUDE.md").symlink_to(home / ".aws" / "credentials")
    (root / "pkg").mkdir(exist_ok=True)
    (root / "pkg" / "AGENT.md").symlink_to(tmp_path / "elsewhere" / "notes.md")
    (home / ".agent" / "AGENT.md").symlink_to(home / ".ssh" / "id_rsa")
    files = load_memory(cwd, root, home)
    assert not any(f.text for f in files)
    prompt = system_prompt(cwd, root, home)
    for secret in ("ENV-SECRET", "PRIVATE-KEY", "AWS-SECRET", "ELSEWHERE"):
        assert secret not in prompt
    report = memory_report(cwd, root, home)
    assert "AGENT.md  (.env may hold secrets: never loaded into the prompt (skipped))" in report
    assert "CLAUDE.md  (~/.aws holds credentials: never loaded into the prompt" in report
    assert "~/.agent/AGENT.md  (id_rsa may hold secrets: never loaded" in report
    assert "pkg/AGENT.md  (outside the repository and home: a project's memory cannot" in report


def test_discovered_symlinks_to_plain_files_load(
    repo: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A symlink to ordinary markdown loads; its scope is where it sits, not where it points."""
    root, cwd, home = repo
    write(root / "docs" / "agent.md", "DOCS-RULES @../../elsewhere/notes.md")
    write(home / "notes" / "mine.md", "HOME-RULES")
    write(tmp_path / "elsewhere" / "notes.md", "ELSEWHERE")
    (root / "AGENT.md").symlink_to(root / "docs" / "agent.md")
    (root / "pkg").mkdir(exist_ok=True)
    (root / "pkg" / "AGENT.md").symlink_to(home / "notes" / "mine.md")  # home: allowed
    # The user's memory pointing into the repository stays the user's: it may import anywhere.
    write(root / "user.md", f"USER-RULES @{tmp_path / 'elsewhere' / 'notes.md'}")
    (home / ".agent" / "AGENT.md").symlink_to(root / "user.md")
    files = load_memory(cwd, root, home)
    loaded = [f.text.split()[0] for f in files if f.text]
    assert loaded == ["USER-RULES", "ELSEWHERE", "DOCS-RULES", "HOME-RULES"]
    refused = [f for f in files if f.note.startswith("outside the repository")]
    assert [f.parent for f in refused] == [root / "AGENT.md"]  # the repository's import of it
