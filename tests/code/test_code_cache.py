"""The tags cache in the user's cache directory: reused across processes, checked against
mtime, size and the grammar's version, safe with concurrent sessions, and never fatal."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agent.code import index, languages
from agent.code.cache import FILE, TagCache
from agent.code.index import tags_for
from agent.config.statedir import cache_home
from tests.code.trees import write

SRC = {f"pkg/m{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(20)}


def _rels(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))


def test_the_cache_lives_in_the_user_cache_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("AGENT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_home() == tmp_path / "xdg" / "agent"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_home() == tmp_path / "home" / ".cache" / "agent"


def test_warm_reads_come_from_the_cache(tmp_path: Path) -> None:
    root = write(tmp_path / "proj", SRC)
    cache = TagCache(tmp_path / "c" / FILE)
    cold = tags_for(root, _rels(root), cache)
    assert cold.parsed == 20 and len(cold.files) == 20
    assert oct((tmp_path / "c" / FILE).stat().st_mode & 0o777) == "0o600"
    assert not list(root.rglob("*.sqlite*"))  # nothing written into the project
    index._MEMO.clear()  # as a new process would be
    warm = tags_for(root, _rels(root), cache)
    assert warm.parsed == 0 and warm.files == cold.files


def test_a_changed_file_or_grammar_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write(tmp_path / "proj", SRC)
    cache = TagCache(tmp_path / FILE)
    tags_for(root, _rels(root), cache)
    (root / "pkg/m3.py").write_text("def renamed():\n    pass\n")
    index._MEMO.clear()
    again = tags_for(root, _rels(root), cache)
    assert again.parsed == 1 and again.files["pkg/m3.py"].defs[0].name == "renamed"
    index._MEMO.clear()
    monkeypatch.setattr(languages, "version", lambda lang: "9.9.9")
    monkeypatch.setattr(index, "version", lambda lang: "9.9.9")
    assert tags_for(root, _rels(root), cache).parsed == 20


def test_a_corrupt_or_unwritable_cache_only_costs_speed(tmp_path: Path) -> None:
    root = write(tmp_path / "proj", SRC)
    bad = tmp_path / FILE
    bad.write_bytes(b"this is not a database" * 100)
    cache = TagCache(bad)
    assert len(tags_for(root, _rels(root), cache).files) == 20
    assert sqlite3.connect(bad).execute("SELECT count(*) FROM tags").fetchone() == (20,)
    blocked = tmp_path / "ro"
    blocked.write_text("a file where the cache folder should be")
    nowhere = TagCache(blocked / "sub" / FILE)
    index._MEMO.clear()
    assert len(tags_for(root, _rels(root), nowhere).files) == 20
    assert nowhere.problem.startswith("code cache")


_WRITER = """
import sys
from pathlib import Path
from agent.code.cache import TagCache
from agent.code.index import tags_for
root = Path(sys.argv[1])
rels = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
cache = TagCache(Path(sys.argv[2]))
index = tags_for(root, rels, cache)
assert len(index.files) == len(rels), (len(index.files), len(rels))
assert not cache.problem, cache.problem
"""


def test_concurrent_sessions_share_one_cache(tmp_path: Path) -> None:
    db = tmp_path / FILE
    roots = []
    for k in range(4):
        files = {
            f"m{i}.py": f"class C{k}_{i}:\n    def m(self):\n        return {i}\n"
            for i in range(150)
        }
        roots.append(write(tmp_path / f"p{k}", files))
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(r), str(db)], stderr=subprocess.PIPE)
        for r in roots
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    count = sqlite3.connect(db).execute("SELECT count(*) FROM tags").fetchone()[0]
    assert count == 600


def test_stop_and_needle(tmp_path: Path) -> None:
    root = write(tmp_path / "proj", SRC)
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 5

    part = tags_for(root, _rels(root), TagCache(None), stop=stop)
    assert len(part.files) == 5 and part.left == 15
    index._MEMO.clear()
    only = tags_for(root, _rels(root), TagCache(None), needle=b"f7(")
    assert list(only.files) == ["pkg/m7.py"]


def test_files_without_a_grammar_are_counted(tmp_path: Path) -> None:
    root = write(
        tmp_path / "proj", {"a.py": "x = 1\n", "README.md": "# hi\n", "b.md": "", "c.toml": ""}
    )
    found = tags_for(root, ["a.py", "README.md", "b.md", "c.toml"], TagCache(None))
    assert list(found.files) == ["a.py"]
    assert found.no_grammar == {".md": 2, ".toml": 1}
    big = root / "big.py"
    big.write_text("x = 1\n" * 200_000)  # over the size limit: generated, not read
    assert tags_for(root, ["big.py"], TagCache(None)).files == {}
    assert os.path.getsize(big) > 1_000_000
