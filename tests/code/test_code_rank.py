"""The ranked repository map: a file everything uses ranks above a leaf, the map fits its
token budget on real trees, and the message's names and files steer it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.base.tokens import estimate
from agent.code.cache import TagCache
from agent.code.index import tags_for
from agent.code.rank import file_ranks, ranked_defs
from agent.code.repomap import HEAD, repo_map
from agent.code.tags import FileTags
from tests.code.trees import PROJECT, py_files, third_party, write

HUB = '''class Engine:
    """Everything uses it."""

    def start(self, speed: int) -> None:
        self.speed = speed


def make_engine() -> Engine:
    return Engine()
'''


def _star(root: Path, users: int = 8) -> dict[str, FileTags]:
    files = {"core/engine.py": HUB, "misc/leaf.py": "def lonely():\n    return 1\n"}
    for i in range(users):
        files[f"app/user{i}.py"] = (
            "from core.engine import Engine, make_engine\n\n"
            f"def job{i}(e: Engine) -> None:\n    make_engine().start({i})\n"
        )
    write(root, files)
    return tags_for(root, sorted(files), TagCache(None)).files


def test_a_file_everything_uses_ranks_above_a_leaf(tmp_path: Path) -> None:
    files = _star(tmp_path)
    rank = file_ranks(files)
    assert rank["core/engine.py"] == max(rank.values())
    assert rank["core/engine.py"] > 3 * rank["misc/leaf.py"]
    best = ranked_defs(files)[0]
    assert best[1] == "core/engine.py"
    assert files["core/engine.py"].defs[best[2]].name in {"Engine", "make_engine"}


def test_the_map_fits_its_budget_and_starts_with_the_hub(tmp_path: Path) -> None:
    files = _star(tmp_path)
    text = repo_map(files, 60)
    assert text.startswith(HEAD) and estimate(text) <= 60
    assert text.splitlines()[1] == "core/engine.py:"
    assert "lonely" not in text  # a leaf nobody uses waits for a bigger budget
    assert "lonely" in repo_map(files, 2000)


def test_names_and_files_in_the_message_steer_the_map(tmp_path: Path) -> None:
    files = _star(tmp_path)
    plain = repo_map(files, 60)
    asked = repo_map(files, 60, focus_names={"lonely"})
    assert "lonely" not in plain and "def lonely()" in asked
    focused = file_ranks(files, focus_files={"misc/leaf.py"})
    assert focused["misc/leaf.py"] > file_ranks(files)["misc/leaf.py"]


@pytest.mark.parametrize("budget", [200, 1000, 4000])
@pytest.mark.parametrize("tree", ["project", "third-party"])
def test_real_trees_fit_every_budget(tree: str, budget: int) -> None:
    root = PROJECT if tree == "project" else third_party()
    files = tags_for(root, py_files(root), TagCache(None)).files
    text = repo_map(files, budget)
    assert 0.6 * budget < estimate(text) <= budget  # full, but never over
    paths = [line[:-1] for line in text.splitlines()[1:] if not line.startswith(" ")]
    assert len(paths) == len(set(paths)) and all(p in files for p in paths)


def test_the_third_party_map_leads_with_what_its_modules_share() -> None:
    root = third_party()
    files = tags_for(root, py_files(root), TagCache(None)).files
    rank = file_ranks(files)
    top = sorted(rank, key=rank.__getitem__, reverse=True)[:10]
    # rich: the console and text modules are imported by most of the others
    assert {"console.py", "text.py"} & set(top), top
    assert rank["console.py"] > rank["__main__.py"]


def test_no_files_or_no_budget_is_no_map(tmp_path: Path) -> None:
    files = _star(tmp_path)
    assert repo_map(files, 0) == "" and repo_map({}, 1000) == ""


def test_a_member_name_defined_everywhere_costs_a_look_per_candidate_not_per_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`.run` in thousands of classes: each file's member use is matched against the files it
    imports or names, found through an index, not against every file that defines `run` (that
    was quadratic: 21 s for the map of 7,000 such files). The result is what it was."""
    import agent.code.rank as rank
    from agent.code.tags import Def

    files: dict[str, FileTags] = {}
    for i in range(1500):
        defs = (Def("class", f"Thing{i}", 1, 3, 0, ""), Def("method", "run", 2, 3, 1, ""))
        other = (i * 7) % 1500
        files[f"pkg/mod{i}.py"] = FileTags(
            "python", 3, defs, {f"Thing{other}": (5,), "run": (6,)},
            members=frozenset({"run"}), modules=frozenset({"pkg", f"mod{other}"}),
        )  # fmt: skip
    calls = 0
    modules = rank._modules

    def counted(rel: str) -> set[str]:
        nonlocal calls
        calls += 1
        return modules(rel)

    monkeypatch.setattr(rank, "_modules", counted)
    ranked = ranked_defs(files, frozenset(), frozenset())
    assert calls <= 2 * len(files)  # once a file for the index; it was once per (use, home)
    top = {rel for _, rel, _ in ranked[:3]}
    assert top <= files.keys()
