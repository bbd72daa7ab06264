"""Hostile files (issue 38): the worst file of each kind a repository can ship, read the way
the agent reads it, each in a process of its own, with its wall time, its CPU time (its parsing
process's included, less what the same process takes to read a one-line file) and its peak
memory (its own or its parsing process's) against the budget one file may cost: 10 s and
512 MB. Plus the two stdio servers fed a 200 MB line, and the event loop's longest stall while
the code files are parsed in the background. `python -m bench.hostile` prints every file;
`python -m bench` the worst of each kind.

The files are built by tests/hostile_files.py, as the tests build them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.common import ROOT, Table

sys.path.insert(0, str(ROOT / "tests"))

import hostile_files as h

BUDGET = f"{h.BUDGET_S:.0f} s, {h.BUDGET_MB} MB"


@dataclass
class Row:
    kind: str
    file: str
    seconds: float  # wall clock
    cpu: float  # CPU seconds, its parsing process's included: what the budget counts
    peak_mb: float
    outcome: str
    base: float = 0.0  # CPU seconds of the same process reading a one-line file: not the file's

    @property
    def cost(self) -> float:
        return max(self.cpu - self.base, 0.0)

    @property
    def ok(self) -> bool:
        return self.cost <= h.BUDGET_S and self.peak_mb < h.BUDGET_MB

    @property
    def share(self) -> float:  # how much of the budget it used, the larger of the two
        return max(self.cost / h.BUDGET_S, self.peak_mb / h.BUDGET_MB)

    def figures(self) -> str:
        return f"{self.seconds:.1f} s ({self.cost:.1f} s CPU), {self.peak_mb:.0f} MB"


def _outcome(out: str) -> str:
    """The result's gist: its first line, or the first note saying what was cut or refused."""
    lines = [x for x in out.strip().splitlines() if x.strip()]
    for line in lines:
        if any(w in line for w in ("over", "cut", "read up to", "not read", "at most", "stopped")):
            return line.strip()[:150]
    return lines[0][:150] if lines else ""


def _read(kind: str, path: Path, *extra: str) -> Row:
    seconds, peak, cpu, out = h.measured_cpu(h.READ_FILE, str(path), *extra, timeout=600)
    name = f"{path.name} ({path.stat().st_size / 1e6:.1f} MB)"
    return Row(kind, name, seconds, cpu, peak, _outcome(out))


def _tags(root: Path, name: str) -> Row:
    seconds, peak, cpu, out = h.measured_cpu(h.TAGS, str(root), name, timeout=600)
    size = (root / name).stat().st_size
    refused = "tagged" if out.startswith(f"['{name}']") else out.strip().split("{", 1)[-1][:-1]
    kind = "source code (tree-sitter)"
    return Row(kind, f"{name} ({size / 1e3:.0f} KB)", seconds, cpu, peak, refused)


def _baselines(tmp: Path) -> dict[str, float]:
    """CPU seconds of each measuring process with nothing to do: a one-line file read, a
    one-line Python file tagged (its parsing process started, the grammar loaded)."""
    (tmp / "one.py").write_text("x = 1\n")
    tags = h.measured_cpu(h.TAGS, str(tmp), "one.py")[2]
    return {"tags": tags, "read": h.measured_cpu(h.READ_FILE, str(tmp / "one.py"))[2]}


def _hwm(pid: int) -> float:
    """A live process's peak memory in MB (Linux; 0 elsewhere)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        return int(status.split("VmHWM:")[1].split()[0]) / 1024
    except (OSError, IndexError):
        return 0.0


def _server(kind: str, args: list[str], init: dict[str, object], home: Path) -> Row:
    """A server fed one 200 MB line, then a request: the time until that request is answered,
    and the server's peak memory (wait4)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "OPENAI_"))}
    env.update(HOME=str(home), AGENT_SANDBOX="off", AGENT_BASE_URL="http://127.0.0.1:9")
    env.update(AGENT_API_KEY="bench", AGENT_MODEL="fake-model")
    cmd = [sys.executable, "-m", "agent", *args]
    proc = subprocess.Popen(
        cmd, cwd=home, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.stdin is not None
    assert proc.stdout is not None
    started = time.perf_counter()
    proc.stdin.write(b'{"jsonrpc": "2.0", "id": 7, "method": "x", "params": "')
    for _ in range(200):
        proc.stdin.write(b"x" * (1 << 20))
    proc.stdin.write(b'"}\n' + json.dumps({"jsonrpc": "2.0", "id": 1, **init}).encode() + b"\n")
    proc.stdin.flush()
    answers = [proc.stdout.readline(), proc.stdout.readline()]
    seconds = time.perf_counter() - started
    peak = _hwm(proc.pid)  # its own: a fork's peak would carry this process's
    proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)
    error = json.loads(answers[0]).get("error", {}).get("message", "")
    ok = '"id":1,"result"' in answers[1].decode().replace(" ", "")
    outcome = f"{error}; the next request answered: {ok}"
    cpu = usage.ru_utime + usage.ru_stime
    return Row(kind, "a 200 MB line", seconds, cpu, peak, outcome)


_STALL = """
import asyncio
from pathlib import Path
from agent.code.cache import TagCache
from agent.code.index import tags_for
async def main():
    work = asyncio.to_thread(tags_for, Path(sys.argv[1]), sys.argv[2:], TagCache(None))
    task, worst, last = asyncio.ensure_future(work), 0.0, time.monotonic()
    while not task.done():
        await asyncio.sleep(0.01)
        now = time.monotonic()
        worst, last = max(worst, now - last), now
    print(worst)
asyncio.run(main())
"""


def loop_stall(code: Path) -> float:
    """The event loop's longest stall (seconds) while the hostile code files are parsed in
    the background, as the repository map reads them (minutes before: the GIL held in C)."""
    names = sorted(p.name for p in code.iterdir())
    _, _, out = h.measured(_STALL, str(code), *names, timeout=600)
    return float(out.strip().splitlines()[-1])


def rows(tmp: Path) -> list[Row]:
    base = _baselines(tmp)
    code = tmp / "code"
    code.mkdir()
    out = [
        _tags(code, h.nested_calls_js(code / "nested.js").name),
        _tags(code, h.member_chain_js(code / "chain.js").name),
        _tags(code, h.parse_bomb_py(code / "bomb.py").name),
        _tags(code, h.memory_bomb_cpp(code / "gen.cpp").name),
    ]
    xlsx = h.xlsx_strings_bomb(tmp / "strings.xlsx")  # the issue's: 1.33 GB unpacked
    lie = h.lying_part(h.xlsx_strings_bomb(tmp / "lie.xlsx", 300 << 20), "xl/strings.bin")
    docs: list[tuple[str, Callable[[], Path], tuple[str, ...]]] = [
        ("spreadsheet", lambda: xlsx, ()),
        ("spreadsheet", lambda: h.xlsx_strings_bomb(tmp / "under.xlsx", (16 << 20) - 4096), ()),
        ("spreadsheet", lambda: lie, ()),
        ("spreadsheet", lambda: h.encrypted_office(tmp / "locked.xlsx"), ()),
        ("Word document", lambda: h.docx_bomb(tmp / "runs.docx"), ()),
        ("CSV", lambda: h.csv_one_line(tmp / "line.csv"), ()),
        ("image", lambda: h.png_bomb(tmp / "bomb.png"), ("images",)),
        ("notebook", lambda: h.notebook_bomb(tmp / "bomb.ipynb"), ()),
        ("PDF", lambda: h.pdf_bomb(tmp / "ops.pdf", 4 << 20), ()),
        ("PDF", lambda: h.pdf_bomb(tmp / "deflate.pdf", 400 << 20), ()),
        ("PDF", lambda: h.pdf_bomb(tmp / "pages.pdf", 900_000, 40, b"0 0 m 1 1 l S\n"), ()),
    ]
    for row in out:
        row.base = base["tags"]
    for kind, make, extra in docs:
        path = make()
        out.append(_read(kind, path, *extra))
        out[-1].base = base["read"]
        path.unlink()
    home = tmp / "home"
    home.mkdir()
    acp_init = {"method": "initialize", "params": {"protocolVersion": 1}}
    mcp_init = {"method": "initialize", "params": {"protocolVersion": "2025-06-18",
                "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}  # fmt: skip
    out.append(_server("editor protocol (agent --acp)", ["--acp"], acp_init, home))
    out.append(_server("MCP server (agent mcp serve)", ["mcp", "serve"], mcp_init, home))
    return out


def hostile_bench(table: Table) -> None:
    """The worst file of each kind, as rows of the table."""
    with tempfile.TemporaryDirectory() as tmp:
        every = rows(Path(tmp))
        stall = loop_stall(Path(tmp) / "code")
    ms = f"{stall * 1000:.0f} ms"
    table.add("event loop's longest stall while they are parsed", ms, "", "100 ms", stall < 0.1)
    worst: dict[str, Row] = {}
    for row in every:
        if row.kind not in worst or row.share > worst[row.kind].share:
            worst[row.kind] = row
    for row in worst.values():
        value = f"{row.figures()}: {row.file} → {row.outcome}"
        table.add(f"hostile {row.kind}", value, "", BUDGET, row.ok)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        every = rows(Path(tmp))
        stall = loop_stall(Path(tmp) / "code")
    print(f"| kind | file | wall (CPU of its own) | peak memory | outcome | within {BUDGET} |")
    print("|---|---|---|---|---|---|")
    for r in every:
        verdict = "within" if r.ok else "OVER"
        print(f"| {r.kind} | {r.file} | {r.seconds:.1f} s ({r.cost:.1f} s) | {r.peak_mb:.0f} MB "
              f"| {r.outcome} | {verdict} |")  # fmt: skip
    print(f"\nthe event loop's longest stall while the code was parsed: {stall * 1000:.0f} ms")
    return 0 if all(r.ok for r in every) and stall < 0.1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
