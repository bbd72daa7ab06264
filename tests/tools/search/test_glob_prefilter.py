"""glob's shortcut: for `**/NAME` ripgrep's file-name prefilter is the whole match, so the
listing is not matched again. Both backends must still list exactly the same files, sorted the
same way, for every kind of name pattern (shortcut or not)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.tools.search import globbing
from agent.tools.search import grep as search
from tests.tools.trees import RG, build_tree, ctx_for

pytestmark = pytest.mark.usefixtures("own_home")  # the machine's git excludes stay out

PATTERNS = [
    "**/*.py",  # the shortcut
    "**/*.min.js",
    "**/f?.txt",
    "**/*",
    "**/.env*",  # dotfiles: DOTGLOB on the wcmatch side, --hidden on ripgrep's
    "**/*.[pt]y",  # a class: matched again by wcmatch
    "**/*.{py,md}",
    "d2/**/*.md",
    "*.py",
    "**/",  # directories only: no file matches
    "**/f{1..2}.txt",  # a wcmatch range, not a ripgrep alternation
    "**/{x}.txt",
    "**/x:y.txt",  # `:` would end a ripgrep type name
    "**/*[[:digit:]].txt",
]


@pytest.mark.skipif(RG is None, reason="no ripgrep binary installed")
@pytest.mark.parametrize("pattern", PATTERNS)
async def test_backends_agree(tmp_path: Path, pattern: str) -> None:
    root = build_tree(tmp_path / "t", repo=True, files=300)
    (root / ".hidden").mkdir()
    for name in (".env", ".env.local", "f1.txt", "fx.txt", "f10.txt", "a.py", "b.ty"):
        (root / ".hidden" / name).write_text("x\n")
    (root / "d1" / "f2.txt").write_text("x\n")
    for name in ("x:y.txt", "{x}.txt", "f7.txt"):
        (root / "d2" / name).write_text("x\n")
    for i, path in enumerate(sorted(p for p in root.rglob("*") if p.is_file())):
        os.utime(path, (1_000_000 + i % 7, 1_000_000 + i % 7))  # ties: path order decides
    args = {"pattern": pattern}
    fast = await search.GLOB.run(args, ctx_for(root, "rg"))
    slow = await search.GLOB.run(args, ctx_for(root, "python"))
    assert not fast.is_error, fast.output
    assert fast.output == slow.output
    assert ("No files match" in fast.output) == (pattern == "**/")


def test_shortcut_only_for_plain_names() -> None:
    decides = globbing._prefilter_decides
    assert decides("**/*.py", globbing._name_prefilter("**/*.py"))
    assert decides("**/f?.txt", "f?.txt")
    assert not decides("src/**/*.py", "*.py")  # a directory part: wcmatch must match it
    assert not decides("*.py", "*.py")  # top level only
    assert not decides("**/*.[pt]y", "*.[pt]y")
    assert not decides("**/!(x).py", "!(x).py")
    assert not decides("**/*.py", "")  # no prefilter was applied
    assert not decides("**/", "")
    for name in ("f{1..2}.txt", "{x}.txt", "x:y.txt", "*[[:digit:]].txt"):
        assert globbing._name_prefilter("**/" + name) == ""
