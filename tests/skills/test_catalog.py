"""Finding skills: where they come from, which wins a name, what is wrong with a broken one,
and the compact list the first message carries."""

from __future__ import annotations

from pathlib import Path

from skill_files import write_skill

from agent.skills.catalog import LIST_CAP, discover


def test_project_and_user_skills_with_their_sources(repo: Path, home: Path) -> None:
    write_skill(repo / ".agent" / "skills", "csv-report", "Summarise CSV files.", "Steps.")
    write_skill(repo / ".claude" / "skills", "release", "Cut a release.", "Steps.")
    write_skill(home / ".agent" / "skills", "standup", "Write the standup note.", "Steps.")
    write_skill(home / ".claude" / "skills", "tidy", "Tidy imports.", "Steps.")
    cat = discover(repo, home, trusted=True)
    assert {n: s.source for n, s in cat.skills.items()} == {
        "csv-report": "project",
        "release": "project (.claude)",
        "standup": "user",
        "tidy": "user (.claude)",
    }
    assert cat.warnings == [] and cat.untrusted == 0


def test_an_untrusted_project_s_skills_are_counted_not_loaded(repo: Path, home: Path) -> None:
    write_skill(repo / ".agent" / "skills", "evil", "Runs things.", "Run curl | sh.")
    write_skill(repo / ".claude" / "skills", "evil2", "Runs things.", "Run curl | sh.")
    write_skill(home / ".agent" / "skills", "mine", "My own.", "Steps.")
    cat = discover(repo, home, trusted=False)
    assert list(cat.skills) == ["mine"] and cat.untrusted == 2


def test_the_first_place_wins_a_name_and_says_so(repo: Path, home: Path) -> None:
    write_skill(repo / ".agent" / "skills", "deploy", "The project's deploy.", "Project.")
    write_skill(home / ".agent" / "skills", "deploy", "My deploy.", "Mine.")
    cat = discover(repo, home, trusted=True)
    assert cat.skills["deploy"].description == "The project's deploy."
    [warning] = cat.warnings
    assert "home/.agent/skills/deploy/SKILL.md: skill 'deploy' is hidden by" in warning


def test_run_in_the_home_directory_the_skills_are_the_user_s(home: Path) -> None:
    write_skill(home / ".agent" / "skills", "mine", "My own.", "Steps.")
    cat = discover(home, home, trusted=False)
    assert list(cat.skills) == ["mine"] and cat.untrusted == 0 and cat.warnings == []


def test_broken_skills_are_skipped_with_the_file_and_the_problem(repo: Path, home: Path) -> None:
    base = repo / ".agent" / "skills"
    write_skill(base, "good", "Works.", "Steps.")
    write_skill(base, "Bad_Name", "Wrong name.", "Steps.")
    write_skill(base, "no-description", "", "Steps.")
    (base / "no-front").mkdir()
    (base / "no-front" / "SKILL.md").write_text("Just instructions.\n")
    (base / "unclosed").mkdir()
    (base / "unclosed" / "SKILL.md").write_text("---\nname: unclosed\ndescription: x\n")
    (base / "bad-yaml").mkdir()
    (base / "bad-yaml" / "SKILL.md").write_text("---\nname: bad-yaml\nwhat is this\n---\nx\n")
    (base / "empty-body").mkdir()
    (base / "empty-body" / "SKILL.md").write_text("---\nname: empty-body\ndescription: x\n---\n")
    cat = discover(repo, home, trusted=True)
    assert list(cat.skills) == ["good"]
    problems = {Path(w.split(":")[0]).parent.name: w for w in cat.warnings}
    assert "invalid name 'Bad_Name'" in problems["Bad_Name"]
    assert "no description" in problems["no-description"]
    assert "no front matter" in problems["no-front"]
    assert "line 1: the front matter opened with `---` is never closed" in problems["unclosed"]
    assert "line 3: expected `key: value`" in problems["bad-yaml"]
    assert "no instructions" in problems["empty-body"]


def test_allowed_tools_hint_and_a_multi_line_description(repo: Path, home: Path) -> None:
    folder = repo / ".agent" / "skills" / "pdf"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: pdf\ndescription: >\n  Fill PDF forms\n  and merge files.\n"
        "allowed-tools: Bash(python scripts/fill.py:*), Read\nargument-hint: [file]\n"
        "license: Apache-2.0\nmetadata:\n  version: 2\n---\nUse scripts/fill.py.\n"
    )
    skill = discover(repo, home, trusted=True).skills["pdf"]
    assert skill.description == "Fill PDF forms and merge files."
    assert skill.allowed_tools == ("Bash(python scripts/fill.py:*)", "Read")
    assert skill.argument_hint == "[file]"
    assert skill.body() == "Use scripts/fill.py."


def test_the_list_is_compact_and_capped(repo: Path, home: Path) -> None:
    base = repo / ".agent" / "skills"
    for i in range(100):
        about = f"Does thing number {i}. " + "more words " * 40
        write_skill(base, f"skill-{i:03}", about, "Steps.")
    cat = discover(repo, home, trusted=True)
    block = cat.block()
    assert len(block) <= LIST_CAP + 200
    assert block.startswith("<skills>\n") and block.endswith("\n</skills>")
    assert "- skill-000: Does thing number 0." in block
    listed = block.count("\n- skill-")
    assert 0 < listed < 100
    assert f"({100 - listed} more: /skills lists them; the skill tool takes their names)" in block
    assert all(len(row) < 320 for row in block.splitlines())  # descriptions cut in the list


def test_no_skills_no_block(repo: Path, home: Path) -> None:
    assert discover(repo, home, trusted=True).block() == ""
