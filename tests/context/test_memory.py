"""Memory files (§7): discovery root → cwd, @imports, the prompt's sections and size budget."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent.base.shelf import Shelf, schemas
from agent.base.tokens import estimate, estimate_tools
from agent.context import memory
from agent.context.memory import (
    MEMORY_HEADER,
    find_imports,
    init_prompt,
    load_memory,
    memory_report,
    system_prompt,
)
from agent.tools.builtin import builtin_tools, registry


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
    files = load_memory(cwd, root, home, trusted=True)
    assert [(f.path.name, f.depth) for f in files] == [
        ("AGENT.md", 0),
        ("style.md", 1),
        ("naming.md", 2),
        ("shared.md", 1),
    ]
    prompt = system_prompt(cwd, root, home, trusted=True)
    assert all(t in prompt for t in ("STYLE", "NAMING", "SHARED"))
    report = memory_report(cwd, root, home, trusted=True)
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
    tools = registry(builtin_tools(finder=True))
    sent = schemas(tools, Shelf.of(tools, [], "default"))  # the rare ones wait (tool_search)
    assert estimate(memory.base_prompt()) + estimate_tools(sent) <= 3000


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
    prompt = system_prompt(cwd, root, home, trusted=True)
    for secret in ("PRIVATE-KEY", "HISTORY-TOKEN", "ENV-SECRET", "AWS-SECRET"):
        assert secret not in prompt
    assert "HOME-NOTES" in prompt
    assert prompt.count("ELSEWHERE") == 1  # via the user's file, not the repository's
    report = memory_report(cwd, root, home, trusted=True)
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
    assert "CLAUDE.md  (credentials may hold secrets: never loaded into the prompt" in report
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
    files = load_memory(cwd, root, home, trusted=True)
    loaded = [f.text.split()[0] for f in files if f.text]
    assert loaded == ["USER-RULES", "ELSEWHERE", "DOCS-RULES", "HOME-RULES"]
    refused = [f for f in files if f.note.startswith("outside the repository")]
    assert [f.parent for f in refused] == [root / "AGENT.md"]  # the repository's import of it
    # Untrusted, the repository's link into home is refused like an import from there would be.
    files = load_memory(cwd, root, home, trusted=False)
    assert [f.text.split()[0] for f in files if f.text] == ["USER-RULES", "ELSEWHERE", "DOCS-RULES"]
    (link,) = [f for f in files if f.path == root / "pkg" / "AGENT.md"]
    assert link.note.startswith("outside the project: an untrusted project's memory cannot link")


def test_untrusted_project_cannot_import_home_files(
    repo: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A repository's `See @~/.zshrc` must not put the user's exported keys into the prompt."""
    root, cwd, home = repo
    write(home / ".zshrc", "export OPENAI_API_KEY=sk-ZSHRC-SECRET")
    write(home / ".claude" / "my-instructions.md", "CLAUDE-PERSONAL")
    write(root / "docs" / "style.md", "REPO-STYLE")
    (root / "docs" / "rc.md").symlink_to(home / ".zshrc")
    write(
        root / "AGENT.md",
        "See @~/.zshrc and @~/.claude/my-instructions.md, @docs/style.md, @docs/rc.md\n",
    )
    write(home / ".agent" / "AGENT.md", "MINE @~/.zshrc")  # the user's own file: unaffected
    prompt = system_prompt(cwd, root, home, trusted=False)
    assert prompt.count("ZSHRC-SECRET") == 1  # only through ~/.agent/AGENT.md
    assert "CLAUDE-PERSONAL" not in prompt
    assert "REPO-STYLE" in prompt  # imports inside the project need no trust
    files = load_memory(cwd, root, home, trusted=False)
    refused = {f.path.name: f.note for f in files if f.parent == root / "AGENT.md" and f.note}
    assert set(refused) == {".zshrc", "my-instructions.md", "rc.md"}
    assert all(n.startswith("outside the project: an untrusted project") for n in refused.values())
    report = memory_report(cwd, root, home, trusted=False)
    assert "└ @~/.claude/my-instructions.md  (outside the project: an untrusted" in report
    assert "--trust-project" in report
    # Trusted (the trust prompt or --trust-project): Claude Code's documented pattern works.
    prompt = system_prompt(cwd, root, home, trusted=True)
    assert "CLAUDE-PERSONAL" in prompt
    assert "untrusted" not in memory_report(cwd, root, home, trusted=True)


def test_trust_defaults_to_the_stored_decision(
    repo: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.config import trust

    root, cwd, home = repo
    monkeypatch.setenv("HOME", str(home))
    write(home / ".claude" / "my-instructions.md", "CLAUDE-PERSONAL")
    write(root / "CLAUDE.md", "@~/.claude/my-instructions.md")
    assert "CLAUDE-PERSONAL" not in system_prompt(cwd, root, home)
    trust.trust(root)
    assert "CLAUDE-PERSONAL" in system_prompt(cwd, root, home)
    assert "CLAUDE-PERSONAL" not in system_prompt(cwd, root, home, trusted=False)


def test_discovery_reaches_the_git_root_past_a_nested_agent_dir(
    repo: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """repo/.git, repo/AGENT.md, repo/pkg/.agent/: root is pkg, memory starts at repo."""
    from agent.config.settings import project_root

    top, cwd, home = repo
    (top / "pkg" / ".agent").mkdir()
    root = project_root(cwd)
    assert root == top / "pkg"
    write(home / ".agent" / "AGENT.md", "USER")
    write(top / "AGENT.md", "REPO-ROOT @docs/guide.md")
    write(top / "docs" / "guide.md", "GUIDE")  # above the project root: still the project's
    write(top / "pkg" / "CLAUDE.md", "PKG @../shared/naming.md")
    write(top / "shared" / "naming.md", "NAMING")
    write(cwd / "AGENTS.md", "SUB")
    write(tmp_path / "AGENT.md", "ABOVE-THE-REPOSITORY")
    files = load_memory(cwd, root, home, trusted=False)
    assert names(files, tmp_path) == [
        "home/.agent/AGENT.md",
        "repo/AGENT.md",
        "repo/docs/guide.md",
        "repo/pkg/CLAUDE.md",
        "repo/shared/naming.md",
        "repo/pkg/sub/AGENTS.md",
    ]
    assert not any(f.note for f in files)
    prompt = system_prompt(cwd, root, home, trusted=False)
    order = [prompt.index(t) for t in ("USER", "REPO-ROOT", "GUIDE", "PKG", "NAMING", "SUB")]
    assert order == sorted(order)
    assert "ABOVE-THE-REPOSITORY" not in prompt
    assert "## ../AGENT.md" in prompt and "## CLAUDE.md" in prompt
    report = memory_report(cwd, root, home, trusted=False)
    assert "../AGENT.md  (" in report
    assert "  └ @../shared/naming.md  (" in report


def test_discovery_stops_at_a_git_file_and_below_home(tmp_path: Path) -> None:
    """A linked worktree's `.git` file marks its top; a dotfiles repository in ~ is not one."""
    from agent.config.settings import project_root

    home = tmp_path / "home"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    main = home / "code" / "main"
    main.mkdir(parents=True)
    subprocess.run([*git, "init", "-q", str(main)], check=True)
    write(main / "README.md", "x")
    subprocess.run([*git, "-C", str(main), "add", "."], check=True)
    subprocess.run([*git, "-C", str(main), "commit", "-qm", "x"], check=True)
    wt = home / "code" / "wt"
    subprocess.run([*git, "-C", str(main), "worktree", "add", "-q", str(wt)], check=True)
    assert (wt / ".git").is_file()
    write(wt / "AGENT.md", "WORKTREE-TOP")
    (wt / "pkg" / ".agent").mkdir(parents=True)
    write(home / "code" / "AGENT.md", "ABOVE")
    cwd = wt / "pkg"
    root = project_root(cwd)
    assert root == cwd
    assert memory.memory_top(root, home) == wt
    assert [f.text for f in load_memory(cwd, root, home, trusted=False)] == ["WORKTREE-TOP"]
    # ~/.git (dotfiles) with ~/AGENT.md: a project below home without its own repository.
    subprocess.run([*git, "init", "-q", str(home)], check=True)
    write(home / "AGENT.md", "DOTFILES")
    proj = home / "notes" / "proj"
    (proj / ".agent").mkdir(parents=True)
    write(proj / "AGENT.md", "PROJ")
    assert memory.memory_top(proj, home) == proj
    prompt = system_prompt(proj, proj, home, trusted=True)
    assert "PROJ" in prompt and "DOTFILES" not in prompt and "ABOVE" not in prompt


def test_symlink_above_project_root_is_a_project_file(
    repo: tuple[Path, Path, Path],
) -> None:
    """Files between the project root and the git root get the project's rules, not the user's."""
    root_top, cwd, home = repo
    (root_top / "pkg" / ".agent").mkdir()
    write(home / "private.md", "HOME-PRIVATE")
    (root_top / "AGENT.md").symlink_to(home / "private.md")
    write(root_top / "CLAUDE.md", "@~/private.md")
    root = root_top / "pkg"
    files = load_memory(cwd, root, home, trusted=False)
    assert [(f.path.name, f.note.split(":")[0]) for f in files] == [
        ("AGENT.md", "outside the project"),
        ("CLAUDE.md", ""),
        ("private.md", "outside the project"),
    ]
    assert "HOME-PRIVATE" not in system_prompt(cwd, root, home, trusted=False)
    assert "HOME-PRIVATE" in system_prompt(cwd, root, home, trusted=True)


def test_imports_skip_indented_code_blocks() -> None:
    text = (
        "    @start/skip.md\n"
        "Intro @real/one.md\n"
        "    @lazy/continuation.md\n"
        "\n"
        "    @indented/skip.md\n"
        "\t@tab/skip.md\n"
        "\n"
        "        @still/code.md\n"
        "Text @real/two.md\n"
        "# Heading\n"
        "    @after/heading.md\n"
        "\n"
        "- item @list/item.md\n"
        "\n"
        "    @list/paragraph.md\n"
        "\n"
        "      @list/code.md\n"
        "1. step\n"
        "\n"
        "   ```sh\n"
        "   @list/fenced.md\n"
        "   ```\n"
        "\n"
        "After the list @real/three.md `@span/skip.md`\n"
        "\n"
        "    @after/list.md\n"
    )
    assert find_imports(text) == [
        "real/one.md",
        "lazy/continuation.md",
        "real/two.md",
        "list/item.md",
        "list/paragraph.md",
        "real/three.md",
    ]


def test_indented_code_import_not_loaded(repo: tuple[Path, Path, Path]) -> None:
    root, cwd, home = repo
    write(root / "docs" / "example.md", "EXAMPLE-ONLY")
    write(root / "AGENT.md", "Write imports like this:\n\n    See @docs/example.md\n")
    files = load_memory(cwd, root, home, trusted=False)
    assert [f.path.name for f in files] == ["AGENT.md"]
    assert "EXAMPLE-ONLY" not in system_prompt(cwd, root, home, trusted=False)


def test_home_imports_of_a_project_ask_for_trust_in_the_repl(
    fake: Any, fake_env: dict[str, str], tmp_path: Path
) -> None:
    from fake_openai import text
    from pty_term import Term

    home = Path(fake_env["HOME"])
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "mine.md").write_text("MY-PERSONAL-RULES\n")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "CLAUDE.md").write_text("Project notes. See @~/.claude/mine.md\n")
    term = Term(fake_env, project)
    try:
        shown = term.wait_for("Trust this project")
        assert "CLAUDE.md importing files from your home directory" in shown
        term.type("y")
        term.wait_for("shift-tab", where="bottom")
        fake.script(text("noted"))
        term.type("hi")
        term.wait_for("noted")
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()
    assert "MY-PERSONAL-RULES" in fake.requests[0]["messages"][0]["content"]


def test_worktree_from_a_subdirectory_keeps_its_memory(
    fake: Any, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """`agent --worktree` from proj/sub: the worktree's own copies top → sub (committed), and
    the main checkout's personal files where the worktree has none — each once."""
    import sys

    from fake_openai import text

    proj = tmp_path / "proj"
    sub = proj / "sub"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(proj)]
    write(proj / "AGENT.md", "TOP-MEMORY")
    write(sub / "AGENT.md", "SUB-MEMORY")
    subprocess.run(["git", "init", "-q", "-b", "main", str(proj)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    write(sub / "CLAUDE.md", "SUB-PERSONAL")  # untracked: only in the main checkout
    write(proj / ".agent" / "AGENT.md", "TOP-PERSONAL")
    prompts = []
    for extra in ((), ("--worktree", "m1")):
        fake.script(text("ok"))
        cmd = [sys.executable, "-m", "agent", "--trust-project", *extra, "hi"]
        out = subprocess.run(cmd, env=fake_env, cwd=sub, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        prompts.append(fake.requests[-1]["messages"][0]["content"])
    wt = proj / ".agent" / "worktrees" / "m1"
    assert f"cwd: {wt / 'sub'}" in fake.requests[-1]["messages"][1]["content"]
    for prompt in prompts:
        for marker in ("TOP-MEMORY", "SUB-MEMORY", "SUB-PERSONAL", "TOP-PERSONAL"):
            assert prompt.count(marker) == 1, (marker, prompt)
    assert not wt.exists()  # clean: removed on exit
    from agent.subagents.worktree import create

    kept = create(sub, "m2").path
    files = load_memory(kept / "sub", proj, Path(fake_env["HOME"]), trusted=True)
    assert names(files, proj) == [
        ".agent/worktrees/m2/AGENT.md",
        ".agent/AGENT.md",
        ".agent/worktrees/m2/sub/AGENT.md",
        "sub/CLAUDE.md",
    ]
