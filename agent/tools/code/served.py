"""symbols through a language server (ToolContext.lsp, agent.lsp) when one runs for the file:
the definition a use really resolves to (through imports and types), its references and its
hover text (type and signature). None when no server answered: symbols falls back to the
syntax trees.
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from agent.base.record import ToolContext
from agent.permissions.paths import Workspace
from agent.tools.shared.common import shown
from agent.tools.shared.secret_hits import model_may_read

MAX_REFS = 40  # references listed with their line of code
HOVER_CHARS = 600


def column(text: str, name: str) -> int | None:
    """Where `name` stands as a whole word in a line (its first occurrence)."""
    m = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text)
    return m.start() if m else None


class Served(NamedTuple):
    server: str
    definitions: list[str]  # `file:line: code` rows
    hover: str  # its type or signature ("" when none)
    references: list[str]
    total: int  # references found (more than listed past MAX_REFS)

    def rows(self) -> list[str]:
        out = [f"Type: {self.hover}"] if self.hover else []
        out.append(f"References ({self.total}, from the language server {self.server}):")
        out += self.references or ["(none)"]
        return out + ([f"… {self.total - MAX_REFS} more"] if self.total > MAX_REFS else [])


async def served(ctx: ToolContext, path: Path, line: int, name: str) -> Served | None:
    """Definition, hover and references of `name` on 1-based `line` of `path`; None when no
    server answered (or `name` is not on that line)."""
    lsp = ctx.lsp
    if lsp is None:
        return None
    try:
        lines = (await asyncio.to_thread(path.read_text, encoding="utf-8")).splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    col = column(lines[line - 1], name) if 0 < line <= len(lines) else None
    if col is None:
        return None
    found = await lsp.ask("textDocument/definition", path, line - 1, col)
    if found is None:
        return None
    server, answer = found
    definitions = [await _row(ctx, loc) for loc in _locations(answer)]
    hover = await lsp.ask("textDocument/hover", path, line - 1, col)
    refs = await lsp.ask("textDocument/references", path, line - 1, col)
    locs = _locations(refs[1]) if refs is not None else []
    listed = [await _row(ctx, loc) for loc in locs[:MAX_REFS]]
    return Served(server, definitions, _hover_text(hover[1]) if hover else "", listed, len(locs))


def _locations(answer: Any) -> list[tuple[Path, int]]:
    """(file, 1-based line) of a Location, a list of them, or LocationLinks."""
    from urllib.parse import unquote, urlparse  # deferred: ~1 ms of start-up, for an answer

    items = answer if isinstance(answer, list) else [answer] if isinstance(answer, dict) else []
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        uri = item.get("uri") or item.get("targetUri")
        span = item.get("range") or item.get("targetSelectionRange") or {}
        if isinstance(uri, str) and uri.startswith("file:"):
            line = int((span.get("start") or {}).get("line", 0)) + 1
            out.append((Path(unquote(urlparse(uri).path)), line))
    return sorted(set(out))


async def _row(ctx: ToolContext, loc: tuple[Path, int]) -> str:
    """`file:line: code`; the code only of a file read_file would read unasked (a server may
    point anywhere: a secret or a file outside the workspace gets its place, not its text)."""
    path, line = loc
    return f"{shown(ctx, path)}:{line}: {await asyncio.to_thread(_code, ctx, path, line)}"


def may_show(ctx: ToolContext, path: Path) -> bool:
    """A workspace file read_file reads unasked (no secret, no deny rule)."""
    rel = os.path.relpath(path, ctx.cwd)
    ws = Workspace.make(Path(ctx.cwd), ctx.added_dirs)
    return not rel.startswith("..") and bool(model_may_read([rel], ctx.cwd, ws, ctx.denied_reads))


def _code(ctx: ToolContext, path: Path, line: int) -> str:
    if not may_show(ctx, path):
        return ""
    try:
        text = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ""
    return text[line - 1].strip()[:200] if 0 < line <= len(text) else ""


def _hover_text(answer: Any) -> str:
    contents = answer.get("contents") if isinstance(answer, dict) else None
    if isinstance(contents, dict):
        text = str(contents.get("value", ""))
    elif isinstance(contents, list):
        text = "\n".join(c if isinstance(c, str) else str(c.get("value", "")) for c in contents)
    else:
        text = str(contents or "")
    text = text.replace("```python", "").replace("```", "").strip()
    return text[:HOVER_CHARS]
