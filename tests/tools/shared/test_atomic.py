"""Writes land on the path that was judged (issue 37 item 5): the walk to a file's folder follows
no link, the temp file and the rename go through that folder's descriptor, and a write whose
path changed since it was decided (a folder swapped for a link to `~`, a link where the file
was, a real path the permission gate did not judge) is refused with nothing written. The last
tests swap the folder between the gate's verdict and the tool, as a background command could."""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from agent.base.events import Recorder
from agent.base.record import Call, ToolContext, ToolResult
from agent.config import safefile
from agent.core.dispatch import Dispatcher
from agent.permissions.gate import Gate
from agent.permissions.judged import judging
from agent.tools.files.documents.nbedit import NOTEBOOK_EDIT
from agent.tools.files.edits import EDIT_FILE, WRITE_FILE
from agent.tools.patch.tool import APPLY_PATCH
from agent.tools.shared import atomic

MARK = b"written by the model\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "ws" / "sub").mkdir(parents=True)
    (tmp_path / "home" / "target").mkdir(parents=True)
    return tmp_path / "ws"


def outside(ws: Path) -> Path:
    return ws.parent / "home" / "target"


def swap_for_link(folder: Path, to: Path) -> None:
    shutil.rmtree(folder)
    folder.symlink_to(to, target_is_directory=True)


# ------------------------------------------------------------------ the walk itself


def test_a_folder_swapped_for_a_link_is_refused(ws: Path) -> None:
    swap_for_link(ws / "sub", outside(ws))
    with pytest.raises(atomic.Swapped, match=r"lies under .*sub, which is a symbolic link"):
        atomic.write_beneath(ws, ws / "sub" / "f.txt", MARK, None)
    with pytest.raises(atomic.Swapped):
        atomic.read_beneath(ws, ws / "sub" / "f.txt")
    with pytest.raises(atomic.Swapped):
        atomic.remove_beneath(ws, ws / "sub" / "f.txt")
    assert list(outside(ws).iterdir()) == []


def test_the_file_itself_swapped_for_a_link_a_folder_or_a_fifo(ws: Path) -> None:
    secret = outside(ws) / "rc"
    secret.write_bytes(b"theirs\n")
    (ws / "link").symlink_to(secret)
    (ws / "dir").mkdir()
    os.mkfifo(ws / "fifo")  # never opened for writing: that would wait for a reader
    for name, what in (("link", "a symbolic link"), ("dir", "a directory"), ("fifo", "regular")):
        with pytest.raises(atomic.Swapped, match=what):
            atomic.write_beneath(ws, ws / name, MARK, None)
    with pytest.raises(atomic.Swapped):
        atomic.read_beneath(ws, ws / "link")
    assert secret.read_bytes() == b"theirs\n"
    atomic.remove_beneath(ws, ws / "link")  # removing a link removes the link, not its target
    assert not (ws / "link").is_symlink() and secret.exists()
    with pytest.raises(atomic.Swapped, match="a directory"):
        atomic.remove_beneath(ws, ws / "dir")
    assert sorted(p.name for p in ws.iterdir()) == ["dir", "fifo", "sub"]  # no temp file left


def test_a_file_on_the_way_and_missing_folders(ws: Path) -> None:
    (ws / "plain").write_text("x")
    with pytest.raises(NotADirectoryError, match="plain is not a directory"):
        atomic.write_beneath(ws, ws / "plain" / "f.txt", MARK, None)
    atomic.write_beneath(ws, ws / "new" / "deeper" / "f.txt", MARK, None)  # made, as mkdir -p
    assert (ws / "new" / "deeper" / "f.txt").read_bytes() == MARK
    (ws / "new" / "deeper" / "more").symlink_to(outside(ws), target_is_directory=True)
    with pytest.raises(atomic.Swapped):
        atomic.write_beneath(ws, ws / "new" / "deeper" / "more" / "x" / "f.txt", MARK, None)
    assert list(outside(ws).iterdir()) == []


def test_mode_hard_links_and_a_new_file(ws: Path) -> None:
    script = ws / "run.sh"
    script.write_text("old\n")
    script.chmod(0o750)
    atomic.write_beneath(ws, script, b"new\n", None)  # no mode given: the file keeps its own
    assert stat.S_IMODE(script.stat().st_mode) == 0o750 and script.read_text() == "new\n"
    atomic.write_beneath(ws, script, b"newer\n", 0o640)
    assert stat.S_IMODE(script.stat().st_mode) == 0o640
    os.link(script, ws / "other-name")
    atomic.write_beneath(ws, script, b"linked\n", None)  # in place: the other name sees it
    assert (ws / "other-name").read_text() == "linked\n" and script.stat().st_nlink == 2
    mask = os.umask(0o022)
    os.umask(mask)
    atomic.write_beneath(ws, ws / "fresh.txt", MARK, None)
    assert stat.S_IMODE((ws / "fresh.txt").stat().st_mode) == 0o666 & ~mask


@pytest.mark.skipif(os.geteuid() == 0, reason="root may add names to any folder")
def test_a_writable_file_in_a_folder_we_cannot_add_to(ws: Path) -> None:
    (ws / "sub" / "f.txt").write_text("old\n")
    (ws / "sub").chmod(0o555)
    try:
        atomic.write_beneath(ws, ws / "sub" / "f.txt", b"new\n", None)
        assert (ws / "sub" / "f.txt").read_text() == "new\n"
    finally:
        (ws / "sub").chmod(0o755)


def test_the_walk_starts_at_the_root_and_may_be_the_root(ws: Path) -> None:
    fd = safefile.open_beneath(ws, ws)
    try:
        assert os.stat(".", dir_fd=fd).st_ino == ws.stat().st_ino
    finally:
        os.close(fd)
    with pytest.raises(ValueError, match="subpath"):  # not below the root
        safefile.open_beneath(ws, ws.parent / "home")


def test_only_what_the_gate_judged_is_written(ws: Path) -> None:
    judged = (str(ws / "sub" / "f.txt"),)
    with judging(judged, (str(ws),)):
        atomic.atomic_write(ws / "sub" / "f.txt", MARK, None)
        assert atomic.read_back(ws / "sub" / "f.txt") == MARK
        with pytest.raises(atomic.Swapped, match="where a link on the way leads now"):
            atomic.atomic_write(outside(ws) / "f.txt", MARK, None)
    approved = str(outside(ws) / "f.txt")  # the user said yes to a file outside: walked from /
    with judging((approved,), (str(ws),)):
        assert atomic.start(Path(approved)) == Path("/")
        atomic.atomic_write(Path(approved), MARK, None)
    assert (outside(ws) / "f.txt").read_bytes() == MARK


# ------------------------------------------------- swapped between the verdict and the tool


async def _run_swapped(ws: Path, name: str, args: dict[str, object]) -> ToolResult:
    """Run one call through a real gate (acceptEdits: edits inside the workspace allowed),
    with `sub` swapped for a link into the fake home right after the gate's verdict."""
    tools = {t.name: t for t in (WRITE_FILE, EDIT_FILE, APPLY_PATCH, NOTEBOOK_EDIT)}
    gate = Gate(tools, {}, "acceptEdits", Recorder(), workspace=ws)

    async def swap(
        call: Call, ctx: ToolContext, nxt: Callable[..., Awaitable[ToolResult]]
    ) -> ToolResult:
        swap_for_link(ws / "sub", outside(ws))
        return await nxt(call, ctx)

    dispatcher = Dispatcher(tools, (gate, swap))
    return await dispatcher.run_one(Call("1", name, args), ToolContext(cwd=ws), Recorder())


NOTEBOOK = {"cells": [{"cell_type": "code", "execution_count": None, "id": "a1", "metadata": {},
                       "outputs": [], "source": ["x = 1\n"]}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
CASES = [
    ("write_file", {"path": "sub/f.txt", "content": MARK.decode()}),
    ("edit_file", {"path": "sub/f.txt", "old_string": "", "new_string": MARK.decode()}),
    ("edit_file", {"path": "sub/nb.ipynb", "old_string": "x = 1", "new_string": "x = 2"}),
    ("apply_patch", {"patch": "*** Begin Patch\n*** Add File: sub/f.txt\n+m\n*** End Patch"}),
    ("apply_patch", {"patch": "*** Begin Patch\n*** Delete File: sub/nb.ipynb\n*** End Patch"}),
    ("notebook_edit", {"path": "sub/nb.ipynb", "cell_id": "a1", "new_source": "x = 3"}),
]


@pytest.mark.parametrize(
    ("name", "args"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)]
)
async def test_a_folder_swapped_after_the_verdict_gets_nothing(
    ws: Path, name: str, args: dict[str, object]
) -> None:
    text = json.dumps(NOTEBOOK, indent=1) + "\n"
    for where in (ws / "sub", outside(ws)):  # the same notebook both sides: only the path differs
        (where / "nb.ipynb").write_text(text)
    result = await _run_swapped(ws, name, args)
    assert result.is_error and "not what was checked" in result.output, result.output
    assert sorted(p.name for p in outside(ws).iterdir()) == ["nb.ipynb"]
    assert (outside(ws) / "nb.ipynb").read_text() == text


async def test_links_inside_the_project_still_work_through_the_gate(ws: Path) -> None:
    """What the walk must not break: a linked file and a linked folder pointing inside the
    project are written at their real place (the gate judged both the link and the target)."""
    tools = {t.name: t for t in (WRITE_FILE, EDIT_FILE, APPLY_PATCH)}
    dispatcher = Dispatcher(tools, (Gate(tools, {}, "acceptEdits", Recorder(), workspace=ws),))
    (ws / "run.sh").write_text("old\n")
    (ws / "run.sh").chmod(0o750)
    (ws / "alias.sh").symlink_to("run.sh")
    (ws / "via").symlink_to("sub", target_is_directory=True)
    patch = "*** Begin Patch\n*** Add File: via/p.txt\n+p\n*** End Patch"
    calls = [
        Call("1", "write_file", {"path": "alias.sh", "content": "new\n"}),
        Call("2", "write_file", {"path": "via/made/deep.txt", "content": "deep\n"}),
        Call("3", "apply_patch", {"patch": patch}),
    ]
    for call in calls:
        result = await dispatcher.run_one(call, ToolContext(cwd=ws), Recorder())
        assert not result.is_error, result.output
    assert (ws / "alias.sh").is_symlink() and (ws / "run.sh").read_text() == "new\n"
    assert stat.S_IMODE((ws / "run.sh").stat().st_mode) == 0o750
    assert (ws / "sub" / "made" / "deep.txt").read_text() == "deep\n"
    assert (ws / "sub" / "p.txt").read_text() == "p\n"
