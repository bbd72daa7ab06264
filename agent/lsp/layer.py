"""Diagnostics after edits (setting `editDiagnostics`): a dispatch middleware around every edit
tool's call (its record's kind and edited files say which files; no tool is named). Before the
call it takes the files' diagnostics as a baseline, after it the new ones, and the result the
model reads ends with the problems the edit introduced — never those that were there before —
capped in number and length. "errors" reports errors only, "all" warnings too, "off" nothing.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.base.record import Call, Next, Tool, ToolContext, ToolResult
from agent.config.load import Config
from agent.lsp.session import CodeServers
from agent.lsp.specs import configured
from agent.permissions.request import Asker

if TYPE_CHECKING:  # annotations only (the Protocols cost ~0.8 ms to import)
    from agent.base.parts import CommandBox

MAX_SHOWN = 20  # problems listed after one edit
MAX_CHARS = 300  # of one problem's message
SEVERITY = {1: "error", 2: "warning"}


class EditDiagnostics:
    def __init__(self, servers: CodeServers, tools: dict[str, Tool], level: str = "all") -> None:
        self.servers, self.tools, self.level = servers, tools, level  # level: all | errors

    async def __call__(self, call: Call, ctx: ToolContext, nxt: Next) -> ToolResult:
        tool = self.tools.get(call.name)
        raw = tool.edited_files(call.args) if tool is not None else ()
        paths = [p for p in (_place(Path(ctx.cwd), r) for r in raw) if self.servers.wanted(p)]
        if not paths:
            return await nxt(call, ctx)
        before = {p: await self.servers.diagnostics(p) or [] for p in paths}  # [] when new
        result = await nxt(call, ctx)
        if result.is_error:
            return result
        found = []
        for p in paths:
            after = await self.servers.diagnostics(p)
            if after is not None:
                rel = os.path.relpath(p, ctx.cwd)  # noqa: ASYNC240 — no file system access
                found += [(rel, d) for d in introduced(before[p], after, self.level)]
        if not found:
            return result
        return replace(result, output=f"{result.output}\n\n{report(found)}")


def introduced(
    before: list[dict[str, Any]], after: list[dict[str, Any]], level: str
) -> list[dict[str, Any]]:
    """The problems in `after` that `before` did not have (lines move with edits: a problem is
    its source, severity, code and message), as many times as they are new."""
    worst = 1 if level == "errors" else 2
    had = Counter(_key(d) for d in before)
    out = []
    for d in after:
        if d.get("severity", 1) > worst:
            continue
        key = _key(d)
        if had[key] > 0:
            had[key] -= 1
        else:
            out.append(d)
    return out


def _key(d: dict[str, Any]) -> tuple[str, int, str, str]:
    severity, message = int(d.get("severity", 1)), str(d.get("message", ""))
    return (str(d.get("source")), severity, str(d.get("code")), message)


def report(found: list[tuple[str, dict[str, Any]]]) -> str:
    """What the model reads after the edit's own result."""
    lines = [f"Problems this edit introduced ({len(found)}; fix them before moving on):"]
    for rel, d in found[:MAX_SHOWN]:
        start = (d.get("range") or {}).get("start") or {}
        cell = f":cell {d['cell']}" if "cell" in d else ""  # a notebook's: line within the cell
        where = f"{rel}{cell}:{int(start.get('line', 0)) + 1}:{int(start.get('character', 0)) + 1}"
        code = f"[{d['code']}]" if d.get("code") not in (None, "") else ""
        message = " ".join(str(d.get("message", "")).split())
        if len(message) > MAX_CHARS:
            message = message[: MAX_CHARS - 1] + "…"
        kind = SEVERITY.get(int(d.get("severity", 1)), "note")
        lines.append(f"  {where} {kind}{code} {message} ({d.get('source')})")
    if len(found) > MAX_SHOWN:
        lines.append(f"  … {len(found) - MAX_SHOWN} more")
    return "\n".join(lines)


def _place(cwd: Path, raw: str) -> Path:
    """A path a call names, made absolute and real (the server knows files by real path)."""
    return Path(os.path.realpath(cwd / os.path.expanduser(raw)))


def for_session(
    cfg: Config, tools: dict[str, Tool], box: CommandBox, asker: Asker | None
) -> tuple[CodeServers, EditDiagnostics | None]:
    """The session's language servers (ToolContext.lsp) and the middleware that reports what
    an edit broke (None with `editDiagnostics: "off"`); `asker`: the person, if any."""
    servers = CodeServers(configured(cfg.options.lsp), cfg.root, box, cfg.trusted, asker=asker)
    level = cfg.options.edit_diagnostics
    return servers, (EditDiagnostics(servers, tools, level) if level != "off" else None)
