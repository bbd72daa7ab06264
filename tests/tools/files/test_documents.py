"""read_file of documents, from real files built in the tests: PDF text per page (a locked,
a scanned-like and a damaged PDF say so), workbooks (sheets, formulas beside their values,
paging, bounded work on a huge sheet), CSV/TSV (dialect, header, counts, streaming) and Word
documents as Markdown; end to end through the agent against the scripted fake."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from docfiles import docx_table, make_docx, make_pdf, para, with_cached_values
from fake_openai import FakeOpenAI, text, tool_calls
from routed_fake import close_runs, make_run

from agent.base.record import ToolContext, ToolResult
from agent.tools.files import read as files
from agent.tools.files.documents import csvtable, docx, sheets
from agent.tools.files.documents import workbook as package
from agent.tools.shared.stamps import FileStamps

openpyxl = pytest.importorskip("openpyxl")


@pytest.fixture(autouse=True)
async def _closed() -> AsyncIterator[None]:
    yield
    await close_runs()


async def read(root: Path, path: str, **args: Any) -> ToolResult:
    return await files.READ_FILE.run({"path": path, **args}, ToolContext(cwd=root))


def workbook(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["region", "units", "price"])
    for i in range(1, 31):
        ws.append([f"r{i}", i, 2.5])
    ws["B32"] = "=SUM(B2:B31)"
    ws["E1"] = "note | with pipe"
    other = wb.create_sheet("Notes")
    other["A1"] = "first"
    other["B3"] = "later"
    wb.save(path)
    return path


# PDF


async def test_pdf_text_per_page_with_markers_and_paging(tmp_path: Path) -> None:
    make_pdf(tmp_path / "r.pdf", ["Intro (draft)\nsecond line", "Results", "Appendix"], title="R")
    r = await read(tmp_path, "r.pdf")
    assert not r.is_error and r.display == "read_file r.pdf · 3 pages"
    assert r.output.startswith("[PDF: 3 pages, title 'R']")
    assert "--- page 1 of 3 ---\nIntro (draft)\nsecond line" in r.output
    assert r.output.index("page 2 of 3") < r.output.index("Results") < r.output.index("page 3")
    r = await read(tmp_path, "r.pdf", offset=2, limit=1)
    assert "Results" in r.output and "Intro" not in r.output and "Appendix" not in r.output
    assert "[showed pages 2-2 of 3; use offset=3 to read on]" in r.output
    assert r.display == "read_file r.pdf · page 2"
    r = await read(tmp_path, "r.pdf", offset=9)
    assert r.is_error and "past the last page" in r.output


async def test_a_pdf_page_or_docx_line_over_the_budget_says_how_to_see_it_whole(
    tmp_path: Path,
) -> None:
    page = "\n".join(f"line {i} of a long page" for i in range(700))  # ~16 K characters
    make_pdf(tmp_path / "long.pdf", ["short", page])
    r = await read(tmp_path, "long.pdf", offset=2)
    assert "characters cut ... (page 2 is longer than one read shows" in r.output
    assert "pdftotext -f 2 -l 2 long.pdf page2.txt, then read_file page2.txt" in r.output
    make_docx(tmp_path / "w.docx", para("word " * 3_000))
    r = await read(tmp_path, "w.docx")
    assert "characters cut ... (line 1 is longer than one read shows" in r.output
    assert "pandoc w.docx -t plain -o w.txt (it wraps long lines), then read_file w.txt" in r.output


async def test_a_locked_pdf_says_so_and_an_owner_password_alone_does_not_lock(
    tmp_path: Path,
) -> None:
    make_pdf(tmp_path / "locked.pdf", ["secret plans"], password="pw")
    r = await read(tmp_path, "locked.pdf")
    assert r.is_error and "password-protected PDF" in r.output and "can_retry: false" in r.output
    make_pdf(tmp_path / "owner.pdf", ["open text"], password="pw", owner_only=True)
    r = await read(tmp_path, "owner.pdf")
    assert not r.is_error and "open text" in r.output and "owner password only" in r.output


async def test_an_image_only_pdf_says_it_has_no_text_layer(tmp_path: Path) -> None:
    make_pdf(tmp_path / "scan.pdf", [None, None])
    r = await read(tmp_path, "scan.pdf")
    assert not r.is_error and "[no text layer on any page" in r.output and "OCR" in r.output


async def test_a_damaged_pdf_is_a_clear_error(tmp_path: Path) -> None:
    good = make_pdf(tmp_path / "good.pdf", ["some text"]).read_bytes()
    (tmp_path / "cut.pdf").write_bytes(good[:150])  # truncated
    (tmp_path / "fake.pdf").write_bytes(b"whatever")
    for name in ("cut.pdf", "fake.pdf"):
        r = await read(tmp_path, name)
        assert r.is_error and "not a readable PDF" in r.output, r.output
        assert "can_retry: false" in r.output


async def test_a_missing_library_is_one_line_saying_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_pdf(tmp_path / "r.pdf", ["x"])
    workbook(tmp_path / "w.xlsx")
    monkeypatch.setitem(sys.modules, "pypdf", None)
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    r = await read(tmp_path, "r.pdf")
    assert r.output.splitlines()[0].endswith("pip install pypdf (in the environment agent runs in)")
    r = await read(tmp_path, "w.xlsx")
    assert "needs openpyxl, which is not installed: pip install openpyxl" in r.output


# Workbooks


async def test_a_workbook_shows_each_sheet_as_a_table(tmp_path: Path) -> None:
    workbook(tmp_path / "w.xlsx")
    r = await read(tmp_path, "w.xlsx")
    assert r.output.startswith("[Excel workbook: 2 sheets: Sales, Notes]")
    assert "## Sales (A1:E32)" in r.output and "## Notes (A1:B3)" in r.output
    assert "| row | A | B | C | D | E |" in r.output
    assert "| 1 | region | units | price |  | note \\| with pipe |" in r.output
    assert "| 2 | r1 | 1 | 2.5 |" in r.output
    assert "| 32 |  | =SUM(B2:B31) |" in r.output  # openpyxl stores no computed value
    assert "| 3 |  | later |" in r.output and "| 2 |" not in r.output.split("## Notes")[1]


async def test_formulas_show_beside_their_computed_values(tmp_path: Path) -> None:
    with_cached_values(workbook(tmp_path / "w.xlsx"), {"B32": "465"})
    r = await read(tmp_path, "w.xlsx", sheet="Sales", offset=30)
    assert "| 32 |  | 465 (=SUM(B2:B31)) |" in r.output
    assert "| 30 | r29 | 29 | 2.5 |" in r.output and "\n| 29 |" not in r.output


async def test_sheet_and_row_paging(tmp_path: Path) -> None:
    workbook(tmp_path / "w.xlsx")
    r = await read(tmp_path, "w.xlsx", sheet="Sales", offset=5, limit=3)
    rows = [line for line in r.output.splitlines() if line.startswith("| ") and "row" not in line]
    assert [row.split("|")[1].strip() for row in rows] == ["5", "6", "7"]
    assert "Notes" not in r.output.split("]", 1)[1]
    assert "[showed Sales rows 5-7 of 32; use offset=8 to read on]" in r.output
    r = await read(tmp_path, "w.xlsx", sheet="Nope")
    assert r.is_error and "no sheet 'Nope'" in r.output and "'Sales', 'Notes'" in r.output


async def test_a_damaged_workbook_is_a_clear_error(tmp_path: Path) -> None:
    data = workbook(tmp_path / "w.xlsx").read_bytes()
    (tmp_path / "cut.xlsx").write_bytes(data[: len(data) // 2])
    (tmp_path / "old.xlsx").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600)
    for name in ("cut.xlsx", "old.xlsx"):
        r = await read(tmp_path, name)
        assert r.is_error and "not a readable Excel workbook" in r.output
        assert "can_retry: false" in r.output


async def test_a_huge_sheet_is_read_in_bounded_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("big")
    for i in range(20_000):
        ws.append([i, f"name {i}", i * 0.5])
    wb.save(tmp_path / "big.xlsx")  # a streaming writer: the file states no size
    scan = "openpyxl.worksheet._reader.WorkSheetParser.parse_dimensions"
    monkeypatch.setattr(scan, lambda _: pytest.fail("the whole sheet was read for its size"))
    r = await read(tmp_path, "big.xlsx")
    assert "| 1 | 0 | name 0 | 0 |" in r.output and "use offset=" in r.output
    monkeypatch.setattr(sheets, "MAX_SCAN", 1_000)
    r = await read(tmp_path, "big.xlsx", offset=5_000)
    assert not r.is_error
    assert "stopped after reading 1,000 rows, before row 5000" in r.output
    r = await read(tmp_path, "big.xlsx", offset=900, limit=10_000)
    assert "| 900 | 899 |" in r.output and "| 1000 | 999 |" in r.output
    assert "stopped after reading 1,000 rows" in r.output and "use offset=1001" in r.output
    monkeypatch.setattr(package, "LOADED_CAP", 100_000)
    r = await read(tmp_path, "big.xlsx")  # ~700 KB of sheet XML: streamed, not counted
    assert not r.is_error, r.output
    workbook(tmp_path / "w.xlsx")
    with zipfile.ZipFile(tmp_path / "w.xlsx", "a") as z:
        z.writestr("xl/sharedStrings.xml", "<sst>" + "x" * 200_000 + "</sst>")
    r = await read(tmp_path, "w.xlsx")
    assert r.is_error and "more than can be loaded here" in r.output


async def test_shared_strings_under_another_name_count_against_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wb = openpyxl.Workbook()
    wb.active["A1"] = "placeholder"
    wb.save(tmp_path / "s.xlsx")
    with zipfile.ZipFile(tmp_path / "s.xlsx") as z:
        parts = {i.filename: z.read(i.filename) for i in z.infolist()}
    sheet = parts["xl/worksheets/sheet1.xml"].decode()
    cell = '<c r="A1" t="inlineStr"><is><t>placeholder</t></is></c>'
    parts["xl/worksheets/sheet1.xml"] = sheet.replace(cell, '<c r="A1" t="s"><v>0</v></c>').encode()
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    text = "1" + "s" * 300_000
    parts["xl/strings.xml"] = f'<sst xmlns="{main}"><si><t>{text}</t></si></sst>'.encode()
    strings = "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
    override = f'<Override PartName="/xl/strings.xml" ContentType="{strings}"/></Types>'
    parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
        b"</Types>", override.encode()
    )
    with zipfile.ZipFile(tmp_path / "s.xlsx", "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    r = await read(tmp_path, "s.xlsx")
    assert not r.is_error and "| 1 | 1sss" in r.output, r.output[:300]
    monkeypatch.setattr(package, "LOADED_CAP", 200_000)
    r = await read(tmp_path, "s.xlsx")
    assert r.is_error and "more than can be loaded here" in r.output


async def test_a_time_out_is_told_apart_from_the_scan_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sheets, "MAX_SECONDS", 0.0)  # as if opening took all the time there is
    wb = openpyxl.Workbook()
    wb.active.append(["only"])
    wb.save(tmp_path / "one.xlsx")
    r = await read(tmp_path, "one.xlsx")
    assert not r.is_error and "| 1 | only |" in r.output
    assert "stopped" not in r.output and "offset=" not in r.output
    workbook(tmp_path / "w.xlsx")
    r = await read(tmp_path, "w.xlsx", sheet="Sales")
    assert "Sales: stopped after reading 1 rows (the 0 s a call may take ran out)" in r.output
    assert "use offset=2 to read on" in r.output


# CSV


async def test_csv_dialect_header_count_and_table(tmp_path: Path) -> None:
    rows = "".join(f'{i};item {i};"a; b"\n' for i in range(1, 51))
    (tmp_path / "d.csv").write_text("id;name;note\n" + rows)
    r = await read(tmp_path, "d.csv")
    assert r.output.startswith("[CSV: semicolon-separated, a header row, 50 data rows, 3 columns]")
    assert "| # | id | name | note |" in r.output
    assert "| 1 | 1 | item 1 | a; b |" in r.output and "| 50 | 50 | item 50 |" in r.output
    r = await read(tmp_path, "d.csv", offset=49)
    assert "| 49 | 49 |" in r.output and "| 48 |" not in r.output
    r = await read(tmp_path, "d.csv", limit=2)
    assert "[showed rows 1-2 of 50; use offset=3 to read on]" in r.output
    (tmp_path / "t.tsv").write_text("a\tb\n1\t2\n")
    r = await read(tmp_path, "t.tsv")
    assert "tab-separated" in r.output and "| 1 | 1 | 2 |" in r.output


async def test_the_csv_row_the_budget_stops_at_is_counted_and_read_on(tmp_path: Path) -> None:
    per_row = 100 + 3 + 8  # one 100-character cell, as csvtable budgets a row
    n = csvtable.BUDGET // per_row + 1  # the last row is the first that does not fit
    rows = "".join(f"{i:0100d}\n" for i in range(1, n + 1))
    (tmp_path / "edge.csv").write_text("value\n" + rows)
    r = await read(tmp_path, "edge.csv")
    assert f"{n} data rows" in r.output, r.output[:200]
    assert f"use offset={n} to read on" in r.output
    r = await read(tmp_path, "edge.csv", offset=n)
    assert f"| {n} | {n:0100d} |" in r.output


async def test_a_large_csv_is_streamed_not_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = "".join(f"{i},value {i},{i * 3}\n" for i in range(60_000))
    (tmp_path / "big.csv").write_text("n,label,triple\n" + line)
    monkeypatch.setattr(csvtable, "COUNT_CAP", 100_000)  # the file is ~1.3 MB
    r = await read(tmp_path, "big.csv")
    head = r.output.splitlines()[0]
    assert "data rows" in head and "about " in head and "an estimate" in head
    assert "use offset=" in r.output


async def test_a_latin1_csv_and_a_binary_one(tmp_path: Path) -> None:
    (tmp_path / "l.csv").write_bytes("name,city\nJosé,Zürich\n".encode("latin-1"))
    r = await read(tmp_path, "l.csv")
    assert "| 1 | José | Zürich |" in r.output and "encoding: latin-1" in r.output
    (tmp_path / "b.csv").write_bytes(b"\0\1\2" * 100)
    r = await read(tmp_path, "b.csv")
    assert r.is_error and "looks binary" in r.output


# Word


async def test_a_word_document_as_markdown(tmp_path: Path) -> None:
    body = "".join(
        [
            para("Quarterly report", "Title"),
            para("Summary", "Heading1"),
            para("Sales *grew* this quarter."),
            para("first point", num=(1, 0)),
            para("nested point", num=(1, 1)),
            para("step one", num=(2, 0)),
            para("Details", "Heading2"),
            docx_table([["Region", "Units"], ["North", "12"], ["South | East", "7"]]),
            para("The end."),
        ]
    )
    make_docx(tmp_path / "r.docx", body)
    r = await read(tmp_path, "r.docx")
    assert not r.is_error, r.output
    want = [
        "# Quarterly report", "", "# Summary", "", "Sales grew this quarter.", "",
        "- first point", "  - nested point", "1. step one", "", "## Details", "",
        "| Region | Units |", "|---|---|", "| North | 12 |", "| South \\| East | 7 |", "",
        "The end.",
    ]  # fmt: skip
    assert r.output.splitlines()[1:] == want
    r = await read(tmp_path, "r.docx", offset=7, limit=3)
    assert r.output.splitlines()[1:4] == ["- first point", "  - nested point", "1. step one"]
    assert "use offset=10 to read on" in r.output


async def test_a_word_list_level_is_clamped_and_a_huge_body_is_read_in_bounded_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = para("deep", num=(1, 150)) + para("deeper", num=(1, int("9" * 30)))
    make_docx(tmp_path / "deep.docx", body)
    r = await read(tmp_path, "deep.docx")
    assert not r.is_error, r.output
    assert r.output.splitlines()[1:] == ["  " * 8 + "- deep", "  " * 8 + "- deeper"]
    # a body of many elements is streamed and cut off with a note, not built whole in memory
    monkeypatch.setattr(docx, "MAX_ELEMENTS", 2_000)
    make_docx(tmp_path / "big.docx", "<w:p/>" * 5_000 + para("after"))
    r = await read(tmp_path, "big.docx")
    assert not r.is_error and "after" not in r.output
    assert "the document was read up to the first 2,000 XML elements" in r.output
    make_docx(tmp_path / "ok.docx", "<w:p/>" * 500 + para("after"))
    r = await read(tmp_path, "ok.docx")
    assert r.output.splitlines()[1:] == ["after"] and "XML elements" not in r.output


async def test_a_damaged_word_document_is_a_clear_error(tmp_path: Path) -> None:
    data = make_docx(tmp_path / "r.docx", para("hello")).read_bytes()
    (tmp_path / "cut.docx").write_bytes(data[:200])
    r = await read(tmp_path, "cut.docx")
    assert r.is_error and "not a readable Word document" in r.output
    with zipfile.ZipFile(tmp_path / "z.docx", "w") as z:
        z.writestr("word/document.xml", "<w:document")  # broken XML
    r = await read(tmp_path, "z.docx")
    assert r.is_error and "looks corrupt or truncated" in r.output


# Around the readers


async def test_other_office_files_are_still_refused_with_advice(tmp_path: Path) -> None:
    (tmp_path / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0")
    r = await read(tmp_path, "old.doc")
    assert r.is_error and "read_file reads .docx and .xlsx" in r.output


async def test_a_document_read_counts_as_a_read_for_edits(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("a,b\n1,2\n")
    ctx = ToolContext(cwd=tmp_path, files=FileStamps())
    await files.READ_FILE.run({"path": "d.csv"}, ctx)
    edit = {"path": "d.csv", "old_string": "1,2", "new_string": "3,4"}
    r = await files.EDIT_FILE.run(edit, ctx)
    assert not r.is_error, r.output


def test_the_libraries_load_only_when_a_document_is_read() -> None:
    code = "from agent.tools.builtin import builtin_tools; import sys; print(sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "'pypdf'" not in out.stdout and "'openpyxl'" not in out.stdout


async def test_documents_end_to_end(fake: FakeOpenAI, tmp_path: Path) -> None:
    make_pdf(tmp_path / "r.pdf", ["Hello from the PDF"])
    workbook(tmp_path / "w.xlsx")
    make_docx(tmp_path / "r.docx", para("Word heading", "Heading1"))
    (tmp_path / "d.csv").write_text("x,y\n1,2\n")
    reads = [("read_file", {"path": p}) for p in ("r.pdf", "w.xlsx", "r.docx", "d.csv")]
    reads.append(("read_file", {"path": "w.xlsx", "sheet": "Notes"}))
    fake.script(tool_calls(reads), text("read them"))
    run, _ = make_run(fake, tmp_path)
    await run.turn("read the documents")
    results = [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "tool"]
    assert "--- page 1 of 1 ---\nHello from the PDF" in results[0]
    assert "## Sales (A1:E32)" in results[1] and "## Notes" in results[1]
    assert "# Word heading" in results[2]
    assert "| 1 | 1 | 2 |" in results[3]
    assert "## Notes" in results[4] and "## Sales" not in results[4]
