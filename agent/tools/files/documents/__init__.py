"""read_file of documents: Jupyter notebooks, PDF, spreadsheets (.xlsx/.xlsm), CSV/TSV and
Word (.docx), each shown as text paged in its own units (cells, pages, rows, lines), plus
notebook_edit (nbedit.py; nbstyle.py keeps a file's JSON layout). Notebooks, CSV and .docx
need only the standard library; PDF and .xlsx use pypdf and openpyxl, imported only when such a
file is read. A corrupt or truncated file is an error saying so; nothing is ever written by a
read. Each reader holds a hostile file to a time and memory budget (~10 s, well under 512 MB):
what is over it is refused before it is parsed, or cut with a note saying where and how to read
the rest another way.
"""

from __future__ import annotations

from pathlib import Path

from agent.base.record import ToolResult
from agent.tools.files.documents.paging import Ask, AsText
from agent.tools.shared.common import ToolError

# suffix -> (what it is, the module in this package that reads it)
READERS: dict[str, tuple[str, str]] = {
    ".ipynb": ("Jupyter notebook", "notebook"),
    ".pdf": ("PDF", "pdf"),
    ".xlsx": ("Excel workbook", "sheets"),
    ".xlsm": ("Excel workbook", "sheets"),
    ".csv": ("CSV file", "csvtable"),
    ".tsv": ("TSV file", "csvtable"),
    ".docx": ("Word document", "docx"),
}

__all__ = ["READERS", "Ask", "handles", "read"]


def handles(path: Path) -> bool:
    return path.suffix.lower() in READERS


def read(path: Path, ask: Ask) -> ToolResult | str:
    """The document at `path` as text, or (a str) why to show the file as plain text instead
    (a notebook that is not valid JSON); ToolError for what cannot be read."""
    # deferred: ~8 ms of readers (zip, XML, csv): only once a document is read
    from agent.tools.files.documents import csvtable, docx, notebook, pdf, sheets

    kind, module = READERS[path.suffix.lower()]
    readers = {"notebook": notebook, "pdf": pdf, "sheets": sheets, "csvtable": csvtable}
    reader = {**readers, "docx": docx}[module].read
    try:
        return reader(path, ask)
    except AsText as exc:
        return exc.note
    except (ToolError, OSError, MemoryError):
        raise
    except Exception as exc:  # a library's parse error: the file is damaged, say so plainly
        why = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise ToolError(
            f"{ask.name} is not a readable {kind}: it looks corrupt or truncated ({why})",
            can_retry=False,
            hint="check the file with bash (`file`, `ls -l`); a damaged file cannot be read here",
        ) from None
