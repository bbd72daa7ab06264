"""Sessions: appending a record, loading a 5 000-record session, and the start-up cost of
many stored sessions."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench.common import Table, stat


def store_bench(table: Table, records: int = 5000) -> None:
    from agent.session.store import SessionFile, load

    with tempfile.TemporaryDirectory() as tmp:
        store = SessionFile(Path(tmp), "bench")
        msg = {
            "role": "assistant",
            "content": "x" * 400,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "src/app.py"}'},
                }
            ],
        }
        samples = []
        for _ in range(records):
            t0 = time.perf_counter()
            store.append({"t": "message", "message": msg})
            samples.append(time.perf_counter() - t0)
        s = stat(samples)
        table.add(
            "session append (1 record)",
            f"{s.median * 1e6:.0f} µs ({s.low * 1e6:.0f}–{s.high * 1e6:.0f})",
            "",
            "1 ms",
            s.median <= 0.001,
        )
        loads = []
        for _ in range(7):
            t0 = time.perf_counter()
            loaded = load(store.path)
            loads.append(time.perf_counter() - t0)
        assert len(loaded.records) == records
        s = stat(loads)
        table.add(f"session load ({records} records)", s.fmt(), "", "200 ms", s.median <= 0.2)
        housekeeping(table, store.path.read_bytes()[: 600 << 10])


def housekeeping(table: Table, sample: bytes, sessions: int = 150) -> None:
    """What every start pays for stored sessions (prune), and what -c / -r pay to list them,
    with `sessions` sessions of 600 KB each."""
    from agent.session.store import list_sessions, prune

    sample = sample[: sample.rfind(b"\n") + 1]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".agent" / "sessions").mkdir(parents=True)
        for n in range(sessions):
            (root / ".agent" / "sessions" / f"s{n:03d}.jsonl").write_bytes(sample)
        prunes, lists = [], []
        for _ in range(5):
            t0 = time.perf_counter()
            prune(root, keep=1000, max_age_days=3650)
            prunes.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            found = list_sessions(root)
            lists.append(time.perf_counter() - t0)
        assert len(found) == sessions
        s = stat(prunes)
        table.add(f"start-up prune ({sessions} sessions)", s.fmt(), "", "—", None)
        table.add(f"list sessions for -c/-r ({sessions})", stat(lists).fmt(), "", "—", None)
