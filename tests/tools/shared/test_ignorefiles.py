"""Ignore files (.agentignore, .claudeignore, .aiderignore, .cursorignore, .codeiumignore): a
search filter for glob, grep, the file list behind @-completion, @dir and a read_file of a
directory, with gitignore's rules, nested, and the same answers from both search backends; an
explicit read of a hidden file still works."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.base.record import ToolContext
from agent.context.mentions import attach
from agent.tools.files import read as files
from agent.tools.search import grep as search
from agent.tools.shared import agentignore, walk
from agent.tools.shared.agentignore import IGNORE_FILES, AgentIgnore
from agent.ui.completion import project_paths
from tests.tools.trees import RG

pytestmark = pytest.mark.usefixtures("own_home")  # the machine's git excludes stay out

BACKENDS = ["rg", "python"] if RG is not None else ["python"]


def put(root: Path, *paths: str, text: str = "needle\n") -> None:
    for rel in paths:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def lines(output: str) -> list[str]:
    """The paths of a glob or grep result: neither its header nor its [notes]."""
    if not output.startswith("Found"):
        return []
    return sorted(line for line in output.splitlines()[1:] if line and not line.startswith("["))


async def seen(root: Path, backend: str, path: str = ".", cwd: Path | None = None) -> list[str]:
    """What glob `**/*` and grep list for a search of `path`, checked equal, and equal to
    list_files of the same directory."""
    ctx = ToolContext(cwd=cwd or root, search_backend=backend)
    globbed = await search.GLOB.run({"pattern": "**/*", "path": path}, ctx)
    grepped = await search.GREP.run({"pattern": "needle", "path": path}, ctx)
    listed = await search.list_files(ctx, (cwd or root) / path)
    found = lines(globbed.output)
    assert lines(grepped.output) == [
        f for f in found if "needle" in (ctx.cwd / path / f).read_text()
    ]
    assert sorted(listed) == found
    return [f for f in found if not f.rsplit("/", 1)[-1].startswith(".")]  # no ignore files


async def both(root: Path, path: str = ".", cwd: Path | None = None) -> list[str]:
    """`seen` from each backend, checked equal."""
    results = [await seen(root, backend, path, cwd) for backend in BACKENDS]
    assert all(r == results[0] for r in results), results
    return results[0]


@pytest.mark.parametrize("name", IGNORE_FILES)
async def test_each_ignore_file_hides_from_glob_and_grep(tmp_path: Path, name: str) -> None:
    put(tmp_path, "keep.py", "secret.key.txt", "data/big.csv", "data/sub/more.csv")
    (tmp_path / name).write_text("*.key.txt\ndata/\n")
    assert await both(tmp_path) == ["keep.py"]


async def test_nested_files_apply_below_their_folder(tmp_path: Path) -> None:
    put(tmp_path, "a.txt", "sub/b.txt", "sub/deep/c.txt", "sub/d.py", "other/e.txt")
    (tmp_path / "sub" / ".agentignore").write_text("*.txt\n")
    assert await both(tmp_path) == ["a.txt", "other/e.txt", "sub/d.py"]


async def test_anchored_and_slashed_patterns_in_a_nested_file(tmp_path: Path) -> None:
    put(tmp_path, "gen/x.py", "sub/gen/y.py", "sub/lib/gen/z.py", "sub/docs/api/a.md")
    put(tmp_path, "sub/api/b.md", "docs/api/c.md")
    # `/gen` is anchored to sub/; `docs/api` has a slash, so it is anchored to sub/ too
    (tmp_path / "sub" / ".claudeignore").write_text("/gen\ndocs/api\n")
    expected = ["docs/api/c.md", "gen/x.py", "sub/api/b.md", "sub/lib/gen/z.py"]
    assert await both(tmp_path) == expected


async def test_directory_patterns_only_match_directories(tmp_path: Path) -> None:
    put(tmp_path, "out/a.py", "src/out", "src/out2/b.py", "logs/x.log", "y.log")
    (tmp_path / ".agentignore").write_text("out/\nlogs/**\n")
    assert await both(tmp_path) == ["src/out", "src/out2/b.py", "y.log"]


async def test_negation_and_the_nearest_folder_decides(tmp_path: Path) -> None:
    put(tmp_path, "a.gen", "keep.gen", "sub/b.gen", "sub/c.gen", "build/keep.txt", "build/x.o")
    (tmp_path / ".agentignore").write_text("*.gen\n!keep.gen\nbuild/\n!build/keep.txt\n")
    (tmp_path / "sub" / ".agentignore").write_text("!b.gen\n")
    # a `!` cannot bring back a file inside an ignored directory (as in git)
    assert await both(tmp_path) == ["keep.gen", "sub/b.gen"]


async def test_several_files_in_one_folder_combine_in_order(tmp_path: Path) -> None:
    put(tmp_path, "README.md", "notes.md", "a/README.md", "a/x.md", "a/y.txt")
    (tmp_path / ".agentignore").write_text("*.md\n")
    (tmp_path / ".claudeignore").write_text("!README.md\n")  # read after: the last line wins
    (tmp_path / "a" / ".aiderignore").write_text("!*.md\n")
    (tmp_path / "a" / ".codeiumignore").write_text("*.md\n")  # read last: hides them again
    assert await both(tmp_path) == ["README.md", "a/y.txt"]
    (tmp_path / "a" / ".codeiumignore").unlink()
    assert await both(tmp_path) == ["README.md", "a/README.md", "a/x.md", "a/y.txt"]


async def test_a_negation_never_brings_back_a_gitignored_file(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    put(tmp_path, "app.log", "run.py", "dist/bundle.js")
    (tmp_path / ".gitignore").write_text("*.log\ndist/\n")
    (tmp_path / ".agentignore").write_text("!app.log\n!dist/\n!dist/bundle.js\n")
    assert await both(tmp_path) == ["run.py"]


async def test_a_search_below_the_root_honours_the_root_files(tmp_path: Path) -> None:
    put(tmp_path, "pkg/a.py", "pkg/gen/b.py", "pkg/c.snap", "pkg/sub/d.snap", "pkg/sub/e.py")
    (tmp_path / ".agentignore").write_text("*.snap\n/pkg/gen/\n")
    (tmp_path / "pkg" / ".cursorignore").write_text("/sub/e.py\n")
    assert await both(tmp_path, "pkg") == ["a.py"]
    assert await both(tmp_path, "pkg/sub") == []
    # a hidden directory named as the path is searched: only what lies below it is filtered
    assert await both(tmp_path, "pkg/gen") == ["b.py"]


async def test_a_search_outside_the_workspace(tmp_path: Path) -> None:
    work, other = tmp_path / "work", tmp_path / "other"
    put(work, "a.txt", "x.py")
    put(other, "a.txt", "x.py", "sub/a.txt", "sub/x.py", "sub/y.md")
    (work / ".agentignore").write_text("*.py\n")  # the workspace's rules stay in it
    (other / ".agentignore").write_text("*.txt\n")
    (other / "sub" / ".agentignore").write_text("*.md\n")
    assert await both(other, str(other), cwd=work) == ["sub/x.py", "x.py"]
    # searched from sub/, the files above it (other/.agentignore) are not read
    assert await both(other, str(other / "sub"), cwd=work) == ["a.txt", "x.py"]
    assert await both(work) == ["a.txt"]


async def test_glob_prefilters_and_top_level_fallback_still_filter(tmp_path: Path) -> None:
    put(tmp_path, "a.py", "gen/b.py", "src/c.py", "src/d_pb2.py", "docs/e.md")
    (tmp_path / ".agentignore").write_text("gen/\n*_pb2.py\n")
    for backend in BACKENDS:
        ctx = ToolContext(cwd=tmp_path, search_backend=backend)
        for pattern in ("**/*.py", "src/**/*.py", "**/*_pb2.py", "*.py"):
            out = (await search.GLOB.run({"pattern": pattern}, ctx)).output
            assert "gen/b.py" not in out and "d_pb2" not in out, (backend, pattern, out)
        top = (await search.GLOB.run({"pattern": "*.md"}, ctx)).output
        assert lines(top) == ["docs/e.md"]  # the `**/*.md` fallback, filtered too


async def test_grep_content_and_glob_argument(tmp_path: Path) -> None:
    put(tmp_path, "a.py", "b.min.js", "lib/c.min.js", "lib/d.js")
    (tmp_path / ".agentignore").write_text("*.min.js\n")
    outs = set()
    for backend in BACKENDS:
        ctx = ToolContext(cwd=tmp_path, search_backend=backend)
        args = {"pattern": "needle", "glob": "*.js", "output_mode": "content"}
        outs.add((await search.GREP.run(args, ctx)).output)
    assert outs == {"Found 1 matching line in 1 file\nlib/d.js:1:needle"}
    # a file named as the path is searched whatever the ignore files say
    ctx = ToolContext(cwd=tmp_path)
    named = await search.GREP.run({"pattern": "needle", "path": "b.min.js"}, ctx)
    assert lines(named.output) == ["b.min.js"]


def test_the_walker_does_not_enter_an_ignored_directory(tmp_path: Path) -> None:
    put(tmp_path, "a.py", "node/x/y/z.js", "node/w.js")
    (tmp_path / ".agentignore").write_text("node/\n")
    hide = agentignore.for_search(tmp_path, tmp_path)
    asked: list[tuple[str, bool]] = []

    def prune(rel: str, is_dir: bool) -> bool:
        asked.append((rel, is_dir))
        return hide.hidden(rel, is_dir)

    assert sorted(walk.Walker(tmp_path, [], prune).files()) == [".agentignore", "a.py"]
    assert ("node", True) in asked
    assert not any(rel.startswith("node/") for rel, _ in asked)


async def test_read_file_lists_a_directory(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    put(tmp_path, "src/b.py", "src/a.py", "src/Z.md", "src/pkg/m.py", "src/gen/g.py")
    put(tmp_path, "src/x.log", "src/y.log", "src/cache/c", "src/secret.env", "src/.hidden")
    (tmp_path / ".gitignore").write_text("*.log\ncache/\n")
    (tmp_path / ".agentignore").write_text("*.env\n")
    (tmp_path / "src" / ".cursorignore").write_text("gen/\n")
    ctx = ToolContext(cwd=tmp_path)
    result = await files.READ_FILE.run({"path": "src", "offset": 3, "limit": 1}, ctx)
    assert not result.is_error
    assert result.output.splitlines() == [
        "src/: 6 entries (one level; directories end in /)",
        ".cursorignore",
        ".hidden",
        "Z.md",
        "a.py",
        "b.py",
        "pkg/",
        "",
        "[2 entries hidden by .agentignore/.cursorignore; 3 by .gitignore]",
    ]
    assert result.display == "read_file src · 6 entries"
    top = await files.READ_FILE.run({"path": "."}, ctx)
    # .git is left out without a count
    assert top.output.splitlines()[1:] == [".agentignore", ".gitignore", "home/", "src/"]


async def test_read_file_of_a_large_or_hidden_directory(tmp_path: Path) -> None:
    put(tmp_path, *(f"many/f{i:03}.txt" for i in range(503)), "many/skip.tmp", text="")
    put(tmp_path, "gen/a.py", "gen/b.tmp", "empty/.agentignore", text="")
    (tmp_path / ".agentignore").write_text("*.tmp\ngen/\n")
    ctx = ToolContext(cwd=tmp_path)
    many = (await files.READ_FILE.run({"path": "many"}, ctx)).output.splitlines()
    assert many[0] == "many/: 503 entries (one level; directories end in /)"
    assert many[1:3] == ["f000.txt", "f001.txt"] and many[500] == "f499.txt"
    assert many[501:] == [
        "",
        "[3 more entries not shown; use glob with path='many' to find files in it]",
        "[1 entry hidden by .agentignore]",
    ]
    # an ignored directory named explicitly is listed; the rules still apply inside it
    gen = await files.READ_FILE.run({"path": "gen"}, ctx)
    assert gen.output.splitlines()[1:] == ["a.py", "", "[1 entry hidden by .agentignore]"]
    empty = await files.READ_FILE.run({"path": "empty"}, ctx)
    assert empty.output.splitlines() == [
        "empty/: 1 entry (one level; directories end in /)",
        ".agentignore",
    ]


async def test_an_explicit_read_of_an_ignored_file_works(tmp_path: Path) -> None:
    put(tmp_path, "private/notes.md", text="the plan\n")
    for name in IGNORE_FILES:
        (tmp_path / name).write_text("private/\nnotes.md\n")
    ctx = ToolContext(cwd=tmp_path)
    result = await files.READ_FILE.run({"path": "private/notes.md"}, ctx)
    assert result.output == "     1\tthe plan"
    assert "notes.md" not in (await search.GLOB.run({"pattern": "**/*"}, ctx)).output
    mention = attach("see @private/notes.md", tmp_path)
    assert '<file path="private/notes.md">\nthe plan\n</file>' in mention


def test_a_dir_mention_leaves_out_ignored_entries(tmp_path: Path) -> None:
    put(tmp_path, "src/a.py", "src/b_pb2.py", "src/gen/x.py", "src/lib/y.py")
    (tmp_path / ".agentignore").write_text("*_pb2.py\n")
    (tmp_path / "src" / ".aiderignore").write_text("gen/\n")
    sent = attach("look at @src", tmp_path)
    assert sent.endswith(
        '<directory path="src">\n.aiderignore\na.py\nlib/\n'
        "[2 entries hidden by .agentignore/.aiderignore]\n</directory>"
    )


async def test_completion_paths_leave_out_ignored_files(tmp_path: Path) -> None:
    put(tmp_path, "src/app.py", "src/gen/out.py", "fixtures/big.json", "README.md")
    (tmp_path / ".agentignore").write_text("fixtures/\n")
    (tmp_path / "src" / ".codeiumignore").write_text("gen\n")
    paths = await project_paths(tmp_path)
    no_dotfiles = [p for p in paths if not p.rsplit("/", 1)[-1].startswith(".")]
    assert no_dotfiles == ["src/", "README.md", "src/app.py"]
    assert ".agentignore" in paths and "src/.codeiumignore" in paths


def test_odd_ignore_files_do_not_break_the_search(tmp_path: Path) -> None:
    put(tmp_path, "a.py", "b.txt", "c.md", "d/e.py", "f/g.py", "h/i.py", "j/k.py")
    (tmp_path / ".agentignore").write_bytes(b"\xef\xbb\xbf*.txt\n\xff\xfe bad\n[unclosed\n")
    (tmp_path / "d" / ".agentignore").mkdir()  # a directory under the name
    os.mkfifo(tmp_path / "f" / ".claudeignore")  # a FIFO must not hang the search
    (tmp_path / "h" / ".cursorignore").symlink_to(tmp_path / "nowhere")  # broken link
    outside = tmp_path.parent / f"{tmp_path.name}-outside.ignore"
    outside.write_text("*.py\n")
    (tmp_path / "j" / ".agentignore").symlink_to(outside)  # leads out of the top: not read
    (tmp_path / ".aiderignore").symlink_to(tmp_path / "h" / "rules")  # stays inside: read
    (tmp_path / "h" / "rules").write_text("*.md\n")
    hide = agentignore.for_search(tmp_path, tmp_path)
    rels = ["a.py", "b.txt", "c.md", "d/e.py", "f/g.py", "h/i.py", "j/k.py"]
    assert hide.keep(rels) == ["a.py", "d/e.py", "f/g.py", "h/i.py", "j/k.py"]


def test_the_top_bounds_what_is_read(tmp_path: Path) -> None:
    put(tmp_path, "ws/a/b/x.log", "ws/a/b/y.py")
    (tmp_path / ".agentignore").write_text("*.py\n")  # above the top: never read
    (tmp_path / "ws" / ".agentignore").write_text("/a/b/*.log\n")
    ws = tmp_path / "ws"
    sub = AgentIgnore(ws, ws / "a")
    assert sub.keep(["b/x.log", "b/y.py"]) == ["b/y.py"]
    assert sub.hidden("b/x.log") and not sub.hidden("b", is_dir=True)
    assert sub.hidden_by("b/x.log") == ".agentignore" and sub.hidden_by("b/y.py") == ""
    # the same tree reached through a symbolic link to the workspace
    (tmp_path / "link").symlink_to(ws, target_is_directory=True)
    linked = agentignore.for_search(ws, tmp_path / "link" / "a")
    assert linked.keep(["b/x.log", "b/y.py"]) == ["b/y.py"]


def test_the_fast_filter_agrees_with_rule_by_rule_matching(tmp_path: Path) -> None:
    """`keep` decides most paths with two combined regexes; `hidden_by` walks every rule."""
    lines = ["*.md", "!keep.md", "build/", "/top.txt", "a/*.js", "[ab]x", "{c,d}.cfg", "x?z"]
    lines += ["**/deep/*.py", "n[!/]o", "q[!a]r", "sub/**", "!sub/ok", "*.lo[g]", "we ird.txt"]
    (tmp_path / ".agentignore").write_text("\n".join(lines) + "\n")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / ".cursorignore").write_text("!*.md\n*.py\n")
    names = ["keep.md", "r.md", "top.txt", "f.js", "ax", "cx", "c.cfg", "xyz", "n/o", "no"]
    names += ["noo", "ok", "t.log", "t.lo", "we ird.txt", "deep/p.py", "p.py", "build", "x.txt"]
    names += ["q/r", "qbr"]  # `[!a]` matches a `/` too, as in ripgrep
    dirs = ["", "a/", "a/deep/", "b/sub/", "sub/", "build/", "z/build/", "b/a/"]
    paths = [d + n for d in dirs for n in names]
    hide = AgentIgnore(tmp_path)
    kept = hide.keep(paths)
    assert kept == [p for p in paths if not hide.hidden_by(p)]
    assert kept == [p for p in paths if not hide.hidden(p)]
    assert 40 < len(kept) < len(paths) - 40  # both kinds are plentiful
