"""After an edit the model reads the problems it introduced, from real language servers (ty
for types, ruff for lint): not those that were there before, none once fixed, errors only or
nothing as the setting says; a server that died is started again."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls

from agent.app import Run
from agent.sandbox.linux import find_bwrap, probe

MakeRun = Callable[..., Run]  # the `session` fixture (tests/lsp/conftest.py)

APP = "pkg/app.py"


def edit(old: str, new: str, path: str = APP) -> Any:
    return tool_calls([("edit_file", {"path": path, "old_string": old, "new_string": new})])


def results(run: Run) -> list[str]:
    return [str(m["content"]) for m in run.agent.messages if m["role"] == "tool"]


async def test_an_edit_that_breaks_a_type_is_told_and_its_fix_is_not(
    fake: FakeOpenAI, session: MakeRun
) -> None:
    run = session()
    fake.script(
        tool_calls([("read_file", {"path": APP})]),
        edit("helper(2)", 'helper("2")'),
        edit('helper("2")', "helper(3)"),
        text("done"),
    )
    await run.turn("change the argument")
    _, broke, fixed = results(run)
    assert "Problems this edit introduced (1" in broke
    assert f"{APP}:5:21 error[invalid-argument-type]" in broke and "(ty)" in broke
    assert "Problems" not in fixed


async def test_problems_that_were_there_before_are_not_repeated(
    fake: FakeOpenAI, session: MakeRun, pyproj: Path
) -> None:
    app = pyproj / APP
    app.write_text(app.read_text() + '\n\nbad: int = "already wrong"\n')
    run = session()
    fake.script(
        tool_calls([("read_file", {"path": APP})]),
        edit("return helper(5)", "return helper(6)"),  # elsewhere in the same file
        edit("return helper(6)", 'return helper("6")'),  # a second, new one
        text("done"),
    )
    await run.turn("go")
    _, unrelated, new = results(run)
    assert "Problems" not in unrelated
    assert "Problems this edit introduced (1" in new and ":10:" in new
    problems = new.partition("Problems")[2]
    assert "invalid-assignment" not in problems and ":13:" not in problems


async def test_lint_warnings_follow_the_setting(
    fake: FakeOpenAI, session: MakeRun, pyproj: Path
) -> None:
    script = (
        tool_calls([("write_file", {"path": "pkg/extra.py", "content": "import os\n"})]),
        text("done"),
    )
    fake.script(*script)
    run = session()
    await run.turn("add a module")
    assert "F401" in results(run)[-1] and "(Ruff)" in results(run)[-1]  # ruff's warning
    (pyproj / "pkg" / "extra.py").unlink()
    for level in ("errors", "off"):
        fake.script(*script)
        run = session(editDiagnostics=level)
        await run.turn("add a module")
        assert "Problems" not in results(run)[-1]
        (pyproj / "pkg" / "extra.py").unlink()


async def test_a_server_that_died_is_started_again(fake: FakeOpenAI, session: MakeRun) -> None:
    run = session()
    fake.script(
        tool_calls([("read_file", {"path": APP})]),
        edit("helper(2)", "helper(4)"),
        text("one"),
    )
    await run.turn("go")
    servers = run.agent.ctx.lsp
    assert servers is not None
    ty = servers.running["ty"]  # type: ignore[attr-defined]
    ty.conn.proc.kill()
    await ty.conn.proc.wait()
    fake.script(edit("helper(4)", 'helper("4")'), text("two"))
    await run.turn("again")
    assert "invalid-argument-type" in results(run)[-1]
    assert servers.running["ty"] is not ty  # type: ignore[attr-defined]
    status = {r["name"]: r for r in servers.status()}
    assert status["ty"]["state"] == "running" and status["ruff"]["state"] == "running"


async def test_the_servers_run_in_the_sessions_sandbox(fake: FakeOpenAI, session: MakeRun) -> None:
    if why := probe(find_bwrap()):
        pytest.skip(f"the kernel refuses bubblewrap here: {why}")
    run = session(sandbox={"mode": "workspace-write"})
    assert run.sandbox().active
    fake.script(
        tool_calls([("read_file", {"path": APP})]), edit("helper(2)", 'helper("2")'), text("ok")
    )
    await run.turn("go")
    assert "invalid-argument-type" in results(run)[-1]
    ty = run.agent.ctx.lsp.running["ty"]  # type: ignore[union-attr]
    argv = cmdline(ty.conn.proc.pid)
    assert Path(argv[0].decode()).name == "bwrap" and b"--unshare-net" in argv


def cmdline(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")


async def test_a_notebook_cell_that_breaks_a_type_is_told_by_cell(
    fake: FakeOpenAI, session: MakeRun, pyproj: Path
) -> None:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Notes"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": ["%matplotlib inline\n", "def double(n: int) -> int:\n", "    return n * 2"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": ["!ls\n", "x: int = double(1)"]},
    ]  # fmt: skip
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (pyproj / "nb.ipynb").write_text(json.dumps(notebook))
    run = session()
    change = {"path": "nb.ipynb", "index": 2, "new_source": '!ls\nx: int = double("1")'}
    fake.script(
        tool_calls([("read_file", {"path": "nb.ipynb"})]),
        tool_calls([("notebook_edit", change)]),
        text("done"),
    )
    await run.turn("change the last cell")
    shown = results(run)[-1]
    assert "Problems this edit introduced (1" in shown, shown  # magics are no syntax errors
    assert "nb.ipynb:cell 3:2:" in shown and "invalid-argument-type" in shown
