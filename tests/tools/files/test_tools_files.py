"""read_file, write_file and edit_file on real files: encodings, line endings, binary, huge,
symlinked, atomic and verified writes, literal edits and their error messages."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest

from agent.base.record import RESULT_CAP, ToolContext, ToolResult
from agent.tools.files import edits
from agent.tools.files import read as files


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path)


async def read(ctx: ToolContext, path: str, **kw: object) -> ToolResult:
    return await files.READ_FILE.run({"path": path, **kw}, ctx)


async def write(ctx: ToolContext, path: str, content: str) -> ToolResult:
    return await edits.WRITE_FILE.run({"path": path, "content": content}, ctx)


async def edit(ctx: ToolContext, path: str, old: str, new: str, **kw: object) -> ToolResult:
    args = {"path": path, "old_string": old, "new_string": new, **kw}
    return await edits.EDIT_FILE.run(args, ctx)


# ---------------------------------------------------------------- read_file


async def test_read_numbered_lines(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\n\nprint(os.sep)\n")
    result = await read(ctx, "a.py")
    assert result.output == "     1\timport os\n     2\t\n     3\tprint(os.sep)"
    assert result.display == "read_file a.py · 3 lines"
    assert not result.is_error


async def test_read_offset_limit_and_continuation(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 5001)))
    part = await read(ctx, "n.txt", offset=10, limit=3)
    assert part.output.splitlines()[:3] == ["    10\tline 10", "    11\tline 11", "    12\tline 12"]
    assert "showed lines 10-12 of 5000; use offset=13" in part.output
    assert part.display == "read_file n.txt · lines 10-12"
    default = await read(ctx, "n.txt")  # 2000 lines would pass the result cap: it stops early
    assert len(default.output) <= RESULT_CAP
    last = int(default.output.split("use offset=")[1].split()[0])
    assert f"{last - 1:>6}\tline {last - 1}" in default.output
    more = await read(ctx, "n.txt", offset=last, limit=1)
    assert more.output.startswith(f"{last:>6}\tline {last}")
    past = await read(ctx, "n.txt", offset=6000)
    assert past.is_error
    assert "past the end" in past.output
    assert "5000 lines" in past.output


async def test_read_cuts_long_lines(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("x" * 5000 + "\nshort\n")
    result = await read(ctx, "min.js")
    first, second = result.output.splitlines()[:2]
    assert first == "     1\t" + "x" * 2000 + "… [line cut: 5000 characters]"
    assert second == "     2\tshort"


@pytest.mark.parametrize(
    ("data", "expect", "note"),
    [
        ("héllo\r\nwörld\r\n".encode(), ["héllo", "wörld"], None),
        (b"\xef\xbb\xbfbom first\n", ["bom first"], "utf-8 with BOM"),
        ("ünï\ncode\n".encode("utf-16"), ["ünï", "code"], "utf-16-le with BOM"),
        (b"\xfe\xff" + "big end\n".encode("utf-16-be"), ["big end"], "utf-16-be with BOM"),
        ("no bom here\n".encode("utf-16-le"), ["no bom here"], "utf-16-le (no BOM; detected)"),
        ("Привет, мир\nЁлка\n".encode("cp1251"), ["Привет, мир", "Ёлка"], "cp1251"),
        ("你好，世界\n中文文本\n".encode("gb18030"), ["你好，世界", "中文文本"], "gb18030"),
    ],
)
async def test_read_encodings(
    ctx: ToolContext, tmp_path: Path, data: bytes, expect: list[str], note: str | None
) -> None:
    (tmp_path / "t.txt").write_bytes(data)
    result = await read(ctx, "t.txt")
    lines = [line.split("\t", 1)[1] for line in result.output.splitlines() if "\t" in line]
    assert lines == expect
    if note:
        assert f"[encoding: {note}" in result.output
    else:
        assert "encoding" not in result.output


async def test_read_reports_undecodable(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_bytes(b"\xef\xbb\xbfok \xff\xfe bad\n")  # BOM says UTF-8
    result = await read(ctx, "t.txt")
    assert "ok \ufffd\ufffd bad" in result.output
    assert "2 undecodable" in result.output


@pytest.mark.parametrize(
    ("name", "advice"),
    [
        ("photo.BMP", "images cannot be read"),  # PNG, JPEG, GIF, WebP are read as images
        ("photo.PNG", "is not a readable .PNG image"),  # ... when they are what they say
        ("doc.pdf", "not a readable PDF"),  # read as a PDF (agent.tools.files.documents): not one
        ("a.zip", "unzip -l"),
    ],
)
async def test_read_refuses_binary_by_extension(
    ctx: ToolContext, tmp_path: Path, name: str, advice: str
) -> None:
    (tmp_path / name).write_bytes(b"whatever")
    result = await read(ctx, name)
    assert result.is_error
    assert advice in result.output
    assert "can_retry: false" in result.output


async def test_read_refuses_binary_by_content(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "blob.dat").write_bytes(b"ELF\0\0\x01\x02" * 100)
    result = await read(ctx, "blob.dat")
    assert result.is_error
    assert "NUL bytes" in result.output
    assert "xxd" in result.output


async def test_read_directory_missing_and_special(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "config.yaml").write_text("a: 1\n")
    folder = await read(ctx, "src")  # a directory is listed, one level deep
    assert not folder.is_error
    assert folder.output == "src/: 1 entry (one level; directories end in /)\nconfig.yaml"
    missing = await read(ctx, "src/confg.yaml")
    assert missing.is_error
    assert "can_retry: true" in missing.output
    assert "did you mean: src/config.yaml" in missing.output
    no_dir = await read(ctx, "nowhere/x.py")
    assert no_dir.is_error
    assert "does not exist" in no_dir.output
    device = await read(ctx, "/dev/null")
    assert device.is_error
    assert "not a regular file" in device.output


async def test_read_empty_symlink_home_and_absolute(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "empty.txt").write_text("")
    assert (await read(ctx, "empty.txt")).output == "[the file is empty]"
    (tmp_path / "real.txt").write_text("target\n")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real.txt")
    assert (await read(ctx, "link.txt")).output == "     1\ttarget"
    monkeypatch.setenv("HOME", str(tmp_path))
    assert (await read(ctx, "~/real.txt")).output == "     1\ttarget"
    other = ToolContext(cwd=Path("/"))
    assert (await read(other, str(tmp_path / "real.txt"))).output == "     1\ttarget"


def bytes_read() -> int:
    """What this process has read so far, all threads (Linux: /proc/self/io)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


async def test_read_huge_file_is_fast_and_partial(ctx: ToolContext, tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    row = b"2024-01-01 12:00:00 INFO something happened in the system, all fine\n"
    big.write_bytes(row * (12 * (1 << 20) // len(row)))  # 12 MB: over the 10 MB cap
    await read(ctx, "big.log")  # once first: lazy imports read files too
    before = bytes_read()
    result = await read(ctx, "big.log")
    assert bytes_read() - before < 4 << 20  # fast because it reads a page, not the 12 MB
    assert result.output.startswith("     1\t2024-01-01")
    assert "read in part" in result.output
    started = time.perf_counter()
    deep = await read(ctx, "big.log", offset=150_000, limit=2)
    assert time.perf_counter() - started < 20  # a scan, however busy the machine
    assert deep.output.startswith("150000\t2024-01-01")
    (tmp_path / "ten.txt").write_bytes(row * (9 * (1 << 20) // len(row)))  # under the cap
    counted = await read(ctx, "ten.txt", limit=1)
    assert f"of {9 * (1 << 20) // len(row)}" in counted.output


# ---------------------------------------------------------------- write_file


async def test_write_creates_with_parents_and_diff(ctx: ToolContext, tmp_path: Path) -> None:
    result = await write(ctx, "pkg/sub/mod.py", "a = 1\nb = 2\n")
    assert (tmp_path / "pkg/sub/mod.py").read_text() == "a = 1\nb = 2\n"
    assert result.output.startswith("Created pkg/sub/mod.py (2 lines)")
    assert result.display is not None
    summary, *diff = result.display.splitlines()
    assert summary == "Created pkg/sub/mod.py (2 lines)"
    assert diff[:3] == ["--- a/pkg/sub/mod.py", "+++ b/pkg/sub/mod.py", "@@ -0,0 +1,2 @@"]
    again = await write(ctx, "pkg/sub/mod.py", "a = 1\nb = 3\n")
    assert again.output.splitlines()[0] == "Wrote pkg/sub/mod.py: +1 -1"
    assert "-b = 2\n+b = 3" in again.output
    same = await write(ctx, "pkg/sub/mod.py", "a = 1\nb = 3\n")
    assert "No changes" in same.output
    assert not same.is_error


@pytest.mark.parametrize(
    ("original", "content", "expected"),
    [
        (b"one\r\ntwo\r\n", "one\nTWO\nthree\n", b"one\r\nTWO\r\nthree\r\n"),
        (b"\xef\xbb\xbfkeep bom\n", "new text\n", b"\xef\xbb\xbfnew text\n"),
        ("старый\r\n".encode("cp1251"), "новый\n", "новый\r\n".encode("cp1251")),
        ("x\r\n".encode("utf-16"), "é\n", "é\r\n".encode("utf-16")),
        ("旧的\n".encode("gb18030"), "新的内容\n", "新的内容\n".encode("gb18030")),
    ],
)
async def test_write_keeps_encoding_bom_and_newlines(
    ctx: ToolContext, tmp_path: Path, original: bytes, content: str, expected: bytes
) -> None:
    (tmp_path / "f.txt").write_bytes(original)
    result = await write(ctx, "f.txt", content)
    assert not result.is_error, result.output
    assert (tmp_path / "f.txt").read_bytes() == expected


async def test_write_unencodable_is_an_error(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes("кириллица\n".encode("cp1251"))
    result = await write(ctx, "f.txt", "emoji 😀\n")
    assert result.is_error
    assert "cp1251 cannot store" in result.output
    assert (tmp_path / "f.txt").read_bytes() == "кириллица\n".encode("cp1251")


async def test_write_keeps_mode_symlink_and_leaves_no_temp(
    ctx: ToolContext, tmp_path: Path
) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\necho old\n")
    script.chmod(0o750)
    (tmp_path / "alias.sh").symlink_to(script)
    result = await write(ctx, "alias.sh", "#!/bin/sh\necho new\n")
    assert not result.is_error
    assert (tmp_path / "alias.sh").is_symlink()
    assert "echo new" in script.read_text()
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert sorted(os.listdir(tmp_path)) == ["alias.sh", "run.sh"]


async def test_write_verifies_by_reading_back(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = edits.atomic.atomic_write

    def corrupting(path: Path, data: bytes, mode: int | None) -> None:
        real(path, data[:-1], mode)  # a disk that loses the last byte

    monkeypatch.setattr(edits.atomic, "atomic_write", corrupting)
    result = await write(ctx, "v.txt", "content\n")
    assert result.is_error
    assert "verification failed" in result.output


async def test_write_refuses_directory_and_binary(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    assert (await write(ctx, "d", "x")).is_error
    (tmp_path / "b.bin").write_bytes(b"\0\1\2")
    result = await write(ctx, "b.bin", "text")
    assert result.is_error
    assert "binary" in result.output
    (tmp_path / "file").write_text("")
    nested = await write(ctx, "file/child.txt", "x")  # a parent that is a file
    assert nested.is_error


# ---------------------------------------------------------------- edit_file


async def test_edit_unique_with_diff(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("".join(f"line{i}\n" for i in range(1, 11)))
    result = await edit(ctx, "a.py", "line5\n", "five\nFIVE\n")
    assert result.output.splitlines()[0] == "Edited a.py: +2 -1"
    assert result.display is not None
    assert result.display.splitlines()[3] == "@@ -2,7 +2,8 @@"  # 3 lines of context
    assert "-line5\n+five\n+FIVE" in result.display
    assert (tmp_path / "a.py").read_text().count("\n") == 11


async def test_edit_match_counts_and_replace_all(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x = 1\ny = 2\nx = 1\nx = 1\n")
    result = await edit(ctx, "a.txt", "x = 1", "x = 9")
    assert result.is_error
    assert "matches 3 times" in result.output
    assert "lines 1, 3, 4" in result.output
    assert "replace_all" in result.output
    done = await edit(ctx, "a.txt", "x = 1", "x = 9", replace_all=True)
    assert not done.is_error
    assert (tmp_path / "a.txt").read_text() == "x = 9\ny = 2\nx = 9\nx = 9\n"


async def test_edit_is_literal(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "r.js").write_text("s.replace(/a.b(/, x)\n")
    result = await edit(ctx, "r.js", "/a.b(/", "/$&\\1\\g<0>/")
    assert not result.is_error
    assert (tmp_path / "r.js").read_text() == "s.replace(/$&\\1\\g<0>/, x)\n"


async def test_edit_near_misses(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    if  x:\n        return 1\n    return 2\n")
    spaced = await edit(ctx, "a.py", "if x:\n    return 1", "if y:")
    assert spaced.is_error
    assert "whitespace-insensitive match exists at line 2" in spaced.output
    assert "can_retry: true" in spaced.output
    similar = await edit(ctx, "a.py", "    retrun 2", "pass")
    assert similar.is_error
    assert "most similar line is line 4: return 2" in similar.output


async def test_edit_crlf_file_with_lf_strings(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    result = await edit(ctx, "w.txt", "alpha\nbeta\n", "alpha\nBETA\nbeta2\n")
    assert not result.is_error, result.output
    assert (tmp_path / "w.txt").read_bytes() == b"alpha\r\nBETA\r\nbeta2\r\ngamma\r\n"
    assert "(kept utf-8, CRLF)" in result.output
    # a one-line old_string: the new lines still take the file's endings
    result = await edit(ctx, "w.txt", "BETA", "BETA\nmore")
    assert not result.is_error, result.output
    assert (tmp_path / "w.txt").read_bytes() == b"alpha\r\nBETA\r\nmore\r\nbeta2\r\ngamma\r\n"
    # a mixed file: an old_string matched with its bare LF keeps the new text as written
    (tmp_path / "m.txt").write_bytes(b"a\r\nb\nc\r\nd\r\n")
    assert not (await edit(ctx, "m.txt", "b\nc", "b\nx\nc")).is_error
    assert (tmp_path / "m.txt").read_bytes() == b"a\r\nb\nx\nc\r\nd\r\n"


@pytest.mark.parametrize("encoding", ["utf-16-be", "gb18030", "cp1251"])
async def test_edit_keeps_encoding(ctx: ToolContext, tmp_path: Path, encoding: str) -> None:
    bom = b"\xfe\xff" if encoding == "utf-16-be" else b""
    text = "первая строка\nвторая\n" if encoding == "cp1251" else "第一行\n第二行\n"
    (tmp_path / "e.txt").write_bytes(bom + text.encode(encoding))
    old = text.splitlines()[1]
    result = await edit(ctx, "e.txt", old, old + "!")
    assert not result.is_error, result.output
    assert (tmp_path / "e.txt").read_bytes() == bom + text.replace(old, old + "!").encode(encoding)


async def test_edit_errors(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("content\n")
    same = await edit(ctx, "a.txt", "content", "content")
    assert same.is_error
    assert "identical" in same.output
    empty = await edit(ctx, "a.txt", "", "x")
    assert empty.is_error
    assert "write_file" in empty.output
    missing = await edit(ctx, "b.txt", "x", "y")
    assert missing.is_error
    assert "did you mean: a.txt" in missing.output
    (tmp_path / "bin.dat").write_bytes(b"\0\0content")
    assert (await edit(ctx, "bin.dat", "content", "x")).is_error
    assert (await edits.EDIT_FILE.run({"path": "a.txt", "old_string": "c"}, ctx)).is_error
    assert (tmp_path / "a.txt").read_text() == "content\n"


async def test_edit_empty_old_string_creates(ctx: ToolContext, tmp_path: Path) -> None:
    result = await edit(ctx, "new/file.md", "", "# Title\n")
    assert not result.is_error
    assert result.output.startswith("Created new/file.md (1 line)")
    assert (tmp_path / "new/file.md").read_text() == "# Title\n"


async def test_edit_large_file_diff_is_local(ctx: ToolContext, tmp_path: Path) -> None:
    lines = [f"row {i}\n" for i in range(200_000)]
    (tmp_path / "big.txt").write_text("".join(lines))
    started = time.perf_counter()
    result = await edit(ctx, "big.txt", "row 150000\n", "changed\n")
    assert time.perf_counter() - started < 30  # a diff of the whole file would take minutes
    assert result.display is not None
    assert "@@ -149998,7 +149998,7 @@" in result.display
    assert (tmp_path / "big.txt").stat().st_size == sum(map(len, lines)) - len("row 150000") + 7


async def test_read_one_giant_line_cut_mid_character(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "one.txt").write_text("€" * 1_000_000)  # 3 MB, one line, no newline
    result = await read(ctx, "one.txt")
    assert result.output.startswith("     1\t" + "€" * 2000 + "… [line cut: ")
    assert "encoding" not in result.output  # the cut inside a character is not "not UTF-8"
    assert "… [line cut: over " in result.output  # only part of the line was read
    assert "line 1 goes on beyond the 1 MB read" in result.output
    assert "offset=2" not in result.output  # there is no line 2 to point at


async def test_big_utf16_files_read_past_the_cap(ctx: ToolContext, tmp_path: Path) -> None:
    rows = [f"row {n} ünïcode" for n in range(1, 700_001)]  # about 15 MB as UTF-16
    (tmp_path / "w16.txt").write_bytes("\n".join(rows).encode("utf-16"))
    deep = await read(ctx, "w16.txt", offset=650_000, limit=2)
    assert not deep.is_error, deep.output
    assert "650000\trow 650000 ünïcode\n650001\trow 650001 ünïcode" in deep.output
    assert "total line count unknown" in deep.output
    past = await read(ctx, "w16.txt", offset=800_000)
    assert past.is_error and "past the end of w16.txt" in past.output
    assert "None" not in past.output


async def test_mostly_utf8_file_with_a_stray_byte(ctx: ToolContext, tmp_path: Path) -> None:
    data = "café naïve 日本語\nsecond line\n".encode() + b"bad \xff byte\n"
    (tmp_path / "m.txt").write_bytes(data)
    result = await read(ctx, "m.txt")
    assert "     1\tcafé naïve 日本語" in result.output  # UTF-8, not a legacy-codepage guess
    assert "     3\tbad \ufffd byte" in result.output
    assert "1 undecodable byte" in result.output
    done = await edit(ctx, "m.txt", "second line", "2nd line")  # the stray byte survives
    assert not done.is_error, done.output
    assert (tmp_path / "m.txt").read_bytes() == data.replace(b"second line", b"2nd line")
    # real cp1251 text is still recognised as such
    (tmp_path / "r.txt").write_bytes("привет, мир\n".encode("cp1251"))
    assert "привет, мир" in (await read(ctx, "r.txt")).output


@pytest.mark.parametrize("head", ["ü\n".encode(), "# café — naïve 日本語\n".encode()])
async def test_edit_keeps_stray_non_utf8_bytes(
    ctx: ToolContext, tmp_path: Path, head: bytes
) -> None:
    """A Latin-1 byte in a UTF-8 file: edits change only their region, results stay JSON."""
    path = tmp_path / "s.py"
    path.write_bytes(head + b"# caf\xe9\nx = 1\n")
    shown = await read(ctx, "s.py")  # UTF-8 with one bad byte, not a cp1251 guess
    assert "caf\ufffd" in shown.output
    assert "cp1251" not in shown.output
    result = await edit(ctx, "s.py", "x = 1", "x = 2")
    assert not result.is_error, result.output
    assert path.read_bytes() == head + b"# caf\xe9\nx = 2\n"
    json.dumps({"output": result.output, "display": result.display})
    assert "(kept 1 non-UTF-8 byte as they were)" in result.output
    assert " # caf\ufffd\n" in result.output  # diff context, shown the way read_file shows it
    # new non-ASCII text goes in as UTF-8 next to the kept byte
    done = await edit(ctx, "s.py", "x = 2", "x = 'é'")
    assert not done.is_error, done.output
    assert path.read_bytes() == head + b"# caf\xe9\nx = '\xc3\xa9'\n"


async def test_stray_bytes_never_break_results(ctx: ToolContext, tmp_path: Path) -> None:
    data = "naïve — 日本語 ünïcödé\n".encode() + b"# caf\xe9 au lait\nx = 1\n"
    (tmp_path / "s.py").write_bytes(data)
    missing = await edit(ctx, "s.py", "# cafe au lai", "y")  # the near-miss names that line
    assert missing.is_error
    assert "most similar line is line 2: # caf\ufffd au lait" in missing.output
    json.dumps(missing.output)
    copied = await edit(ctx, "s.py", "# caf\ufffd au lait", "y")  # copied from read_file
    assert copied.is_error
    assert "non-UTF-8 bytes" in copied.output
    json.dumps(copied.output)
    bad_arg = await edit(ctx, "s.py", "x = 1", "x = '\udce9'")
    assert bad_arg.is_error and "lone surrogate" in bad_arg.output
    json.dumps(bad_arg.output)
    assert (tmp_path / "s.py").read_bytes() == data
    rewritten = await write(ctx, "s.py", "x = 3\n")  # the diff shows the removed stray byte
    assert not rewritten.is_error, rewritten.output
    json.dumps({"output": rewritten.output, "display": rewritten.display})
    assert "-# caf\ufffd au lait" in rewritten.output
    assert (tmp_path / "s.py").read_bytes() == b"x = 3\n"


async def test_edit_still_refuses_binary_with_stray_bytes(ctx: ToolContext, tmp_path: Path) -> None:
    blob = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xe9\xff x = 1\n" * 20
    (tmp_path / "img.dat").write_bytes(blob)
    for result in (
        await edit(ctx, "img.dat", "x = 1", "x = 2"),
        await write(ctx, "img.dat", "text"),
    ):
        assert result.is_error
        assert "binary file" in result.output
    assert (tmp_path / "img.dat").read_bytes() == blob


async def test_a_hard_linked_file_stays_linked(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    os.link(tmp_path / "a.txt", tmp_path / "b.txt")
    assert not (await write(ctx, "a.txt", "two\n")).is_error
    assert (tmp_path / "b.txt").read_text() == "two\n"  # both names see the new text
    assert not (await edit(ctx, "b.txt", "two", "three")).is_error
    assert (tmp_path / "a.txt").read_text() == "three\n"
    assert os.stat(tmp_path / "a.txt").st_ino == os.stat(tmp_path / "b.txt").st_ino


LATIN1 = "menu: café\nprice = 3\n".encode("latin-1")  # no UTF-8 in it at all


async def test_a_latin1_file_stays_latin1(ctx: ToolContext, tmp_path: Path) -> None:
    """Its é is Latin-1 text, not a stray byte in UTF-8: new text never goes in as UTF-8."""
    path = tmp_path / "l1.txt"
    path.write_bytes(LATIN1)
    shown = await read(ctx, "l1.txt")
    assert "     1\tmenu: café" in shown.output and "encoding: latin-1" in shown.output
    done = await edit(ctx, "l1.txt", "price = 3", "naïve = 3")
    assert not done.is_error, done.output
    assert path.read_bytes() == "menu: café\nnaïve = 3\n".encode("latin-1")
    assert "(kept latin-1, LF)" in done.output
    refused = await edit(ctx, "l1.txt", "naïve = 3", "price = 3 €")
    assert refused.is_error
    assert "latin-1 cannot store: '€'" in refused.output
    assert path.read_bytes() == "menu: café\nnaïve = 3\n".encode("latin-1")
    # write_file over it keeps the file's encoding the same way, and refuses the same way
    rewritten = await write(ctx, "l1.txt", "crème brûlée\n")
    assert not rewritten.is_error, rewritten.output
    assert path.read_bytes() == "crème brûlée\n".encode("latin-1")
    assert (await write(ctx, "l1.txt", "5 €\n")).is_error
    assert path.read_bytes() == "crème brûlée\n".encode("latin-1")


async def test_a_cp1252_file_takes_cp1252_text(ctx: ToolContext, tmp_path: Path) -> None:
    path = tmp_path / "w.txt"
    path.write_bytes("price: 5 €\ntotal\n".encode("cp1252"))  # € is 0x80: not Latin-1 text
    done = await edit(ctx, "w.txt", "total", "“total” 7 €")
    assert not done.is_error, done.output
    assert path.read_bytes() == "price: 5 €\n“total” 7 €\n".encode("cp1252")
