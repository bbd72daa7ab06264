"""edit_file with `edits`: several replacements in one call, in order, all or nothing, with an
error naming the edit that failed; and the file's bytes kept as they were around the change
(encoding, line endings, BOM, last newline, mode), for one edit and for several."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from routed_fake import close_runs, make_run

from agent.base.record import ToolContext, ToolResult
from agent.tools.files import edits

SRC = "alpha = 1\nbeta = 2\ngamma = 3\ndelta = 4\nepsilon = 5\n"


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path)


async def multi(ctx: ToolContext, path: str, *pairs: tuple[str, str], **kw: Any) -> ToolResult:
    items = [{"old_string": o, "new_string": n} for o, n in pairs]
    return await edits.EDIT_FILE.run({"path": path, "edits": items, **kw}, ctx)


async def test_edits_apply_in_order_in_one_write(ctx: ToolContext, tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text(SRC)
    pairs = [("alpha = 1", "alpha = 10"), ("gamma", "GAMMA"), ("delta = 4", "d = 4")]
    r = await multi(ctx, "m.py", *pairs)
    assert not r.is_error, r.output
    assert f.read_text() == "alpha = 10\nbeta = 2\nGAMMA = 3\nd = 4\nepsilon = 5\n"
    assert r.output.startswith("Edited m.py: +3 -3")


@pytest.mark.parametrize(
    ("third", "why"),
    [
        (("zeta = 6", "z"), "edit 3 of 5: old_string not found in m.py"),
        (("= ", "=="), "edit 3 of 5: old_string matches 5 times in m.py"),
        (("a = 10\nb", "x"), "edit 3 of 5 overlaps the text edit 1 put in"),
    ],
)
async def test_a_failing_edit_leaves_the_file_byte_identical(
    ctx: ToolContext, tmp_path: Path, third: tuple[str, str], why: str
) -> None:
    f = tmp_path / "m.py"
    f.write_bytes(SRC.encode())
    before = f.stat().st_mtime_ns
    pairs = [("alpha = 1", "alpha = 10"), ("beta", "b"), third, ("delta", "d"), ("epsilon", "e")]
    r = await multi(ctx, "m.py", *pairs)
    assert r.is_error and why in r.output and "nothing was changed" in r.output
    assert f.read_bytes() == SRC.encode() and f.stat().st_mtime_ns == before


async def test_the_argument_is_checked(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SRC)
    one = [{"old_string": "a", "new_string": "b"}]
    both = {"path": "m.py", "old_string": "a", "new_string": "b", "edits": one}
    assert "not both" in (await edits.EDIT_FILE.run(both, ctx)).output
    empty = await edits.EDIT_FILE.run({"path": "m.py", "edits": []}, ctx)
    assert "non-empty list" in empty.output
    bad = await edits.EDIT_FILE.run({"path": "m.py", "edits": [{"old_string": "a"}]}, ctx)
    assert "edit 1: missing required parameter 'new_string'" in bad.output
    same = await multi(ctx, "m.py", ("beta", "beta"))
    assert "edit 1 of 1: old_string and new_string are identical" in same.output
    missing = await multi(ctx, "nope.py", ("a", "b"))
    assert missing.is_error and "file not found" in missing.output


async def test_replace_all_inside_a_list(ctx: ToolContext, tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("x = x + x\ny = 1\n")
    items = [
        {"old_string": "x", "new_string": "value", "replace_all": True},
        {"old_string": "y = 1", "new_string": "y = value"},
    ]
    r = await edits.EDIT_FILE.run({"path": "m.py", "edits": items}, ctx)
    assert not r.is_error, r.output
    assert f.read_text() == "value = value + value\ny = value\n"


# --------------------------------------------------------------- bytes kept as they were

CASES: dict[str, tuple[bytes, bytes]] = {
    "crlf": (b"a = 1\r\nb = 2\r\nc = 3\r\n", b"a = 10\r\nb = 2\r\nc = 30\r\n"),
    "lf": (b"a = 1\nb = 2\nc = 3\n", b"a = 10\nb = 2\nc = 30\n"),
    "mixed": (b"a = 1\r\nb = 2\nc = 3\r\n", b"a = 10\r\nb = 2\nc = 30\r\n"),
    "no final newline": (b"a = 1\nb = 2\nc = 3", b"a = 10\nb = 2\nc = 30"),
    "utf-8 bom": (b"\xef\xbb\xbfa = 1\nb = 2\nc = 3\n", b"\xef\xbb\xbfa = 10\nb = 2\nc = 30\n"),
    "utf-16": (
        "a = 1\nb = 2\nc = 3\n".encode("utf-16"),
        "a = 10\nb = 2\nc = 30\n".encode("utf-16"),
    ),
    "latin-1": (
        "é = 1\nb = 2\nc = 3\n".encode("latin-1"),
        "é = 10\nb = 2\nc = 30\n".encode("latin-1"),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("how", ["one edit each", "edits list"])
async def test_bytes_around_the_change_are_kept(
    ctx: ToolContext, tmp_path: Path, case: str, how: str
) -> None:
    data, want = CASES[case]
    f = tmp_path / "f.txt"
    f.write_bytes(data)
    first = "é = 1" if case == "latin-1" else "a = 1"
    pairs = [(first, first + "0"), ("c = 3", "c = 30")]
    if how == "edits list":
        r = await multi(ctx, "f.txt", *pairs)
        assert not r.is_error, r.output
    else:
        for old, new in pairs:
            r = await edits.EDIT_FILE.run(
                {"path": "f.txt", "old_string": old, "new_string": new}, ctx
            )
            assert not r.is_error, r.output
    assert f.read_bytes() == want


async def test_permission_bits_are_kept(ctx: ToolContext, tmp_path: Path) -> None:
    f = tmp_path / "run.sh"
    f.write_text("#!/bin/sh\necho one\necho two\n")
    os.chmod(f, 0o754)
    r = await multi(ctx, "run.sh", ("one", "1"), ("two", "2"))
    assert not r.is_error
    assert stat.S_IMODE(f.stat().st_mode) == 0o754
    assert f.read_text() == "#!/bin/sh\necho 1\necho 2\n"


# --------------------------------------------------------------- through the agent


async def test_the_model_fixes_a_failed_multi_edit(fake: FakeOpenAI, tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_bytes(SRC.replace("\n", "\r\n").encode())
    bad = [{"old_string": "alpha", "new_string": "A"}, {"old_string": "zeta", "new_string": "Z"}]
    good = [
        {"old_string": "alpha", "new_string": "A"},
        {"old_string": "epsilon", "new_string": "E"},
    ]
    fake.script(
        tool_calls([("read_file", {"path": "m.py"})]),
        tool_calls([("edit_file", {"path": "m.py", "edits": bad})]),
        tool_calls([("edit_file", {"path": "m.py", "edits": good})]),
        text("done"),
    )
    run, _ = make_run(fake, tmp_path)
    try:
        await run.turn("rename two names")
    finally:
        await close_runs()
    results = [m for m in fake.requests[-1]["messages"] if m["role"] == "tool"]
    assert results[1]["content"].startswith("Error: edit 2 of 2: old_string not found")
    assert results[2]["content"].startswith("Edited m.py: +2 -2")
    assert (
        f.read_bytes()
        == SRC.replace("alpha", "A").replace("epsilon", "E").replace("\n", "\r\n").encode()
    )  # a CRLF file stays CRLF
