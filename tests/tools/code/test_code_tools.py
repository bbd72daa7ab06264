"""outline and symbols as the model calls them: real files, gitignore and .agentignore, clear
errors for what they cannot read."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent.base.record import ToolContext
from agent.code import index
from agent.tools.code.tools import OUTLINE, SYMBOLS
from tests.code.trees import write

PY = '''"""A module."""

LIMIT = 3


class Store:
    """Keeps things."""

    def put(self, key: str,
            value: int) -> None:
        self.items[key] = value

    def get(self, key: str) -> int:
        return self.items[key]


def helper() -> Store:
    return Store()
'''


@pytest.fixture(autouse=True)
def _fresh() -> None:
    index._MEMO.clear()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = write(
        tmp_path / "repo",
        {
            "src/store.py": PY,
            "src/use.py": "from src.store import Store, helper\n\n\ndef main():\n"
            "    s = helper()  # helper in a comment\n    s.put('a', 1)\n    return Store\n",
            "web/app.ts": "export class Shop { buy(n: number): void {} }\n"
            "export function open(): Shop { return new Shop(); }\n",
            "build/gen.py": "def generated():\n    helper()\n",
            "secret/hidden.py": "def hidden():\n    helper()\n",
            "README.md": "# helper\n",
            ".gitignore": "build/\n",
            ".agentignore": "secret/\n",
        },
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


async def test_outline_of_a_file_gives_ranges_and_signatures(repo: Path) -> None:
    r = await OUTLINE.run({"path": "src/store.py"}, ToolContext(cwd=repo))
    assert not r.is_error
    assert r.output.splitlines() == [
        "src/store.py (python, 18 lines)",
        "    3  LIMIT = 3",
        " 6-14  class Store",
        " 9-11    def put(self, key: str, value: int) -> None",
        "13-14    def get(self, key: str) -> int",
        "17-18  def helper() -> Store",
    ]
    assert r.display == "outline src/store.py · 5 definitions"


async def test_outline_of_a_folder_skips_ignored_files(repo: Path) -> None:
    r = await OUTLINE.run({}, ToolContext(cwd=repo))
    out = r.output
    assert out.startswith(".: 3 files with ")
    assert "src/store.py (python" in out and "web/app.ts (typescript" in out
    assert "  buy(n: number): void" in out.replace("class Shop", "")
    assert "build/gen.py" not in out and "secret/hidden.py" not in out
    assert "3 other files have no outline (" in out and ".md 1" in out


async def test_a_large_folder_is_capped_with_a_note(tmp_path: Path) -> None:
    files = {
        f"pkg/mod{i:03}.py": "".join(f"def f{j}(a, b):\n    return a\n" for j in range(12))
        for i in range(200)
    }
    write(tmp_path, files)
    r = await OUTLINE.run({"path": "pkg"}, ToolContext(cwd=tmp_path))
    assert len(r.output) < 12_500
    assert "more files (" in r.output and "left out, from pkg/mod" in r.output


async def test_outline_refuses_what_it_cannot_read(repo: Path) -> None:
    ctx = ToolContext(cwd=repo)
    md = await OUTLINE.run({"path": "README.md"}, ctx)
    assert md.is_error and "no outline for .md files (outlines cover" in md.output
    missing = await OUTLINE.run({"path": "src/nope.py"}, ctx)
    assert missing.is_error and "path not found" in missing.output


async def test_symbols_puts_definitions_first_then_uses(repo: Path) -> None:
    r = await SYMBOLS.run({"name": "helper"}, ToolContext(cwd=repo))
    lines = r.output.splitlines()
    assert lines[0] == "Definitions of helper (1):"
    assert lines[1] == "src/store.py:17-18  def helper() -> Store"
    assert lines[2].startswith("References to helper (2 lines in 1 file")
    assert lines[3:5] == [
        "src/use.py:1: from src.store import Store, helper",
        "src/use.py:5: s = helper()  # helper in a comment",
    ]
    assert "build/" not in r.output and "secret/" not in r.output and "README" not in r.output


async def test_symbols_of_a_method_by_its_class(repo: Path) -> None:
    r = await SYMBOLS.run({"name": "Store.put"}, ToolContext(cwd=repo))
    assert (
        r.output.splitlines()[1] == "src/store.py:9-11  def put(self, key: str, value: int) -> None"
    )
    assert "src/use.py:6: s.put('a', 1)" in r.output
    none = await SYMBOLS.run({"name": "Shop.put"}, ToolContext(cwd=repo))
    assert "Definitions of Shop.put (0):" in none.output


async def test_symbols_wants_an_identifier(repo: Path) -> None:
    r = await SYMBOLS.run({"name": "a b"}, ToolContext(cwd=repo))
    assert r.is_error and "must be an identifier" in r.output and "grep" in r.output


async def test_the_tools_are_read_only_folder_searches() -> None:
    for tool in (OUTLINE, SYMBOLS):
        assert tool.read_only and tool.kind == "read"
        assert tool.target is not None and tool.target.what == "folder"
