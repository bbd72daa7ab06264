"""glob and grep against the real `rg` binary on a generated tree, and the pure-Python fallback
against the same tree: same files, same lines."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from agent.base.record import ToolContext
from agent.tools.search import grep as search
from agent.tools.search import pygrep
from agent.tools.shared import secret_hits, walk
from tests.tools.trees import RG, build_tree, ctx_for, needs_rg

pytestmark = pytest.mark.usefixtures("own_home")  # the machine's git excludes stay out

RG_FLAGS = ["--no-config", "--hidden", "--color=never"]


def rg_json(root: Path, pattern: str, *extra: str) -> dict[str, list[tuple[int, bool, str]]]:
    """Ground truth straight from the binary: path -> [(line, is_match, text)]."""
    args = [RG, *RG_FLAGS, "--json", *extra, "--glob", "!.git", "-e", pattern, "./"]
    if not walk.in_repository(root):
        args[1:1] = ["--no-require-git", "--no-ignore-parent"]
    out = subprocess.run(args, cwd=root, capture_output=True, check=False).stdout
    found: dict[str, list[tuple[int, bool, str]]] = {}
    for raw in out.splitlines():
        event = json.loads(raw)
        if event["type"] not in ("match", "context"):
            continue
        data = event["data"]
        path = data["path"]["text"].removeprefix("./")
        lines = data["lines"]
        raw_text = (
            lines["text"]
            if "text" in lines
            else base64.b64decode(lines["bytes"]).decode("utf-8", "replace")
        )
        text = raw_text.rstrip("\n").rstrip("\r")
        found.setdefault(path, []).append((data["line_number"], event["type"] == "match", text))
    return found


def rg_files(root: Path) -> set[str]:
    args = [RG, *RG_FLAGS, "--files", "--glob", "!.git", "./"]
    if not walk.in_repository(root):
        args[1:1] = ["--no-require-git", "--no-ignore-parent"]
    out = subprocess.run(args, cwd=root, capture_output=True, check=False, text=True).stdout
    return {line.removeprefix("./") for line in out.splitlines()}


@pytest.fixture(params=[True, False], ids=["repo", "no-repo"])
def tree(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return build_tree(tmp_path / "tree", repo=request.param)


CASES = [
    ("foo", False, "", 0),
    ("TODO|fixme", False, "", 0),
    (r"\bbar\b", False, "*.py", 0),
    ("^alpha", True, "", 2),
    ("a.p", False, "!*.js", 1),
    ("Привет", False, "", 0),
    ("gamma$", False, "d2/**", 0),
    ("naïve", True, "*.{py,txt}", 3),
]


@needs_rg
@pytest.mark.parametrize(("pattern", "icase", "glob", "context"), CASES)
async def test_grep_backends_match_rg(
    tree: Path, pattern: str, icase: bool, glob: str, context: int
) -> None:
    extra = (["-i"] if icase else []) + (["--glob", glob] if glob else [])
    truth = rg_json(tree, pattern, *extra, *(["-C", str(context)] if context else []))
    assert truth, "the case should find something"
    rendered = {}
    for backend in ("rg", "python"):
        ctx = ctx_for(tree, backend)
        for mode in ("files", "count", "content"):
            query = pygrep.compile_query(pattern, icase, mode, context)
            hits, cut = await search.grep_hits(ctx, tree, query, glob)
            assert not cut
            assert [h.path for h in hits] == sorted(truth), (backend, mode)
            if mode == "count":
                counts = {p: sum(m for _, m, _ in rows) for p, rows in truth.items()}
                assert {h.path: h.count for h in hits} == counts, backend
            if mode == "content":
                assert {h.path: h.lines for h in hits} == truth, backend
            args = {"pattern": pattern, "-i": icase, "glob": glob, "output_mode": mode}
            result = await search.GREP.run({**args, "context": context}, ctx)
            assert not result.is_error
            rendered[backend, mode] = result.output
    for mode in ("files", "count", "content"):
        assert rendered["rg", mode] == rendered["python", mode]


@needs_rg
async def test_file_set_matches_rg_files(tree: Path) -> None:
    truth = rg_files(tree)
    assert "keep.log" in truth
    assert "d1/README.md" in truth
    outer = [p for p in truth if not p.startswith("d3/inner/")]  # a nested repo has its own rules
    assert not any(p.endswith(".log") and p != "keep.log" for p in outer)
    assert not any(p.startswith(("build/", "tmp1/", ".git/")) or "/cache/" in p for p in truth)
    assert "link.py" not in truth
    assert not any(p.startswith("linkdir") for p in truth)
    assert {"d4/tmp2/x.txt", "d4/sub/c.cfg"} <= truth and "d4/b.cfg" not in truth
    assert not any(p.startswith("d3/") and p.endswith(".py") for p in truth)
    for backend in ("rg", "python"):
        assert set(await search.list_files(ctx_for(tree, backend), tree)) == truth


@needs_rg
async def test_grep_skips_binary_and_reads_utf16(tree: Path) -> None:
    for backend in ("rg", "python"):
        ctx = ctx_for(tree, backend)
        result = await search.GREP.run({"pattern": "SENTINEL", "output_mode": "content"}, ctx)
        assert result.output.splitlines() == [
            "Found 2 matching lines in 2 files",
            "bom.py:1:alpha foo SENTINEL",  # the BOM is not part of the line
            "utf16.txt:1:foo in utf16 SENTINEL",
        ]
        assert "bin.dat" not in result.output
        assert "img.png" not in result.output
        assert ".git/config" not in result.output


async def test_repository_rules_in_fallback(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "t", repo=True)
    files = set(walk.Walker(root, []).files())
    outer = {f for f in files if not f.startswith("d3/inner/")}
    assert "keep.log" in files  # re-included by !keep.log
    assert not any(f.endswith(".tmp") for f in outer)  # .git/info/exclude
    assert "d1/README.md" in files
    assert not any(f.endswith(".md") and f.startswith("d1/s") for f in files)
    # The nested repository's own .gitignore applies inside it, the outer one's does not.
    inner = files - outer
    assert any(f.endswith(".log") for f in inner)
    assert not any(f.endswith(".txt") for f in inner)
    # Searching a subdirectory still honours the repository root's .gitignore.
    sub = set(walk.Walker(root / "d2", []).files())
    assert sub
    assert not any(f.endswith(".log") or f.startswith("cache/") for f in sub)


@pytest.mark.parametrize("backend", ["rg", "python"])
async def test_grep_tool_output(
    tmp_path: Path, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if backend == "rg" and RG is None:
        pytest.skip("no rg")
    if backend == "python":
        monkeypatch.setattr(walk, "find_rg", lambda: None)  # the lookup itself, not the flag
    (tmp_path / "a.py").write_text("x = 1\ndef foo():\n    return 'foo'\n")
    (tmp_path / "b.txt").write_text("nothing\n")
    ctx = ToolContext(cwd=tmp_path)
    result = await search.GREP.run({"pattern": "foo"}, ctx)
    assert result.output == "Found 1 file\na.py"
    assert result.display == 'grep "foo" · 1 file'
    result = await search.GREP.run({"pattern": "foo", "output_mode": "content", "context": 1}, ctx)
    assert result.output.splitlines()[1:] == [
        "a.py-1-x = 1",
        "a.py:2:def foo():",
        "a.py:3:    return 'foo'",
    ]
    alias = await search.GREP.run({"pattern": "foo", "output_mode": "content", "-C": 1}, ctx)
    assert alias.output == result.output
    result = await search.GREP.run({"pattern": "FOO", "-i": True, "output_mode": "count"}, ctx)
    assert result.output.splitlines()[1:] == ["a.py:2"]
    result = await search.GREP.run({"pattern": "foo", "path": "a.py", "output_mode": "count"}, ctx)
    assert result.output.endswith("a.py:2")
    result = await search.GREP.run({"pattern": "zzz"}, ctx)
    assert not result.is_error
    assert "No matches" in result.output
    result = await search.GREP.run({"pattern": "foo("}, ctx)
    assert result.is_error
    assert "can_retry: true" in result.output


@pytest.mark.parametrize("backend", ["rg", "python"])
async def test_directory_grep_hides_secret_files(tmp_path: Path, backend: str) -> None:
    if backend == "rg" and RG is None:
        pytest.skip("no rg")
    (tmp_path / ".env").write_text("API_KEY=sk-live-123\n")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "server.key").write_text("API_KEY private\n")
    (tmp_path / ".env.example").write_text("API_KEY=\n")
    (tmp_path / "app.py").write_text("key = os.environ['API_KEY']\n")
    ctx = ctx_for(tmp_path, backend)
    content = await search.GREP.run({"pattern": "API_KEY", "output_mode": "content"}, ctx)
    assert "sk-live" not in content.output and "private" not in content.output
    lines = content.output.splitlines()
    assert lines[1:3] == [".env.example:1:API_KEY=", "app.py:1:key = os.environ['API_KEY']"]
    assert "2 file(s) that may hold secrets are not shown: .env, conf/server.key" in lines[3]
    assert "read_file" in lines[3]
    only = await search.GREP.run({"pattern": "sk-live"}, ctx)
    assert only.output.startswith("No matches") and ".env" in only.output
    # Named on purpose, the file is searched: the permission layer has asked about that path.
    direct = await search.GREP.run({"pattern": "sk-live", "path": ".env"}, ctx)
    assert direct.output == "Found 1 file\n.env"
    asked = await search.GREP.run({"pattern": "sk-live", "glob": ".env*"}, ctx)
    assert asked.output == "Found 1 file\n.env"


@pytest.mark.parametrize("backend", ["rg", "python"])
async def test_grep_caps_with_more_note(tmp_path: Path, backend: str) -> None:
    if backend == "rg" and RG is None:
        pytest.skip("no rg")
    for i in range(260):
        (tmp_path / f"f{i:03}.txt").write_text(("hit " + "x" * 40 + "\n") * 3)
    ctx = ctx_for(tmp_path, backend)
    files = await search.GREP.run({"pattern": "hit"}, ctx)
    assert files.output.count("\n") == 200
    assert "60 more" in files.output
    content = await search.GREP.run({"pattern": "hit", "output_mode": "content"}, ctx)
    assert "showing the first 500; 280 more" in content.output
    assert len(content.output) <= 12_000
    assert "characters cut" in content.output
    limited = await search.GREP.run({"pattern": "hit", "head_limit": 5}, ctx)
    assert limited.output.count("\n") == 5
    assert "255 more" in limited.output


@pytest.mark.parametrize("backend", ["rg", "python"])
async def test_glob(tmp_path: Path, backend: str) -> None:
    if backend == "rg" and RG is None:
        pytest.skip("no rg")
    root = build_tree(tmp_path / "t", repo=True, files=60)
    (root / "src" / "pkg").mkdir(parents=True)
    for i, name in enumerate(["old.py", "mid.py", "new.py"]):
        path = root / "src" / "pkg" / name
        path.write_text("x\n")
        os.utime(path, (time.time() - 100 + i * 10,) * 2)
    ctx = ctx_for(root, backend)
    result = await search.GLOB.run({"pattern": "src/**/*.py"}, ctx)
    assert result.output.splitlines()[1:] == ["src/pkg/new.py", "src/pkg/mid.py", "src/pkg/old.py"]
    assert result.display == 'glob "src/**/*.py" · 3 files'
    result = await search.GLOB.run({"pattern": "*.py", "path": "src/pkg"}, ctx)
    assert result.output.splitlines()[1:] == ["new.py", "mid.py", "old.py"]
    everything = await search.GLOB.run({"pattern": "**/*.{log,tmp}"}, ctx)
    outer = [p for p in everything.output.splitlines()[1:] if not p.startswith("d3/inner/")]
    assert outer == ["keep.log"]  # the rest is ignored (the nested repository has own rules)
    top = await search.GLOB.run({"pattern": "new.py"}, ctx)  # not at top level: searched deeper
    assert "src/pkg/new.py" in top.output
    assert "no match for 'new.py' at the top" in top.output
    many = await search.GLOB.run({"pattern": "**/*"}, ctx)
    assert "more files not shown" not in many.output
    absolute = await search.GLOB.run({"pattern": f"{root}/src/**/new.py"}, ctx)
    assert absolute.output.splitlines()[1:] == [f"{root}/src/pkg/new.py"]
    none = await search.GLOB.run({"pattern": "**/*.nothing"}, ctx)
    assert not none.is_error
    assert "No files match" in none.output


async def test_glob_cap(tmp_path: Path) -> None:
    for i in range(250):
        (tmp_path / f"{i}.txt").write_text("")
    result = await search.GLOB.run({"pattern": "*.txt"}, ToolContext(cwd=tmp_path))
    assert result.output.count("\n") == 201
    assert "[50 more files not shown" in result.output


async def test_bad_arguments(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path)
    assert (await search.GREP.run({}, ctx)).is_error
    assert (await search.GREP.run({"pattern": "x", "output_mode": "lines"}, ctx)).is_error
    missing = await search.GREP.run({"pattern": "x", "path": "nope"}, ctx)
    assert missing.is_error
    assert "not found" in missing.output
    assert (await search.GLOB.run({"pattern": "*", "path": "nope"}, ctx)).is_error


GITIGNORE_EDGES = """\
# comment
\\#hash.txt
trailing.txt   
a/**/deep.txt
**/logs/*.txt
/anchored.txt
onlydir/
[abc]x.txt
*.py[co]
!b.pyc
{one,two}.cfg
sub/**
!sub/kept/
!sub/kept/**
esc\\[1\\].txt
"""


@needs_rg
@pytest.mark.parametrize("repo", [True, False])
async def test_gitignore_edge_cases_match_rg(tmp_path: Path, repo: bool) -> None:
    root = tmp_path / "edges"
    names = [
        "#hash.txt", "trailing.txt", "a/deep.txt", "a/x/y/deep.txt", "b/deep.txt",
        "logs/1.txt", "q/logs/2.txt", "q/logs/3.md", "anchored.txt", "z/anchored.txt",
        "onlydir/f.txt", "z/onlydir", "ax.txt", "dx.txt", "a.pyc", "b.pyc", "c.pyo",
        "one.cfg", "three.cfg", "sub/a.txt", "sub/kept/b.txt", "esc[1].txt", "esc1.txt",
        "n/.gitignore", "n/local.txt", "n/deeper/local.txt", "n/other.txt",
    ]  # fmt: skip
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("edge\n")
    (root / ".gitignore").write_text(GITIGNORE_EDGES)
    (root / "n" / ".gitignore").write_text("/local.txt\n!anchored.txt\n")
    if repo:
        (root / ".git").mkdir()
    truth = rg_files(root)
    assert "b.pyc" in truth
    assert "three.cfg" in truth
    assert "n/deeper/local.txt" in truth
    assert "a/x/y/deep.txt" not in truth
    assert "z/onlydir" in truth
    assert "esc[1].txt" not in truth
    for backend in ("rg", "python"):
        assert set(await search.list_files(ctx_for(root, backend), root)) == truth, backend
    for sub in ("n", "a", "q"):  # a subdirectory as the search root
        expected = rg_files(root / sub)
        assert set(walk.Walker(root / sub, []).files()) == expected, sub


@needs_rg
@pytest.mark.parametrize("where", ["default", "gitconfig", "xdg"])
@pytest.mark.parametrize("repo", [True, False], ids=["repo", "no-repo"])
async def test_global_git_excludes_match_rg(
    tmp_path: Path, own_home: Path, monkeypatch: pytest.MonkeyPatch, where: str, repo: bool
) -> None:
    rules = "*.bak\n/rootonly.txt\n"
    if where == "default":
        (own_home / ".config" / "git").mkdir(parents=True)
        (own_home / ".config" / "git" / "ignore").write_text(rules)
    elif where == "gitconfig":
        (own_home / "my-excludes").write_text(rules)
        (own_home / ".gitconfig").write_text('[core]\n\texcludesFile = "~/my-excludes"\n')
    else:
        xdg = tmp_path / "xdg"
        (xdg / "git").mkdir(parents=True)
        (xdg / "git" / "ignore").write_text(rules)
        monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    root = tmp_path / "proj"
    for name in ("a.bak", "s/b.bak", "rootonly.txt", "s/rootonly.txt", "keep.txt"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n")
    if repo:
        (root / ".git").mkdir()
    truth = rg_files(root)
    assert truth == {"s/rootonly.txt", "keep.txt"}
    assert set(walk.Walker(root, []).files()) == truth


@needs_rg
async def test_rust_only_patterns_go_to_ripgrep(tmp_path: Path) -> None:
    (tmp_path / "greek.txt").write_text("alpha αβγ\n")
    (tmp_path / "latin.txt").write_text("alpha abc\n")
    ctx = ctx_for(tmp_path, "rg")
    greek = await search.GREP.run({"pattern": r"\p{Greek}+"}, ctx)
    assert greek.output == "Found 1 file\ngreek.txt"
    upper = await search.GREP.run({"pattern": "[[:upper:]]"}, ctx)
    assert upper.output.startswith("No matches")
    bad = await search.GREP.run({"pattern": "foo("}, ctx)
    assert bad.is_error and "regex parse error" in bad.output
    python = await search.GREP.run({"pattern": r"\p{Greek}"}, ctx_for(tmp_path, "python"))
    assert python.is_error and "invalid regular expression" in python.output


def test_hide_secrets_quick_check_agrees_with_the_names() -> None:
    from agent.permissions.paths import secret_name
    from agent.tools.shared.walk import FileHits

    names = ["_netrc", "keys/id_ed25519", "a/b/.envrc", "x.pem", "deep/x.p12", ".env.example",
             "src/app.py", "id.py", "_build/x.py", "docs/.github/ci.yml"]  # fmt: skip
    for name in names:
        hits = [FileHits("src/other.py"), FileHits(name)]
        kept, note = secret_hits.hide_secrets(hits)
        hidden = secret_name(name.rsplit("/", 1)[-1])
        assert [h.path for h in kept] == (["src/other.py"] if hidden else ["src/other.py", name])
        assert bool(note) is hidden, name


@pytest.mark.parametrize("backend", ["rg", "python"])
async def test_directory_grep_hides_what_read_file_asks_about(tmp_path: Path, backend: str) -> None:
    """The agent's settings (an MCP server's token header saved by `agent mcp add -H`): grep
    shows no more of them than read_file would without asking."""
    if backend == "rg" and RG is None:
        pytest.skip("no rg")
    (tmp_path / ".agent").mkdir()
    token = '{"headers": {"Authorization": "Bearer ghp_secret123"}}\n'
    (tmp_path / ".agent" / "settings.local.json").write_text(token)
    (tmp_path / "app.py").write_text("token = 'ghp_placeholder'\n")
    ctx = ctx_for(tmp_path, backend)
    content = await search.GREP.run({"pattern": "ghp_", "output_mode": "content"}, ctx)
    assert "ghp_secret123" not in content.output and "ghp_placeholder" in content.output
    assert ".agent/settings.local.json" in content.output  # named, so it can be asked for
