"""PDF (pypdf): the text of each page under a page marker; offset/limit count pages. A PDF
locked with a password, or with no text layer (scanned pages), says so instead of showing
nothing."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from agent.base.record import ToolResult
from agent.base.words import plural
from agent.tools.common import ToolError
from agent.tools.documents.paging import Ask, finish, fit, more, need, span

NO_TEXT_HINT = (
    "its pages are probably scanned images: OCR them (e.g. `ocrmypdf`), or turn pages into "
    "PNG images with bash (`pdftoppm -png -f N -l N FILE page`) and read those"
)


def _open(path: Path, name: str) -> Any:
    """A PdfReader for `path`, decrypted when it has no user password."""
    try:
        import pypdf  # deferred: ~60 ms, only when a PDF is read
    except ImportError:
        raise need("pypdf", "PDF") from None
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings would land on the terminal
    with open(path, "rb") as f:
        if not f.read(1024).lstrip().startswith(b"%PDF"):
            raise ToolError(
                f"{name} is not a readable PDF (no %PDF header: corrupt, or another format)",
                can_retry=False,
                hint="check what it is with bash (`file`)",
            )
    reader = pypdf.PdfReader(path, strict=False)
    if reader.is_encrypted:
        try:
            opened = reader.decrypt("")  # an owner password alone still lets anyone read
        except pypdf.errors.DependencyError:
            raise need("cryptography", "this AES-encrypted PDF") from None
        if not opened:
            raise ToolError(
                f"{name} is a password-protected PDF: its text cannot be read without the password",
                can_retry=False,
                hint="ask the user for the password or an unprotected copy "
                "(`qpdf --password=PW --decrypt in.pdf out.pdf`)",
            )
    return reader


def _page(reader: Any, n: int, total: int) -> str:
    text = (reader.pages[n].extract_text() or "").strip()
    return f"--- page {n + 1} of {total} ---\n{text or '[no text on this page]'}"


def read(path: Path, ask: Ask) -> ToolResult:
    reader = _open(path, ask.name)
    total = len(reader.pages)
    if total == 0:
        return ToolResult(f"[{ask.name}: a PDF with no pages]", display=f"read_file {ask.name}")
    start = ask.offset - 1
    if start >= total:
        raise ToolError(
            f"offset {ask.offset} is past the last page of {ask.name} ({total} pages)",
            hint="offset counts pages from 1",
        )
    stop = total if ask.limit is None else min(total, start + ask.limit)
    whole = (
        f"(page {start + 1} is longer than one read shows; see all of it with bash: "
        f"pdftotext -f {start + 1} -l {start + 1} {ask.name} page{start + 1}.txt, then "
        f"read_file page{start + 1}.txt)"
    )
    blocks, _ = fit((_page(reader, n, total) for n in range(start, stop)), whole=whole)
    last = start + len(blocks)
    notes = [more("pages", start + 1, last, total, last + 1)]
    if reader.is_encrypted:  # opened without a password: only an owner password is set
        notes.append("encrypted with an owner password only: its text reads without one")
    if all(b.endswith("\n[no text on this page]") for b in blocks):
        where = "any page" if (start, last) == (0, total) else f"pages {start + 1}-{last}"
        notes.insert(0, f"no text layer on {where}: {NO_TEXT_HINT}")
    title = ""
    meta = reader.metadata
    if meta is not None and meta.title:
        title = f", title {str(meta.title)[:200]!r}"
    head = f"[PDF: {plural(total, 'page')}{title}]"
    shown = span(ask.name, "page", start + 1, last, (start, last) == (0, total))
    return finish(head + "\n\n" + "\n\n".join(blocks), notes, shown)
