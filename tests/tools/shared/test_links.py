"""A repository's symbolic link out of the workspace (`docs -> ~`, `x -> /etc`) lists nothing:
glob, grep, outline, a read of the folder, @ completion and an @folder mention never show the
names or the contents behind it, with either search backend and in a real session that allows
everything; a link into the workspace, or into a folder the user added, still works."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from routed_fake import close_runs, make_run

from agent.base.record import ToolContext
from agent.context.mentions import attach
from agent.tools.code import tools as code
from agent.tools.files import read as files
from agent.tools.search import grep as search
from agent.tools.shared.links import linked_out
from agent.ui.completion import project_paths
from tests.tools.trees import RG

BACKENDS = ["", "python"] if RG is not None else ["python"]
MARK = "MARKER_7f3a"  # in every file of the fake home, before what must not leak
LEAK = "Q9-only-in-home"
HOME_NAMES = ("id_rsa", "notes.txt", "config", "credentials", "tools.py")


@pytest.fixture
def proj(tmp_path: Path, home: Path) -> Path:
    """A project whose `docs` and `x` lead to the (fake) home, `srclink` and `alink.py` into
    the project itself."""
    for rel in ("id_rsa", "notes.txt", ".ssh/config", ".aws/credentials"):
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(f"{MARK} {LEAK} {rel}\n")
    (home / "tools.py").write_text(f"def helper_in_home():\n    return '{MARK} {LEAK}'\n")
    p = tmp_path / "proj"
    (p / "src").mkdir(parents=True)
    (p / "src" / "a.py").write_text("def inside():\n    return 'in the project'\n")
    os.symlink(home, p / "docs")  # absolute
    os.symlink(os.path.relpath(home, p), p / "x")  # relative, as a repository ships it
    os.symlink("src", p / "srclink")
    os.symlink("src/a.py", p / "alink.py")
    return p


def leaks(output: str) -> list[str]:
    return [w for w in (LEAK, *HOME_NAMES) if w in output]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_nothing_behind_a_link_out_is_listed(proj: Path, backend: str) -> None:
    ctx = ToolContext(cwd=proj, search_backend=backend)
    calls = [
        (search.GLOB, {"pattern": "**/*"}),
        (search.GLOB, {"pattern": "docs/**/*"}),
        (search.GLOB, {"pattern": "x/*"}),
        (search.GLOB, {"pattern": "**/*", "path": "docs"}),
        (search.GREP, {"pattern": MARK}),
        (search.GREP, {"pattern": MARK, "output_mode": "content", "glob": "docs/**"}),
        (search.GREP, {"pattern": MARK, "path": "x"}),
        (search.GREP, {"pattern": MARK, "path": "docs/.ssh"}),
        (files.READ_FILE, {"path": "docs"}),
        (files.READ_FILE, {"path": "x/.aws"}),
        (code.OUTLINE, {"path": "docs"}),
        (code.SYMBOLS, {"name": "helper_in_home", "path": "x"}),
        (code.SYMBOLS, {"name": "helper_in_home"}),
    ]
    for tool, args in calls:
        result = await tool.run(args, ctx)
        assert leaks(result.output) == [], (tool.name, args, result.output)
    refused = await search.GLOB.run({"pattern": "docs/**/*"}, ctx)
    assert refused.is_error
    assert f"docs leads through a symbolic link to {proj.parent / 'home'}" in refused.output
    listing = await files.READ_FILE.run({"path": "."}, ctx)  # the link's own name only
    assert "docs/" in listing.output and leaks(listing.output) == []


async def test_completion_and_a_folder_mention_stay_inside(proj: Path) -> None:
    paths = await project_paths(proj)
    assert "src/a.py" in paths and not [p for p in paths if p.startswith(("docs", "x/"))]
    sent = attach("what is in @docs and @x/.ssh ?", proj)
    assert leaks(sent) == [] and sent.count("outside the workspace") == 2
    parent = attach('@"docs/.."', proj)  # the kernel takes the link, then `..`
    assert "outside the workspace" in parent and "proj/" not in parent
    assert '<directory path="srclink">\na.py\n' in attach("@srclink", proj)  # inside: listed


@pytest.mark.parametrize("backend", BACKENDS)
async def test_links_inside_the_workspace_still_work(proj: Path, backend: str) -> None:
    ctx = ToolContext(cwd=proj, search_backend=backend)
    globbed = await search.GLOB.run({"pattern": "srclink/*.py"}, ctx)
    assert globbed.output.endswith("srclink/a.py")
    grepped = await search.GREP.run({"pattern": "in the project", "path": "srclink"}, ctx)
    assert grepped.output == "Found 1 file\na.py"
    one = await search.GREP.run({"pattern": "in the project", "path": "alink.py"}, ctx)
    assert one.output == "Found 1 file\nalink.py"
    read = await files.READ_FILE.run({"path": "alink.py"}, ctx)
    assert "in the project" in read.output


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_link_into_an_added_folder_is_listed(proj: Path, backend: str) -> None:
    home = str((proj.parent / "home").resolve())
    ctx = ToolContext(cwd=proj, search_backend=backend, added_dirs=(home,))
    globbed = await search.GLOB.run({"pattern": "docs/*"}, ctx)
    assert "docs/id_rsa" in globbed.output and "docs/notes.txt" in globbed.output
    grepped = await search.GREP.run({"pattern": MARK, "path": "x"}, ctx)
    assert "tools.py" in grepped.output
    assert "notes.txt" in (await files.READ_FILE.run({"path": "docs"}, ctx)).output


def test_the_rule_judges_where_a_folder_is_named(tmp_path: Path) -> None:
    ws, out = tmp_path / "ws", tmp_path / "out"
    (ws / "real").mkdir(parents=True)
    out.mkdir()
    os.symlink(out, ws / "away")
    os.symlink(ws / "real", ws / "near")
    assert linked_out(ws / "away", ws) == str(out)
    assert linked_out(ws / "away" / "deeper", ws) == str(out / "deeper")  # not there yet
    assert linked_out(ws / "near", ws) == ""
    assert linked_out(ws / "away", ws, (str(out),)) == ""
    assert linked_out(out, ws) == ""  # named outside: the permission gate asks about it
    assert linked_out(ws / "real" / ".." / "away", ws) == str(out)
    assert linked_out(f"{ws}/away/..", ws) == str(tmp_path)  # the link first, then `..`


async def test_a_session_that_allows_everything_lists_nothing_behind_the_link(
    fake: FakeOpenAI, proj: Path
) -> None:
    """The scripted model asks through the whole loop (gate, hooks, audit) in
    bypassPermissions: what comes back to it holds nothing of the home; once the user adds the
    home to the workspace, the same calls list it."""
    calls = [
        ("glob", {"pattern": "docs/**/*"}),
        ("grep", {"pattern": MARK, "path": "x", "output_mode": "content"}),
        ("read_file", {"path": "docs"}),
    ]
    try:
        fake.script(tool_calls(calls), text("done"), tool_calls(calls), text("done"))
        run, _ = make_run(fake, proj)
        await run.turn("look around")
        results = [m for m in fake.requests[1]["messages"] if m["role"] == "tool"]
        assert len(results) == 3 and all(leaks(str(m["content"])) == [] for m in results)
        home = str(proj.parent / "home")
        added, _ = make_run(fake, proj, settings={"permissions": {"additionalDirectories": [home]}})
        await added.turn("look around")
        shown = " ".join(str(m["content"]) for m in fake.requests[3]["messages"][-3:])
        assert "docs/id_rsa" in shown and f"{LEAK} notes.txt" in shown
    finally:
        await close_runs()


def test_a_file_mention_does_not_follow_a_link_out_or_to_a_secret(proj: Path, home: Path) -> None:
    """A repository's `README.md -> ~/.aws/credentials`: `summarize @README.md` attaches
    nothing of it; nor does `notes.md -> .env` inside the project."""
    (proj / "README.md").symlink_to(home / ".aws" / "credentials")
    (proj / ".env").write_text("TOKEN=sk-live-inside\n")
    (proj / "notes.md").symlink_to(".env")
    sent = attach("summarize @README.md and @notes.md", proj)
    assert LEAK not in sent and "sk-live-inside" not in sent  # its place is named, not shown
    assert sent.count("a symbolic link leads to") == 2
    assert "in the project" in attach("@alink.py", proj)  # a link to a plain file inside: fine
