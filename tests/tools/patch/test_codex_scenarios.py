"""Codex's own apply_patch scenarios (codex_scenarios/, see its NOTICE) run through our tool:
the input files in a temporary folder, the patch applied, the folder compared with the expected
one, folders and bytes. Where we differ on purpose the patch fails whole with our reason and
the folder stays as it was (docs/tools.md: apply_patch)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent.base.record import ToolContext
from agent.tools.patch.tool import APPLY_PATCH
from agent.tools.shared.stamps import FileStamps

SCENARIOS = Path(__file__).parent / "codex_scenarios"

# Scenario → the error we end with instead, and why we differ from Codex there.
DIFFERENT = {
    "010_move_overwrites_existing_destination": (
        "cannot move to renamed/dir/name.txt: it exists",
        "a move never replaces a file the patch does not show",
    ),
    "011_add_overwrites_existing_file": (
        "duplicate.txt exists: add creates new files",
        "'Add File' never replaces a file the patch does not show",
    ),
    "015_failure_after_partial_success_leaves_changes": (
        "missing.txt: no such file to update",
        "all or nothing: a patch that fails writes no file",
    ),
}


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every folder (None) and file (its bytes) under root, by relative path."""
    return {
        p.relative_to(root).as_posix(): None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


def names() -> list[str]:
    return sorted(p.name for p in SCENARIOS.iterdir() if p.is_dir())


def test_every_scenario_is_here() -> None:
    assert len(names()) == 23 and set(DIFFERENT) <= set(names())


@pytest.mark.parametrize("name", names())
async def test_codex_scenario(name: str, tmp_path: Path) -> None:
    scenario = SCENARIOS / name
    if (scenario / "input").is_dir():
        shutil.copytree(scenario / "input", tmp_path, dirs_exist_ok=True)
    before = snapshot(tmp_path)
    ctx = ToolContext(cwd=tmp_path, files=FileStamps())
    for rel, content in before.items():
        if content is not None:
            ctx.files.saw(tmp_path / rel)  # type: ignore[union-attr]
    patch = (scenario / "patch.txt").read_text(encoding="utf-8")
    r = await APPLY_PATCH.run({"patch": patch}, ctx)
    expected = snapshot(scenario / "expected")
    if name in DIFFERENT:
        reason, _why = DIFFERENT[name]
        assert r.is_error and reason in r.output, r.output
        assert snapshot(tmp_path) == before != expected
        return
    assert snapshot(tmp_path) == expected
    assert r.is_error == (expected == before), r.output  # a scenario that changes nothing fails
