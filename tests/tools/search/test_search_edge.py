"""grep and glob at the edges a review found: file names with newlines or undecodable bytes,
binary files with a late NUL (ripgrep stops at the 64 KiB window holding it), a named binary
file, and Rust-only regex syntax in the pure-Python fallback. Both backends must agree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.base.record import Call, ToolContext
from agent.core.dispatch import Dispatcher
from agent.session.store import SessionFile, load
from agent.tools.search import grep as search
from tests.tools.trees import RG, ctx_for

pytestmark = pytest.mark.usefixtures("own_home")  # the machine's git excludes stay out

needs_rg = pytest.mark.skipif(RG is None, reason="no ripgrep binary installed")
MODES = ("files", "count", "content")


async def both(root: Path, args: dict[str, object]) -> str:
    """The rendered result, checked equal between ripgrep and the Python fallback."""
    out = {}
    for backend in ("rg", "python"):
        result = await search.GREP.run(args, ctx_for(root, backend))
        out[backend] = (result.is_error, result.output)
    assert out["rg"] == out["python"]
    return out["rg"][1]


@needs_rg
async def test_file_names_with_newlines(tmp_path: Path) -> None:
    (tmp_path / "new\nline.txt").write_text("foo\nbar foo\n")
    (tmp_path / "plain.txt").write_text("foo\n")
    for mode in MODES:
        text = await both(tmp_path, {"pattern": "foo", "output_mode": mode, "context": 1})
        assert "new\nline.txt" in text
    count = await both(tmp_path, {"pattern": "foo", "output_mode": "count"})
    assert "new\nline.txt:2" in count
    content = await both(tmp_path, {"pattern": "foo", "output_mode": "content"})
    assert "new\nline.txt:2:bar foo" in content


@needs_rg
@pytest.mark.parametrize(
    ("nul_at", "match_at", "listed"),
    [
        (200_000, 0, True),  # the match's window comes before the NUL's
        (65_600, 60_000, True),
        (131_000, 65_600, False),  # same window as the NUL: ripgrep never searches it
        (1_000, 0, False),
    ],
)
async def test_late_nul_like_ripgrep(
    tmp_path: Path, nul_at: int, match_at: int, listed: bool
) -> None:
    data = bytearray(b"x" * 9 + b"\n") * (nul_at // 10 + 100)
    data[match_at : match_at + 4] = b"foo\n"
    data[nul_at] = 0
    (tmp_path / "late.bin").write_bytes(bytes(data))
    (tmp_path / "text.txt").write_text("foo\n")
    files = await both(tmp_path, {"pattern": "foo"})
    assert ("late.bin" in files) == listed
    content = await both(tmp_path, {"pattern": "foo", "output_mode": "content"})
    assert ("late.bin" in content) == listed
    assert "WARNING" not in content
    count = await both(tmp_path, {"pattern": "foo", "output_mode": "count"})
    assert "late.bin" not in count  # counting reads to the NUL: a binary file is dropped


@needs_rg
async def test_a_named_binary_file_is_refused_the_same_way(tmp_path: Path) -> None:
    (tmp_path / "b.bin").write_bytes(b"foo here\n\0binary\n")
    for mode in MODES:
        text = await both(tmp_path, {"pattern": "foo", "path": "b.bin", "output_mode": mode})
        assert "b.bin is a binary file (it has NUL bytes)" in text
        assert "strings b.bin | grep -n PATTERN" in text
    (tmp_path / "w.txt").write_bytes("\ufefffoo wide\n".encode("utf-16-le"))
    wide = await both(tmp_path, {"pattern": "foo", "path": "w.txt", "output_mode": "content"})
    assert "w.txt:1:foo wide" in wide


@needs_rg
@pytest.mark.parametrize(
    "pattern",
    [
        "[[:upper:]]",
        "[[:digit:]]+",
        r"\<foo\>",
        "[^[:space:]]+x",
        "[[:punct:]]$",
        "[:alpha:]",
        r"[\[][:digit:]",  # an escaped `[` ends the first class; `[:digit:]` is a plain class
    ],
)
async def test_rust_only_syntax_in_the_fallback(tmp_path: Path, pattern: str) -> None:
    (tmp_path / "a.txt").write_text("Hello world\n[:u] x\nabc 12\nfoo bar\nxfoo\nend.\nqqx\n")
    for mode in MODES:
        text = await both(tmp_path, {"pattern": pattern, "output_mode": mode})
        assert not text.startswith("No matches"), (pattern, text)


@needs_rg
async def test_undecodable_names_reach_the_session_as_text(tmp_path: Path) -> None:
    name = os.fsdecode(b"bad\xff.txt")
    (tmp_path / name).write_text("foo\n")
    tools = {t.name: t for t in search.TOOLS}
    dispatcher = Dispatcher(tools)
    ctx = ToolContext(cwd=tmp_path)
    session = SessionFile(tmp_path, "s1")
    for call in (
        Call("1", "glob", {"pattern": "*.txt"}),
        Call("2", "grep", {"pattern": "foo", "output_mode": "content"}),
    ):
        result = await dispatcher.execute(call, ctx)
        assert "bad\ufffd.txt" in result.output
        result.output.encode("utf-8")  # no lone surrogate left
        session.append({"t": "tool", "id": call.id, "content": result.output})
    session.append({"t": "user", "content": "a model-sent \udc80 stays escaped"})
    session.close()
    loaded = load(session.path)
    assert loaded.repaired == []
    assert [r["content"] for r in loaded.records][-1] == "a model-sent \udc80 stays escaped"
    assert "bad\ufffd.txt" in loaded.records[0]["content"]


@needs_rg
async def test_ripgrep_warnings_are_not_rows(tmp_path: Path) -> None:
    data = bytearray(b"x" * 9 + b"\n") * 30_000
    data[0:4] = b"foo\n"
    data[200_000] = 0  # ripgrep prints the match, then "<path>: WARNING: stopped searching"
    (tmp_path / "nl\nlate.txt").write_bytes(bytes(data))
    (tmp_path / "f11.txt").write_text("foo\n")
    (tmp_path / "x: WARNING: y.txt").write_text("foo\n")
    (tmp_path / "a: binary file matches b.txt").write_text("foo\n")
    content = await both(tmp_path, {"pattern": "foo", "output_mode": "content"})
    assert content.splitlines()[0] == "Found 4 matching lines in 4 files"
    for name in ("f11.txt", "x: WARNING: y.txt", "a: binary file matches b.txt", "nl\nlate.txt"):
        assert f"{name}:1:foo" in content
