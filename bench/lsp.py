"""Language servers (issue 47): what an edit costs with its diagnostics, and the servers that
could serve Python, measured side by side.

- Per edit: a scripted session of EDITS edits to one Python file (each its own step) against
  the fake server, `editDiagnostics` "all" (ty and ruff, started by the first edit) against
  "off", interleaved; the added time per edit is their difference over EDITS.
- Servers: each Python server installed (ty, basedpyright, pyright, pyrefly, jedi, pylsp):
  start (initialize), the first diagnostics of a file, the diagnostics after an edit that
  breaks a type (found or not), and the server's resident memory.
Start-up when no file is edited: `python -m bench.against <the commit before> 20` (the
servers start only when a file needs one; nothing of them is imported at start).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, Table, stat

sys.path.insert(0, str(ROOT / "tests"))

EDITS = 20
APP = "def helper(n: int) -> int:\n    return n * 2\n\n\ndef main() -> int:\n    return helper(0)\n"


def _project(tmp: str) -> Path:
    root = Path(tmp) / "proj"
    (root / ".agent").mkdir(parents=True)
    (root / "app.py").write_text(APP)
    return root


async def _session(level: str) -> float:
    from fake_openai import text, tool_calls
    from routed_fake import RoutedFake, close_runs, make_run

    with tempfile.TemporaryDirectory() as tmp:
        root = _project(tmp)
        fake = RoutedFake().start()
        steps = [tool_calls([("read_file", {"path": "app.py"})])]
        for i in range(EDITS):
            change = {"path": "app.py", "old_string": f"helper({i})"}
            change["new_string"] = f"helper({i + 1})"
            steps.append(tool_calls([("edit_file", change)]))
        fake.script(*steps, text("done"))
        run, _ = make_run(fake, root, settings={"editDiagnostics": level})  # type: ignore[arg-type]
        try:
            t0 = time.perf_counter()
            end = await run.turn("edit it")
            took = time.perf_counter() - t0
            if end.subtype != "success":
                raise RuntimeError(end.error)
        finally:
            await close_runs()
            fake.stop()
    return took


def per_edit(rounds: int = 3) -> tuple[float, float, float]:
    """(seconds of the session with diagnostics, without, added per edit): medians."""
    on, off = [], []
    for _ in range(rounds):
        on.append(asyncio.run(_session("all")))
        off.append(asyncio.run(_session("off")))
    a, b = stat(on).median, stat(off).median
    return a, b, (a - b) / EDITS


async def _server(name: str) -> dict[str, Any] | None:
    from agent.lsp.server import LanguageServer
    from agent.lsp.specs import KNOWN, which

    spec = next(s for s in KNOWN if s.name == name)
    program = which(spec.command[0])
    if program is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        root = _project(tmp)
        app = root / "app.py"
        t0 = time.perf_counter()
        argv = [program, *spec.command[1:]]
        s = await LanguageServer.start(spec, root, argv, dict(os.environ), root / "log")
        t1 = time.perf_counter()
        await s.diagnostics(app, APP, 30)
        t2 = time.perf_counter()
        found = await s.diagnostics(app, APP.replace("helper(0)", 'helper("0")'), 30)
        t3 = time.perf_counter()
        rss = _resident(s.conn.proc.pid)
        await s.close()
    return {"start": t1 - t0, "first": t2 - t1, "edit": t3 - t2, "found": bool(found), "rss": rss}


def _resident(pid: int) -> int:
    """MB the process holds in memory, its children with it (a server's Node)."""
    total = 0
    for p in [pid, *_children(pid)]:
        with contextlib.suppress(OSError, IndexError):
            status = Path(f"/proc/{p}/status").read_text()
            total += int(status.split("VmRSS:")[1].split()[0])
    return total // 1024


def _children(pid: int) -> list[int]:
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(k) for k in kids] + [g for k in kids for g in _children(int(k))]


def lsp_bench(table: Table) -> None:
    on, off, added = per_edit()
    table.add(
        f"{EDITS} edits of a Python file, diagnostics after each (ty + ruff)",
        f"{on * 1000:.0f} ms",
        f"editDiagnostics off {off * 1000:.0f} ms",
        "",
        None,
    )
    table.add(
        "added per edit (diagnostics before and after)", f"{added * 1000:.1f} ms", "", "", None
    )
    for name in ("ty", "basedpyright", "pyright", "pyrefly", "jedi", "pylsp"):
        m = asyncio.run(_server(name))
        if m is None:
            continue
        table.add(
            f"Python server {name}: start, first diagnostics, after an edit",
            f"{m['start'] * 1000:.0f} / {m['first'] * 1000:.0f} / {m['edit'] * 1000:.0f} ms",
            f"type error {'found' if m['found'] else 'not found'}, {m['rss']} MB resident",
            "",
            None,
        )


if __name__ == "__main__":
    t = Table()
    lsp_bench(t)
    print(t.markdown())
