"""Gitignore lines where ripgrep reads them its own way, or where handing them to pathspec took
care: brace alternation, `dir/**`, escapes, `**` forms, and paths matched one by one. The
Python walker must list what `rg --files` lists; each case also names what ripgrep hides."""

from __future__ import annotations

import subprocess
import warnings
from pathlib import Path

import pytest

from agent.tools.shared import walk
from agent.tools.shared.gitglob import IgnoreRules
from tests.tools.trees import RG, needs_rg

pytestmark = pytest.mark.usefixtures("own_home")  # the machine's git excludes stay out

NAMES = [
    "a/x", "a/keep", "a/d/z", "b/c/y", "c", "y/c", "ax", "bx", "y/ax", "q/r", "[u", "[x",
    "{a", "lit{a,b}", "foo/bar", "#h", "!n", "sp ", "n.py/a.txt", "b.py", "-",
]  # fmt: skip

CASES = {  # ignore lines -> what ripgrep hides of NAMES
    "{a,b}x": ["ax", "bx", "y/ax"],
    "{,a}x": ["ax", "y/ax"],  # an empty alternative is dropped
    "{{a,b}x,c}": ["ax", "bx", "y/ax", "c", "y/c", "b/c/y"],
    "{c,q/r}": ["c", "q/r"],  # a slash in one alternative anchors them all
    "{a,b\n[{]a": ["{a"],  # an unclosed brace skips the line; in a class it is a literal
    "a}b": [],  # so does an unopened one
    "lit\\{a,b\\}": ["lit{a,b}"],
    "a/**\n!a/keep": ["a/x", "a/d/z"],  # inside a, not a itself: a/keep comes back
    "a/**/": ["a/d/z"],  # the directories inside a
    "foo\\/bar": ["foo/bar"],
    "\\#h\n\\!n\nsp\\ ": ["#h", "!n", "sp "],
    "[u\n[[]x\n[*--]\n[a--b]": ["[u", "[x", "-"],  # an unclosed class is a literal; a bad
    # range skips the line; the rest as ripgrep reads them, where Python would warn
    "**c": ["b/c/y", "c", "y/c"],
    "*/": [n for n in NAMES if "/" in n],
    "/**\n!*.py\n!*/": [n for n in NAMES if not n.endswith(".py")],  # `/**`: everything
}


def rg_files(root: Path, *globs: str) -> set[str]:
    assert RG is not None
    args = [RG, "--no-config", "--hidden", "--no-require-git", "--no-ignore-parent", "--files"]
    for glob in [*globs, "!.git"]:
        args += ["--glob", glob]
    out = subprocess.run([*args, "./"], cwd=root, capture_output=True, text=True, check=False)
    return {line.removeprefix("./") for line in out.stdout.splitlines()}


def make(root: Path, **files: str) -> Path:
    for name in NAMES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n")
    for name, text in files.items():
        (root / name).write_text(text)
    return root


@needs_rg
@pytest.mark.parametrize("lines", list(CASES))
def test_the_fallback_hides_what_ripgrep_hides(tmp_path: Path, lines: str) -> None:
    root = make(tmp_path, **{".gitignore": lines + "\n"})
    truth = rg_files(root)
    assert sorted(set(NAMES) - truth) == sorted(CASES[lines])
    assert set(walk.Walker(root, []).files()) == truth


@needs_rg
def test_each_path_is_matched_by_itself(tmp_path: Path) -> None:
    """Not through its parents, as pathspec's GitIgnoreSpec matches: a directory that a
    higher-precedence file re-includes shows what lies in it, and `-g '*.py'` picks files
    named so, not the files inside a directory named so."""
    root = make(tmp_path, **{".gitignore": "a/\n", ".ignore": "!a/\n"})
    truth = rg_files(root)
    assert {"a/x", "a/d/z"} <= truth
    assert set(walk.Walker(root, []).files()) == truth
    assert rg_files(root, "*.py") == {"b.py"} == set(walk.Walker(root, ["*.py"]).files())
    assert rg_files(root, "*.{py,txt}") == set(walk.Walker(root, ["*.{py,txt}"]).files())


def test_odd_classes_compile_without_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rules = IgnoreRules(["[[]x", "[*--]", "x[&&]y", "[a--b]", "{a,b", "\\"])
    assert len(rules.rules) == 3  # a bad range, an unclosed brace, a dangling `\`: skipped
    assert rules.match("[x", False) and rules.match("d/-", False) and rules.match("x&y", False)


def test_names_at_any_depth_are_matched_by_name() -> None:
    """agentignore decides most files by their name alone: the rules that allow it say so."""
    named = [r.name is not None for r in IgnoreRules(["*.py", "a*b?", "{x,y}.md"]).rules]
    assert named == [True, True, True, True]
    others = IgnoreRules(["/top.py", "a/b.py", "[ab].py", "*", "dir/**"]).rules
    assert [r.name for r in others] == [None] * 5
