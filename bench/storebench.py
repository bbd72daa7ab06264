"""Sessions: appending a record and loading a 5 000-record session."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench.common import Table, stat


def store_bench(table: Table, records: int = 5000) -> None:
    from agent.session import SessionFile, load

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
