"""File tools at the edges a review found: BOM-only files, a character cut by the 1 MB read,
BOM-less UTF-16 of non-Latin text, diff counts of `--`/`++` lines, form feeds, a CRLF region
in an LF file, stray bytes under write_file, read-only files, and malformed arguments."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.base.record import ToolContext
from agent.tools.shared import textio
from tests.tools.files.test_tools_files import edit, read, write


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path)


@pytest.mark.parametrize("data", [b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf", b""])
async def test_a_bom_alone_is_an_empty_file(ctx: ToolContext, tmp_path: Path, data: bytes) -> None:
    (tmp_path / "e.txt").write_bytes(data)
    result = await read(ctx, "e.txt")
    assert not result.is_error
    assert result.output == "[the file is empty]"


async def test_a_bom_and_a_newline_is_one_empty_line(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_bytes(b"\xef\xbb\xbf\n")
    assert (await read(ctx, "n.txt")).output.startswith("     1\t")


async def test_a_character_cut_by_the_read_is_not_undecodable(
    ctx: ToolContext, tmp_path: Path
) -> None:
    (tmp_path / "wide.txt").write_bytes(b"a" + "中".encode() * 1_747_626 + b"\nsecond\n")
    result = await read(ctx, "wide.txt")
    assert "undecodable" not in result.output
    assert "\ufffd" not in result.output
    assert "line 1 goes on beyond the 1 MB read" in result.output
    assert "showed lines 1-1 of 2; use offset=2 to read on" in result.output
    rest = await read(ctx, "wide.txt", offset=2)
    assert rest.output == "     2\tsecond"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
async def test_bomless_utf16_of_cyrillic_and_chinese(
    ctx: ToolContext, tmp_path: Path, encoding: str
) -> None:
    text = "Привет, мир! Это тест.\r\nВторая строка\r\n你好，世界 第三行\r\n"
    (tmp_path / "u.txt").write_bytes(text.encode(encoding))
    result = await read(ctx, "u.txt")
    assert not result.is_error, result.output
    assert "     2\tВторая строка" in result.output
    assert f"encoding: {encoding} (no BOM; detected)" in result.output
    edited = await edit(ctx, "u.txt", "Вторая", "Вторая важная")
    assert not edited.is_error, edited.output
    assert (tmp_path / "u.txt").read_bytes() == text.replace("Вторая", "Вторая важная").encode(
        encoding
    )


def test_real_binaries_are_not_taken_for_utf16() -> None:
    import sys

    for path in (sys.executable, "/bin/sh", "/usr/bin/env"):
        if os.path.isfile(path):
            head = Path(path).read_bytes()[: textio.SNIFF_BYTES]
            assert textio.looks_binary(head) == (b"\0" in head)


async def test_diff_counts_lines_that_start_like_headers(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "q.sql").write_text("-- old comment\nselect 1;\n")
    result = await edit(ctx, "q.sql", "-- old comment\n", "-- new comment\n++i;\n")
    assert result.output.startswith("Edited q.sql: +2 -1\n")
    assert "\n--- old comment\n+-- new comment\n+++i;" in result.output


async def test_form_feeds_and_line_separators_do_not_shift_hunks(
    ctx: ToolContext, tmp_path: Path
) -> None:
    (tmp_path / "f.py").write_text("a = 1\n\x0c\nb = 2\nc = 3\nd = 4\ne\u2028f\n")
    result = await edit(ctx, "f.py", "d = 4", "d = 5")
    assert "@@ -2,5 +2,5 @@" in result.output
    assert "No newline" not in result.output


async def test_a_crlf_region_of_an_lf_file_matches_lf_old_string(
    ctx: ToolContext, tmp_path: Path
) -> None:
    (tmp_path / "m.txt").write_bytes(b"one\ntwo\nfour\r\nfive\r\nsix\n")
    result = await edit(ctx, "m.txt", "four\nfive", "FOUR\nFIVE\nmore")
    assert not result.is_error, result.output
    assert (tmp_path / "m.txt").read_bytes() == b"one\ntwo\nFOUR\r\nFIVE\r\nmore\r\nsix\n"
    (tmp_path / "n.txt").write_bytes(b"a\r\nb\nc\nx\na\nb\r\nc\n")  # two places, two ways
    ambiguous = await edit(ctx, "n.txt", "a\nb\nc", "d")
    assert ambiguous.is_error
    assert "matches 2 differently written places if line endings are ignored" in ambiguous.output


async def test_write_file_over_stray_bytes_is_honest(ctx: ToolContext, tmp_path: Path) -> None:
    # UTF-8 text with one stray Latin-1 byte (with no UTF-8 in it, a file is Latin-1 text)
    utf8 = "# ü\n".encode()
    (tmp_path / "s.py").write_bytes(utf8 + b"# caf\xe9\nx = 1\n")
    copied = await write(ctx, "s.py", "# ü\n# caf\ufffd\nx = 2\n")  # what read_file showed
    assert copied.is_error
    assert "would replace them with \ufffd" in copied.output
    assert (tmp_path / "s.py").read_bytes() == utf8 + b"# caf\xe9\nx = 1\n"
    rewritten = await write(ctx, "s.py", "# ü\n# cafe\nx = 2\n")
    assert "1 non-UTF-8 byte removed with the text" in rewritten.output
    assert "kept" not in rewritten.output
    (tmp_path / "t.py").write_bytes(utf8 + b"# caf\xe9\nx = 1\n")
    kept = await edit(ctx, "t.py", "x = 1", "x = 2")
    assert "(kept 1 non-UTF-8 byte as they were)" in kept.output
    assert (tmp_path / "t.py").read_bytes() == utf8 + b"# caf\xe9\nx = 2\n"


async def test_read_only_files_are_not_replaced(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "ro.txt"
    target.write_text("x\n")
    target.chmod(0o444)  # read-only for everyone: refused even when running as root
    for result in (await edit(ctx, "ro.txt", "x", "y"), await write(ctx, "ro.txt", "y\n")):
        assert result.is_error
        assert "ro.txt is read-only (mode 444)" in result.output
        assert "chmod u+w" in result.output
    assert target.read_text() == "x\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may add files to any directory")
async def test_a_writable_file_in_a_locked_directory_is_written_in_place(
    ctx: ToolContext, tmp_path: Path
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "w.txt").write_text("x\n")
    locked.chmod(0o555)
    try:
        result = await edit(ctx, "locked/w.txt", "x", "y")
        assert not result.is_error, result.output
        assert (locked / "w.txt").read_text() == "y\n"
        assert sorted(os.listdir(locked)) == ["w.txt"]
    finally:
        locked.chmod(0o755)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ({"offset": "--5"}, "'offset' must be an integer"),
        ({"limit": "²"}, "'limit' must be an integer"),
        ({"offset": "1e3"}, "'offset' must be an integer"),
    ],
)
async def test_malformed_numbers_are_named(
    ctx: ToolContext, tmp_path: Path, args: dict[str, object], says: str
) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    result = await read(ctx, "a.txt", **args)
    assert result.is_error
    assert says in result.output


async def test_huge_numbers_and_nulls(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\ny\n")
    assert (await read(ctx, "a.txt", limit=10**20)).output == "     1\tx\n     2\ty"
    assert "past the end" in (await read(ctx, "a.txt", offset=10**20)).output
    for result in (await write(ctx, "a\0b", "x"), await read(ctx, "a\0b")):
        assert result.is_error
        assert "the path contains a NUL character" in result.output
    replaced = await edit(ctx, "a.txt", "x", "z", replace_all=None)  # a null optional flag
    assert not replaced.is_error


def test_a_nul_in_a_path_reaches_the_tool_not_a_crash(tmp_path: Path) -> None:
    from agent.permissions.paths import candidates

    assert candidates("a\0b", tmp_path) == (str(tmp_path / "a\0b"),)
