"""PDF (pypdf): the text of each page under a page marker; offset/limit count pages. A PDF
locked with a password, or with no text layer (scanned pages), says so instead of showing
nothing. Time and memory are bounded: pypdf's own limits, tightened (a page's content parsed
at most PARSE_TOKENS tokens, a stream inflated to at most STREAM_BYTES), and a deadline that
each operator a page draws is checked against (MAX_SECONDS for one call)."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent.base.record import ToolResult
from agent.base.words import plural
from agent.tools.files.documents.paging import Ask, finish, fit, more, need, span
from agent.tools.shared.common import ToolError

MAX_SECONDS = 8.0  # one call, all its pages (opening it and the last page aside: 10 s)
PARSE_TOKENS = 500_000  # tokens of one content stream parsed (pypdf's default: 2,000,000)
STREAM_BYTES = 32 << 20  # bytes one stream inflates to (pypdf's default: 75 MB)
FORMS = 1_000  # form XObjects drawn per page (pypdf's default: 5,000)
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


class _Late(Exception):
    """The call's time ran out in the middle of a page."""


def _limits() -> Any:
    """pypdf's limits tightened for this read (a pypdf without them: its own, or none)."""
    try:
        import pypdf  # deferred: ~60 ms, only when a PDF is read
    except ImportError:
        return contextlib.nullcontext()  # _open says what to install
    apply = getattr(pypdf, "apply_configuration", None)
    if apply is None:
        return contextlib.nullcontext()
    return apply(
        stream_parsing_work_maximum_count=PARSE_TOKENS,
        zlib_maximum_output_length=STREAM_BYTES,
        xform_maximum_invocations_per_extraction=FORMS,
    )


def _page(reader: Any, n: int, total: int, deadline: float) -> str:
    import pypdf

    def on_time(*_: Any) -> None:  # before each operator the page draws
        if time.monotonic() > deadline:
            raise _Late

    try:
        text = (reader.pages[n].extract_text(visitor_operand_before=on_time) or "").strip()
    except pypdf.errors.LimitReachedError as exc:
        text = f"[not read: its content is over a limit of what is parsed here ({exc})]"
    return f"--- page {n + 1} of {total} ---\n{text or '[no text on this page]'}"


def _pages(reader: Any, start: int, stop: int, late: list[int]) -> Iterator[str]:
    """Pages start..stop-1 until MAX_SECONDS ran out (the page it ran out on goes in `late`)."""
    deadline = time.monotonic() + MAX_SECONDS
    total = len(reader.pages)
    for n in range(start, stop):
        try:
            yield _page(reader, n, total, deadline)
        except _Late:
            late.append(n)
            return


def read(path: Path, ask: Ask) -> ToolResult:
    with _limits():
        return _read(path, ask)


def _read(path: Path, ask: Ask) -> ToolResult:
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
    late: list[int] = []
    blocks, _ = fit(_pages(reader, start, stop, late), whole=whole)
    if late and not blocks:
        raise ToolError(
            f"page {late[0] + 1} of {ask.name} takes longer to read than the {MAX_SECONDS:.0f} s "
            "a call may take",
            can_retry=False,
            hint=f"extract its text with bash: pdftotext -f {late[0] + 1} -l {late[0] + 1} "
            f"{ask.name} page.txt, then read_file page.txt",
        )
    last = start + len(blocks)
    notes = [more("pages", start + 1, last, total, last + 1)]
    if late:
        notes.insert(
            0, f"stopped at page {late[0] + 1}: the {MAX_SECONDS:.0f} s a call may take ran out"
        )
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
