"""Checkpoints and file snapshots: what /rewind restores (SPEC §8).

Before a file tool changes a file, its previous bytes (or its absence) are stored with the
session, content-addressed; after the change, the hash of what the agent wrote is recorded too,
so a restore can tell when a file was changed outside the agent since. Changes made by bash
commands are not tracked.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.dispatch import Call, Next
from agent.session import SessionFile
from agent.tools import ToolContext, ToolResult

FILE_WRITERS = ("write_file", "edit_file")


def _read(path: Path) -> bytes | None:
    """The file's bytes, None when there is no file; other errors (unreadable, a name too
    long) raise: "absent" would make /rewind delete a file it could not read."""
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _target(call: Call, ctx: ToolContext) -> Path | None:
    raw = call.args.get("path")
    if call.name not in FILE_WRITERS or not isinstance(raw, str):
        return None
    p = Path(raw).expanduser()
    return (p if p.is_absolute() else ctx.cwd / p).resolve()


_PREFIXES = re.compile(r"\A\s*(?:<env>.*?</env>|\[Plan mode is o(?:n|ff):[^\]]*\])\s*", re.S)


def own_words(content: str) -> str:
    """The user's text of a message, without the environment block and mode notes the agent
    puts before it (what pickers and /rewind show)."""
    while True:
        m = _PREFIXES.match(content)
        if not m or not m.end():
            return content
        content = content[m.end() :]


class Snapshots:
    """Dispatch middleware that snapshots files before file tools change them."""

    def __init__(self, store: SessionFile) -> None:
        self.store = store
        self.checkpoint = 0

    def begin_turn(self, prompt: str, msg_index: int) -> None:
        """Record a checkpoint before a user turn (msg_index = history length before it)."""
        self.checkpoint += 1
        self.store.append(
            {
                "t": "checkpoint",
                "n": self.checkpoint,
                "time": time.time(),
                "prompt": own_words(prompt)[:200],
                "msg_index": msg_index,
            }
        )

    async def __call__(self, call: Call, ctx: ToolContext, nxt: Next) -> ToolResult:
        path = _target(call, ctx)
        if path is None:
            return await nxt(call, ctx)
        try:
            before = _read(path)
        except OSError:  # nothing to snapshot; the tool itself reports what is wrong
            return await nxt(call, ctx)
        blob = self.store.put_blob(before) if before is not None else None
        self.store.append({"t": "snapshot", "n": self.checkpoint, "path": str(path), "blob": blob})
        result = await nxt(call, ctx)
        try:
            after = _read(path)
        except OSError:
            after = None
        digest = hashlib.sha256(after).hexdigest() if after is not None else None
        self.store.append({"t": "written", "path": str(path), "hash": digest})
        return result


@dataclass
class Checkpoint:
    n: int
    time: float
    prompt: str
    msg_index: int
    files: list[str] = field(default_factory=list)  # changed at or after this checkpoint


def checkpoints(records: list[dict[str, Any]]) -> list[Checkpoint]:
    """Checkpoints in order, each with the files the agent changed from then on."""
    out: list[Checkpoint] = []
    for rec in records:
        if rec.get("t") == "checkpoint":
            out.append(Checkpoint(rec["n"], rec["time"], rec["prompt"], rec["msg_index"]))
        elif rec.get("t") == "snapshot":
            for cp in out:
                if cp.n <= rec["n"] and rec["path"] not in cp.files:
                    cp.files.append(rec["path"])
    return out


@dataclass
class FilePlan:
    path: str
    restore_to: str | None  # blob hash of the content before the checkpoint; None = absent
    conflict: bool  # changed outside the agent since the agent last wrote it


def plan_restore(records: list[dict[str, Any]], n: int) -> list[FilePlan]:
    """For each file this session changed at or after checkpoint n: what to restore."""
    first_before: dict[str, str | None] = {}
    last_written: dict[str, str | None] = {}
    for rec in records:
        if rec.get("t") == "snapshot" and rec["n"] >= n and rec["path"] not in first_before:
            first_before[rec["path"]] = rec["blob"]
        elif rec.get("t") == "written":
            last_written[rec["path"]] = rec["hash"]
    plans = []
    for path, blob in first_before.items():
        now = _read(Path(path))
        now_hash = hashlib.sha256(now).hexdigest() if now is not None else None
        plans.append(FilePlan(path, blob, now_hash != last_written.get(path)))
    return plans


def restore(store: SessionFile, plans: list[FilePlan], force: bool = False) -> list[str]:
    """Put files back; skips conflicts unless forced. Returns the paths restored."""
    done = []
    for plan in plans:
        if plan.conflict and not force:
            continue
        path = Path(plan.path)
        if plan.restore_to is None:
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(store.get_blob(plan.restore_to))
        after = _read(path)
        digest = hashlib.sha256(after).hexdigest() if after is not None else None
        store.append({"t": "written", "path": plan.path, "hash": digest})
        done.append(plan.path)
    return done
