"""Hostile documents a repository can ship (issue 38): each one is read the way the model's
read_file reads it, in a child process of its own that reports its peak memory, which must
stay under the 512 MB one file may cost; the result names what was refused and why, or what
was cut. Before their budgets these took 1-3 GB each (a shared-strings part not named .xml,
a CSV of one 500 MB line, a 640 KB PNG, a 60 MB notebook); an encrypted workbook was called
corrupt."""

from __future__ import annotations

import zipfile
from pathlib import Path

import hostile_files as h
import pytest
from docfiles import make_docx, para

from agent.base.record import ToolContext, ToolResult
from agent.tools.files import read as files
from agent.tools.files.documents import docx, pdf

openpyxl = pytest.importorskip("openpyxl")


async def read(root: Path, path: str, **args: object) -> ToolResult:
    return await files.READ_FILE.run({"path": path, **args}, ToolContext(cwd=root))


def read_in_child(path: Path, *extra: str) -> tuple[float, str]:
    """(peak MB, output) of read_file of `path` in a process of its own."""
    _, peak, out = h.measured(h.READ_FILE, str(path), *extra)
    return peak, out


def test_shared_strings_under_any_name_count_and_the_workbook_is_refused(tmp_path: Path) -> None:
    bomb = h.xlsx_strings_bomb(tmp_path / "report.xlsx", unpacked=300 << 20)
    assert bomb.stat().st_size < 2 << 20  # 300 MB of XML in under 2 MB
    peak, out = read_in_child(bomb)
    assert "report.xlsx holds 300.0 MB of text cells, styles and other parts" in out
    assert "at most 16 MB" in out and "export the sheet you need to CSV" in out
    assert peak < h.BUDGET_MB, peak


def test_a_part_that_holds_more_than_its_header_says_is_refused(tmp_path: Path) -> None:
    """zipfile stops a part at its stated size, but reading it whole inflates all of it
    first: 300 MB behind a header saying 1,000 bytes took 612 MB."""
    bomb = h.xlsx_strings_bomb(tmp_path / "lie.xlsx", unpacked=300 << 20)
    h.lying_part(bomb, "xl/strings.bin")
    with zipfile.ZipFile(bomb) as z:
        assert z.getinfo("xl/strings.bin").file_size == 1000
    peak, out = read_in_child(bomb)
    assert "its part xl/strings.bin unpacks to more than its zip header states" in out
    assert peak < h.BUDGET_MB, peak
    styles = make_docx(tmp_path / "lie.docx", para("hello"))
    with zipfile.ZipFile(styles) as z:
        parts = {i.filename: z.read(i) for i in z.infolist()}
    parts["word/styles.xml"] = b"<w:styles/>" + b" " * 3_000_000
    with zipfile.ZipFile(styles, "w", zipfile.ZIP_DEFLATED) as z:
        for member, data in parts.items():
            z.writestr(member, data)
    h.lying_part(styles, "word/styles.xml", says=100)
    peak, out = read_in_child(styles)
    assert "its part word/styles.xml unpacks to more than its zip header states" in out


async def test_an_encrypted_workbook_or_document_says_it_is_password_protected(
    tmp_path: Path,
) -> None:
    for name, kind in (("locked.xlsx", "Excel workbook"), ("locked.docx", "Word document")):
        h.encrypted_office(tmp_path / name)
        r = await read(tmp_path, name)
        assert r.is_error and f"{name} is a password-protected {kind}" in r.output, r.output
        assert "corrupt" not in r.output and "convert" not in r.output
        assert "ask the user for the password" in r.output and "can_retry: false" in r.output
    h.ole2(tmp_path / "old.xlsx", {"Workbook": b"\x09\x08" * 100})  # a real .xls, renamed
    r = await read(tmp_path, "old.xlsx")
    assert r.is_error and "an old binary .xls file (OLE2)" in r.output
    assert "libreoffice --headless --convert-to xlsx" in r.output


def test_a_csv_of_one_huge_line_is_streamed_and_cut(tmp_path: Path) -> None:
    bomb = h.csv_one_line(tmp_path / "data.csv", size=300 << 20)
    peak, out = read_in_child(bomb)
    assert "[1 line longer than 1,048,576 characters cut there (line 1)" in out, out[-800:]
    assert "| 1 | 1 | 2 |" in out  # the rows after it are read as usual
    assert peak < h.BUDGET_MB, peak


async def test_a_cut_line_inside_quotes_does_not_swallow_the_next_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.tools.files.documents import csvtable

    monkeypatch.setattr(csvtable, "LINE_CAP", 100)
    long = '1,"' + "x" * 500 + '"\n'
    (tmp_path / "q.csv").write_text("id,text\n" + long + "2,after\n3,end\n")
    r = await read(tmp_path, "q.csv")
    assert "| 2 | 2 | after |" in r.output and "| 3 | 3 | end |" in r.output, r.output
    assert "1 line longer than 100 characters cut there (line 2)" in r.output


def test_an_image_over_the_pixel_budget_is_never_decoded(tmp_path: Path) -> None:
    pytest.importorskip("PIL")
    bomb = h.png_bomb(tmp_path / "shot.png")
    assert bomb.stat().st_size < 1 << 20  # 169 megapixels in under 1 MB
    peak, out = read_in_child(bomb, "images")  # a model that takes images: it would be scaled
    assert "shot.png: PNG image, 13000×13000" in out
    assert "more pixels than are decoded here (at most 50 megapixels" in out
    assert peak < h.BUDGET_MB, peak


def test_a_large_photo_is_decoded_at_a_reduced_scale(tmp_path: Path) -> None:
    """A JPEG over the pixel budget is still sent: decoded at 1/4 scale, never whole."""
    image = pytest.importorskip("PIL.Image")
    image.new("RGB", (9000, 6000), (30, 120, 200)).save(tmp_path / "photo.jpg", quality=40)
    peak, out = read_in_child(tmp_path / "photo.jpg", "images")
    assert "9000×6000" in out and "scaled to 2000×1333" in out, out
    assert peak < 200, peak  # 54 megapixels decoded whole would be over 160 MB alone


def test_a_notebook_of_millions_of_values_is_refused_before_parsing(tmp_path: Path) -> None:
    bomb = h.notebook_bomb(tmp_path / "big.ipynb")
    peak, out = read_in_child(bomb)
    assert "big.ipynb holds over 41,943,0" in out and "too many to parse here" in out
    assert "jupyter nbconvert --clear-output" in out
    assert peak < h.BUDGET_MB, peak
    edit = """
from agent.tools.shared.common import ToolError
from agent.tools.files.documents.nbedit import NotebookArgs, plan
try:
    plan(NotebookArgs.parse({"path": "x", "index": 0, "new_source": "x"}), Path(sys.argv[1]))
except ToolError as exc:
    print(exc.what)
"""
    _, peak, out = h.measured("from pathlib import Path\n" + edit, str(bomb))
    assert "too many to parse here" in out and peak < h.BUDGET_MB, (peak, out)


def test_a_word_paragraph_of_endless_text_is_cut(tmp_path: Path) -> None:
    bomb = tmp_path / "long.docx"
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    with (
        zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z,
        z.open("word/document.xml", "w") as out,
    ):
        out.write(f'<w:document xmlns:w="{w}"><w:body><w:p><w:r><w:t>'.encode())
        for _ in range(60):  # 60 MB of text lines in one run, under the part's own cap
            out.write(b"abcdefgh\n" * 116_508)
        out.write(b"</w:t></w:r></w:p></w:body></w:document>")
    peak, out = read_in_child(bomb)  # 680 MB before: a list of 7 million lines
    assert "a paragraph or table of over 16 MB of XML" in out and "pandoc" in out
    assert peak < h.BUDGET_MB, peak


async def test_a_word_document_of_many_lines_keeps_the_first_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(docx, "MAX_LINES", 50)
    make_docx(tmp_path / "d.docx", "".join(para(f"line {i}") for i in range(200)))
    r = await read(tmp_path, "d.docx")
    assert "line 0" in r.output and "line 30" not in r.output
    assert "the document was read up to 51 lines" in r.output, r.output[-500:]


def test_a_pdf_page_over_the_parsing_limits_is_named_not_fatal(tmp_path: Path) -> None:
    bomb = h.pdf_bomb(tmp_path / "doc.pdf", unpacked=20 << 20)  # 3.4 million tokens
    peak, out = read_in_child(bomb)
    assert "--- page 1 of 1 ---" in out and "[not read: its content is over a limit" in out
    assert peak < h.BUDGET_MB, peak


async def test_a_pdf_read_stops_at_its_deadline_and_says_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docfiles import make_pdf

    make_pdf(tmp_path / "a.pdf", ["one", "two", "three"])
    monkeypatch.setattr(pdf, "MAX_SECONDS", -1.0)  # as if the first page took all the time
    r = await read(tmp_path, "a.pdf")
    assert r.is_error and "page 1 of a.pdf takes longer to read than" in r.output
    assert "pdftotext -f 1 -l 1" in r.output
