"""Tags of real code (our own source and a third-party tree) against Python's own parser:
every class and function `ast` sees is found with the same first and last line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from agent.code.languages import lang_of
from agent.code.tags import extract
from tests.code.trees import PROJECT, py_files, third_party


def _ast_defs(src: bytes) -> list[tuple[str, int, int]]:
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return [
        (n.name, n.lineno, n.end_lineno or n.lineno)
        for n in ast.walk(ast.parse(src))
        if isinstance(n, kinds)
    ]


@pytest.mark.parametrize("tree", ["project", "third-party"])
def test_outline_ranges_match_ast(tree: str) -> None:
    root = PROJECT if tree == "project" else third_party()
    checked = 0
    for rel in py_files(root):
        src = (root / rel).read_bytes()
        tags = extract(lang_of(rel), src)  # type: ignore[arg-type]
        assert tags is not None
        mine = {(d.name, d.line): d.end for d in tags.defs}
        for name, first, last in _ast_defs(src):
            assert mine.get((name, first)) == last, f"{rel}: {name} at {first}"
            checked += 1
        assert tags.lines == len(src.decode("utf-8", "replace").splitlines())
    assert checked > (500 if tree == "project" else 1000)


def test_methods_nest_in_their_class() -> None:
    src = (PROJECT / "code" / "cache.py").read_bytes()
    tags = extract(lang_of("cache.py"), src)  # type: ignore[arg-type]
    assert tags is not None
    by_name = {d.name: d for d in tags.defs}
    cls, load = by_name["TagCache"], by_name["load"]
    assert (cls.kind, cls.depth) == ("class", 0)
    assert (load.kind, load.depth) == ("method", 1)
    assert cls.line < load.line <= load.end <= cls.end
    assert load.sig == "def load(self, folder: str) -> dict[str, Row]"


def test_references_are_uses_not_text(tmp_path: Path) -> None:
    src = b"""from pkg.tools import helper

def run(items):
    # helper is mentioned in a comment
    note = "helper in a string"
    return helper(items) + obj.count
"""
    tags = extract(lang_of("a.py"), src)  # type: ignore[arg-type]
    assert tags is not None
    assert tags.refs["helper"] == (1, 6)  # the import and the call; not the comment or string
    assert "items" in tags.locals and "note" in tags.locals
    assert "count" in tags.members and "helper" not in tags.members
    assert {"pkg", "tools"} <= tags.modules and "pkg" not in tags.refs
    assert "run" not in tags.refs  # its own definition is not a use
