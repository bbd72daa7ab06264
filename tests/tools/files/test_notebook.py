"""Jupyter notebooks: read_file shows cells with their outputs (images and widgets as one line),
paged by cell; notebook_edit replaces, inserts and deletes cells keeping the rest of the file
byte for byte, refuses a broken or unread notebook, shows the cell's diff in the permission
prompt, and /rewind puts the notebook back."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from docfiles import PNG_B64, code, markdown, notebook, stream, write_notebook
from fake_openai import FakeOpenAI, text, tool_calls
from routed_fake import close_runs, make_run

from agent.base.record import ToolContext, ToolResult
from agent.permissions.decide import decide
from agent.permissions.request import Answer, AskRequest
from agent.tools.builtin import builtin_tools
from agent.tools.files import read as files
from agent.tools.files.documents.nbedit import NOTEBOOK_EDIT, preview
from agent.tools.shared.stamps import FileStamps

WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(autouse=True)
async def _closed() -> AsyncIterator[None]:
    yield
    await close_runs()


def sample() -> dict[str, Any]:
    error = {
        "ename": "ZeroDivisionError",
        "evalue": "division by zero",
        "output_type": "error",
        "traceback": ["\x1b[0;31m---------\x1b[0m", "\x1b[0;31mZeroDivisionError\x1b[0m: oops"],
    }
    figure = {
        "data": {"image/png": PNG_B64, "text/plain": ["<Figure size 640x480>"]},
        "metadata": {},
        "output_type": "display_data",
    }
    widget = {
        "data": {WIDGET: {"model_id": "abc", "version_major": 2, "version_minor": 0}},
        "metadata": {},
        "output_type": "display_data",
    }
    return notebook(
        [
            markdown("# Analysis — café\nNotes here.", cell_id="intro"),
            code("import math\nprint(math.pi)", count=1, outputs=[stream("3.14\n")], cell_id="a1"),
            code("1 / 0", count=2, outputs=[error], cell_id="a2"),
            code("plot()", count=3, outputs=[figure, widget], cell_id="a3"),
            code("unrun()", cell_id="a4"),
        ]
    )


def ctx_for(root: Path) -> ToolContext:
    return ToolContext(cwd=root, files=FileStamps())


async def edit(ctx: ToolContext, **args: Any) -> ToolResult:
    await files.READ_FILE.run({"path": args["path"]}, ctx)  # an edit waits for a read
    return await NOTEBOOK_EDIT.run(args, ctx)


def cells(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text())["cells"]


async def test_read_shows_cells_outputs_and_placeholders(tmp_path: Path) -> None:
    write_notebook(tmp_path / "n.ipynb", sample())
    r = await files.READ_FILE.run({"path": "n.ipynb"}, ToolContext(cwd=tmp_path))
    assert not r.is_error and r.display == "read_file n.ipynb · 5 cells"
    out = r.output
    assert out.startswith("[Jupyter notebook: 5 cells, nbformat 4.5, kernel Python 3]")
    assert "[cell 0 · markdown · id intro]\n# Analysis — café\nNotes here." in out
    assert "[cell 1 · code · execution_count 1 · id a1]\nimport math\nprint(math.pi)" in out
    assert "[stdout]\n3.14" in out
    assert "[error: ZeroDivisionError: division by zero]\n---------\nZeroDivisionError: oops" in out
    assert "\x1b" not in out
    assert "[image/png, 70 B]\n<Figure size 640x480>" in out
    assert f"[{WIDGET}, 59 B]" in out
    assert "[cell 4 · code · not run · id a4]" in out
    assert out.index("cell 0") < out.index("cell 1") < out.index("cell 4")


async def test_offset_and_limit_count_cells(tmp_path: Path) -> None:
    write_notebook(tmp_path / "n.ipynb", sample())
    ctx = ToolContext(cwd=tmp_path)
    r = await files.READ_FILE.run({"path": "n.ipynb", "offset": 2, "limit": 2}, ctx)
    assert "[cell 1 ·" in r.output and "[cell 2 ·" in r.output
    assert "[cell 0 ·" not in r.output and "[cell 3 ·" not in r.output
    assert "[showed cells 1-2 of 5 (numbered from 0); use offset=4 to read on from cell 3]" in (
        r.output
    )
    assert r.display == "read_file n.ipynb · cells 1-2"
    r = await files.READ_FILE.run({"path": "n.ipynb", "offset": 6}, ctx)
    assert r.is_error and "past the last cell" in r.output


async def test_a_cell_too_long_to_show_whole_says_how_to_see_it_and_is_not_replaced(
    tmp_path: Path,
) -> None:
    big = "".join(f"value_{i} = {i}\n" for i in range(1_500))  # ~22 K characters
    medium = "".join(f"v{i} = {i}\n" for i in range(900))  # ~8 K: shown whole
    noisy = [stream(f"{i}: " + "y" * 1_900 + "\n") for i in range(20)]
    nb = notebook([code(big, cell_id="big"), code(medium, outputs=noisy, cell_id="mid")])
    path = write_notebook(tmp_path / "n.ipynb", nb)
    ctx = ctx_for(tmp_path)
    r = await files.READ_FILE.run({"path": "n.ipynb", "limit": 1}, ctx)
    assert "value_0 = 0\n" in r.output and "value_1499 = 1499" in r.output
    assert "value_700 = 700\n" not in r.output
    assert "characters of this cell's source cut" in r.output
    jq = """jq -r '.cells[0].source | if type == "array" then join("") else . end' n.ipynb"""
    assert f"see all of it with bash: {jq} > cell0.txt, then read_file cell0.txt" in r.output
    r = await files.READ_FILE.run({"path": "n.ipynb", "offset": 2}, ctx)
    assert medium.rstrip("\n") in r.output  # the source whole; the outputs cut instead
    assert "(outputs only: the source above is whole)" in r.output
    r = await NOTEBOOK_EDIT.run({"path": "n.ipynb", "cell_id": "big", "new_source": "x = 1"}, ctx)
    assert r.is_error and "seen only in part, so notebook_edit will not replace it" in r.output
    assert "cell0.txt" in r.output and "delete the cell and insert" in r.output
    assert cells(path)[0]["source"] == code(big)["source"]
    r = await NOTEBOOK_EDIT.run({"path": "n.ipynb", "cell_id": "mid", "new_source": "x = 1"}, ctx)
    assert not r.is_error, r.output
    r = await NOTEBOOK_EDIT.run({"path": "n.ipynb", "index": 0, "edit_mode": "delete"}, ctx)
    assert not r.is_error, r.output


async def test_a_notebook_that_is_not_json_reads_as_text_and_is_not_edited(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bad.ipynb"
    good = json.dumps(sample(), sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    broken = good.replace('"cells": [', '"cells": [,', 1)
    path.write_text(broken)
    ctx = ctx_for(tmp_path)
    r = await files.READ_FILE.run({"path": "bad.ipynb"}, ctx)
    assert not r.is_error and "     3\t  {" in r.output  # the JSON itself, numbered
    assert "[bad.ipynb is not valid JSON (line 2, column 12" in r.output
    assert "notebook_edit will not change it]" in r.output
    r = await NOTEBOOK_EDIT.run({"path": "bad.ipynb", "index": 0, "new_source": "x"}, ctx)
    assert r.is_error and "will not rewrite a broken notebook" in r.output
    assert path.read_text() == broken  # not "fixed"


async def test_replace_by_index_and_by_id_clears_outputs_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    path = write_notebook(tmp_path / "n.ipynb", sample())
    before = path.read_text()
    ctx = ctx_for(tmp_path)
    r = await edit(ctx, path="n.ipynb", index=1, new_source="import math\nprint(math.e)\n")
    assert not r.is_error, r.output
    assert r.output.startswith("Replaced cell 1 (code; outputs cleared) in n.ipynb: +1 -1")
    assert "-print(math.pi)\n+print(math.e)" in r.output
    after = json.loads(path.read_text())
    old = json.loads(before)
    assert after["cells"][1] == {
        **old["cells"][1],
        "execution_count": None,
        "outputs": [],
        "source": ["import math\n", "print(math.e)\n"],
    }
    old["cells"][1] = after["cells"][1]
    # everything else as it was, down to the bytes: indent, key order, é unescaped, final newline
    assert path.read_text() == json.dumps(old, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    r = await NOTEBOOK_EDIT.run({"path": "n.ipynb", "cell_id": "intro", "new_source": "# T"}, ctx)
    assert not r.is_error and cells(path)[0]["source"] == ["# T"]
    assert cells(path)[0]["id"] == "intro" and "outputs" not in cells(path)[0]


async def test_insert_delete_and_a_type_change(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "n.ipynb", sample())
    ctx = ctx_for(tmp_path)
    r = await edit(ctx, path="n.ipynb", edit_mode="insert", cell_id="a1", new_source="## Step",
                   cell_type="markdown")  # fmt: skip
    assert r.output.startswith("Inserted cell 2 (markdown)"), r.output
    new = cells(path)[2]
    assert new["cell_type"] == "markdown" and new["source"] == ["## Step"]
    assert len(new["id"]) == 8 and list(new) == ["cell_type", "id", "metadata", "source"]
    r = await NOTEBOOK_EDIT.run({"path": "n.ipynb", "edit_mode": "insert", "index": 0,
                                 "new_source": "setup()"}, ctx)  # fmt: skip
    assert cells(path)[0]["cell_type"] == "code" and cells(path)[0]["outputs"] == []
    r = await NOTEBOOK_EDIT.run(
        {"path": "n.ipynb", "edit_mode": "insert", "new_source": "end"}, ctx
    )
    assert cells(path)[-1]["source"] == ["end"] and len(cells(path)) == 8
    r = await NOTEBOOK_EDIT.run({"path": "n.ipynb", "edit_mode": "delete", "cell_id": "a2"}, ctx)
    assert r.output.startswith("Deleted cell 4 (code)") and "-1 / 0" in r.output
    assert "a2" not in [c.get("id") for c in cells(path)]
    r = await NOTEBOOK_EDIT.run(
        {"path": "n.ipynb", "cell_id": "a3", "new_source": "Just text", "cell_type": "markdown"},
        ctx,
    )
    changed = next(c for c in cells(path) if c.get("id") == "a3")
    assert changed == {"cell_type": "markdown", "id": "a3", "metadata": {}, "source": ["Just text"]}
    assert json.loads(path.read_text())["nbformat_minor"] == 5


async def test_bad_arguments_are_refused_with_nothing_written(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "n.ipynb", sample())
    before = path.read_bytes()
    ctx = ctx_for(tmp_path)
    cases = [
        ({"cell_id": "nope", "new_source": "x"}, "no cell has id 'nope'"),
        ({"index": 9, "new_source": "x"}, "index 9 is out of range"),
        ({"new_source": "x"}, "replace needs cell_id or index"),
        ({"index": 0, "new_source": "x", "edit_mode": "move"}, "edit_mode must be one of"),
        ({"index": 0, "new_source": "x", "cell_type": "sql"}, "cell_type must be one of"),
        ({"index": 0}, "missing required parameter 'new_source'"),
    ]
    for args, message in cases:
        r = await edit(ctx, path="n.ipynb", **args)
        assert r.is_error and message in r.output, (args, r.output)
    assert path.read_bytes() == before
    r = await NOTEBOOK_EDIT.run({"path": "none.ipynb", "index": 0, "new_source": "x"}, ctx)
    assert r.is_error and "notebook not found" in r.output


async def test_an_unread_or_changed_notebook_is_refused(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "n.ipynb", sample())
    ctx = ctx_for(tmp_path)
    args = {"path": "n.ipynb", "index": 4, "new_source": "run()"}
    r = await NOTEBOOK_EDIT.run(args, ctx)
    assert r.is_error and "has not been read in this session" in r.output
    await files.READ_FILE.run({"path": "n.ipynb", "offset": 5}, ctx)  # any range will do
    path.write_text(path.read_text().replace("unrun()", "other()"))  # Jupyter saved meanwhile
    r = await NOTEBOOK_EDIT.run(args, ctx)
    assert r.is_error and "changed on disk" in r.output and "other()" in path.read_text()


async def test_another_layout_is_kept_as_found(tmp_path: Path) -> None:
    """Two-space indent, \\u escapes, no final newline, keys in the writer's order."""
    nb = notebook([code("s = 'naïve'", cell_id="x"), markdown("text", cell_id="y")], minor=4)
    nb = {"nbformat": 4, "nbformat_minor": 4, "metadata": nb["metadata"], "cells": nb["cells"]}
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps(nb, indent=2))
    ctx = ctx_for(tmp_path)
    r = await edit(ctx, path="n.ipynb", cell_id="y", new_source="more text")
    assert not r.is_error and "layout" not in r.output  # nothing was rewritten another way
    nb["cells"][1]["source"] = ["more text"]
    assert path.read_text() == json.dumps(nb, indent=2)
    await NOTEBOOK_EDIT.run({"path": "n.ipynb", "edit_mode": "insert", "new_source": "z"}, ctx)
    assert "id" in cells(path)[-1]  # the notebook's cells have ids: so has the new one


def test_the_prompt_shows_the_cell_diff_and_permissions_treat_it_as_an_edit(
    tmp_path: Path,
) -> None:
    write_notebook(tmp_path / "n.ipynb", sample())
    args = {"path": "n.ipynb", "cell_id": "a1", "new_source": "print(2)"}
    shown = preview(args, tmp_path)
    assert shown is not None and not shown.failure
    assert "--- a/n.ipynb cell 1" in shown.diff
    assert "-import math\n-print(math.pi)\n+print(2)" in shown.diff
    bad = preview({**args, "cell_id": "zz"}, tmp_path)
    assert bad is not None and bad.failure is not None and "the edit will fail" in bad.note
    assert decide({}, "acceptEdits", NOTEBOOK_EDIT, args, tmp_path).kind == "allow"
    assert decide({}, "plan", NOTEBOOK_EDIT, args, tmp_path).kind == "deny"
    deny = {"neverAllow": ["NotebookEdit(*.ipynb)"]}  # Claude Code's name for it
    assert decide(deny, "bypassPermissions", NOTEBOOK_EDIT, args, tmp_path).kind == "deny"
    assert "notebook_edit" in [t.name for t in builtin_tools()]


async def test_end_to_end_edit_asks_with_the_diff_and_rewind_restores(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    from agent.session.rewind import listing, rewind_files

    path = write_notebook(tmp_path / "n.ipynb", sample())
    before = path.read_bytes()
    asked: list[AskRequest] = []

    async def asker(req: AskRequest) -> Answer:
        asked.append(req)
        return Answer("y", "")

    change = {"path": "n.ipynb", "index": 1, "new_source": "print('edited')"}
    fake.script(
        tool_calls([("read_file", {"path": "n.ipynb"})]),
        tool_calls([("notebook_edit", change)]),
        tool_calls([("read_file", {"path": "n.ipynb", "offset": 2, "limit": 1})]),
        text("edited"),
    )
    run, _ = make_run(fake, tmp_path, mode="default", asker=asker)
    await run.turn("change the second cell")
    assert [r.tool for r in asked] == ["notebook_edit"]
    assert "+print('edited')" in asked[0].diff and "-print(math.pi)" in asked[0].diff
    reread = [m for m in fake.requests[-1]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "[cell 1 · code · not run · id a1]\nprint('edited')" in reread
    assert "[stdout]" not in reread
    assert cells(path)[1]["source"] == ["print('edited')"]
    checkpoint = listing(run.store, tmp_path)[0]
    rewind_files(run.store, checkpoint)
    assert path.read_bytes() == before
