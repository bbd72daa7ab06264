"""A skill's allowed-tools (issue 37, item 4): never outside the workspace, and confirmed the
first time the skill is used at its content; without a terminal an unconfirmed grant allows
nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import answering, refusing
from routed_fake import close_runs, make_run
from skill_files import write_skill


@pytest.fixture(autouse=True)
async def _closed() -> Any:
    yield
    await close_runs()


def _skill(repo: Path, tools: str) -> Path:
    return write_skill(
        repo / ".agent" / "skills", "tidy", "Tidies files.", "Tidy the files.\n",
        f"allowed-tools: {tools}\n",
    )  # fmt: skip


async def test_a_skill_grant_is_confirmed_once_per_content(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    folder = _skill(repo, "Bash(touch:*)")
    call = tool_calls([("bash", {"command": "touch tidy.txt"})])
    fake.script(tool_calls([("skill", {"name": "tidy"})]), call, text("done"))
    asked, asker = answering("y")
    run, _ = make_run(fake, repo, mode="default", asker=asker)
    await run.turn("tidy up")
    [first] = asked
    assert "the skill tidy allows this with its allowed-tools" in first.reason
    assert (repo / "tidy.txt").exists()
    fake.script(tool_calls([("skill", {"name": "tidy"})]), call, text("done"))
    await run.turn("again")
    assert len(asked) == 1  # confirmed: the grant holds unasked now
    (folder / "SKILL.md").write_text((folder / "SKILL.md").read_text() + "Also more.\n")
    fake.script(tool_calls([("skill", {"name": "tidy"})]), call, text("done"))
    await run.turn("and once more")
    assert len(asked) == 2 and "first time as it is now" in asked[1].reason  # changed: asked


async def test_a_skill_grant_never_reaches_outside_the_workspace(
    fake: FakeOpenAI, repo: Path, home: Path, tmp_path: Path
) -> None:
    from agent.permissions.grants import Grant, confirm

    folder = _skill(repo, "Bash(touch:*), Write")
    confirm(Grant.of_file((), "", folder / "SKILL.md"))  # seen and confirmed: still not outside
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    fake.script(
        tool_calls([("skill", {"name": "tidy"})]),
        tool_calls([("bash", {"command": f"touch {outside}/pwned"})]),
        tool_calls([("write_file", {"path": f"{outside}/pwned2", "content": "x"})]),
        tool_calls([("write_file", {"path": "inside.txt", "content": "x"})]),
        text("done"),
    )
    asked, asker = refusing()
    run, _ = make_run(fake, repo, mode="default", asker=asker)
    await run.turn("tidy")
    assert [r.tool for r in asked] == ["bash", "write_file"]
    assert "never reach outside the workspace" in asked[0].reason
    assert "outside the workspace" in asked[1].reason
    assert not (outside / "pwned").exists() and not (outside / "pwned2").exists()
    assert (repo / "inside.txt").exists()  # inside, the confirmed grant holds


async def test_without_a_terminal_an_unconfirmed_grant_allows_nothing(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    _skill(repo, "Bash(touch:*)")
    fake.script(
        tool_calls([("skill", {"name": "tidy"})]),
        tool_calls([("bash", {"command": "touch tidy.txt"})]),
        text("done"),
    )
    run, _ = make_run(fake, repo, mode="default")
    await run.turn("tidy")
    assert not (repo / "tidy.txt").exists()


async def test_a_skill_grant_cannot_reach_home_through_a_variable(
    fake: FakeOpenAI, repo: Path, home: Path
) -> None:
    """`touch $HOME/pwned` is allowed by `Bash(touch:*)` only if it stays inside: a word known
    only when the command runs cannot be shown to, so it is asked about."""
    from agent.permissions.grants import Grant, confirm

    folder = _skill(repo, "Bash(touch:*)")
    confirm(Grant.of_file((), "", folder / "SKILL.md"))
    fake.script(
        tool_calls([("skill", {"name": "tidy"})]),
        tool_calls([("bash", {"command": "touch $HOME/pwned ${HOME}/pwned2"})]),
        text("done"),
    )
    asked, asker = refusing()
    run, _ = make_run(fake, repo, mode="default", asker=asker)
    await run.turn("tidy")
    assert [r.tool for r in asked] == ["bash"]
    assert not (home / "pwned").exists() and not (home / "pwned2").exists()
