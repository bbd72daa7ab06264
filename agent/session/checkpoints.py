"""Checkpoints and file snapshots: what /rewind restores (SPEC §8).

Before a file tool changes a file, its previous bytes (or its absence) are stored with the
session, content-addressed; after the change, the hash of what the agent wrote is recorded too,
so a restore can tell when a file was changed outside the agent since. A bash command is read
before it runs (agent/checkpoint_shell.py): the files it would delete or write over (`rm`,
`unlink`, `git rm`, `mv` sources, the destinations of `mv`/`cp`/`install`, `> file`) are
snapshotted the same way, with what was there after it ran; its other changes (edits, new
files) are not tracked. A checkpoint lists a file only when it really changed after the
snapshot (a refused edit, or an `rm -i` answered no, changed nothing).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.base.record import Call, Next, Tool, ToolContext, ToolResult
from agent.permissions.paths import Workspace
from agent.session.checkpoint_shell import doomed
from agent.session.records import is_int, snap_of, written_of
from agent.session.store import SessionFile


def _read(path: Path) -> bytes | None:
    """The file's bytes, None when there is no regular file (a FIFO is never waited on);
    other errors (unreadable, a name too long) raise: "absent" would make /rewind delete a
    file it could not read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    with os.fdopen(fd, "rb") as f:
        return f.read() if stat.S_ISREG(os.fstat(fd).st_mode) else None


def _hash(path: Path) -> str | None:
    """The content's hash, None when absent or unreadable."""
    try:
        data = _read(path)
    except OSError:
        return None
    return hashlib.sha256(data).hexdigest() if data is not None else None


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


def _edited(tool: Tool | None, call: Call, ctx: ToolContext) -> list[Path]:
    """The files an edit tool's call changes (its record says which argument names them)."""
    target = tool.target if tool is not None and tool.kind == "edit" else None
    if target is None or target.what not in ("file", "files"):
        return []
    if not isinstance(call.args.get(target.arg), str):
        return []
    out = []
    for raw in target.paths(call.args):
        p = Path(raw).expanduser()
        out.append((p if p.is_absolute() else ctx.cwd / p).resolve())
    return out


PROMPT_CHARS = 4000  # of the user's words a checkpoint keeps: a rewind puts them back to edit
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
    """Dispatch middleware that snapshots files before file tools change them, and before
    bash commands delete or overwrite them."""

    def __init__(
        self,
        store: SessionFile,
        workspace: Workspace | None = None,
        tools: dict[str, Tool] | None = None,
    ) -> None:
        self.store = store
        self.tools = tools if tools is not None else {}  # the registry: what each call edits
        self.checkpoint = 0
        self.workspace = workspace  # where bash deletions are tracked; None: the call's cwd

    def begin_turn(self, prompt: str, msg_index: int) -> None:
        """Record a checkpoint before a user turn (msg_index = history length before it)."""
        self.checkpoint += 1
        self.store.append(
            {
                "t": "checkpoint",
                "n": self.checkpoint,
                "time": time.time(),
                "prompt": own_words(prompt)[:PROMPT_CHARS],
                "msg_index": msg_index,
            }
        )

    async def __call__(self, call: Call, ctx: ToolContext, nxt: Next) -> ToolResult:
        tool = self.tools.get(call.name)
        target = tool.target if tool is not None else None
        command = call.args.get(target.arg) if target and target.what == "command" else None
        if isinstance(command, str):
            return await self._bash(call, command, ctx, nxt)
        paths = []
        for path in _edited(tool, call, ctx):
            try:
                before = _read(path)
            except OSError:  # nothing to snapshot; the tool itself reports what is wrong
                continue
            blob = self.store.put_blob(before) if before is not None else None
            rec = {"t": "snapshot", "n": self.checkpoint, "path": str(path), "blob": blob}
            self.store.append({**rec, "mode": _mode(path)} if blob else rec)
            paths.append(path)
        result = await nxt(call, ctx)
        for path in paths:
            self.store.append({"t": "written", "path": str(path), "hash": _hash(path)})
        return result

    async def _bash(self, call: Call, command: str, ctx: ToolContext, nxt: Next) -> ToolResult:
        """Snapshot what the command would delete or overwrite; afterwards record what is there."""
        found = doomed(command, ctx.cwd, self.workspace)
        if found is None:
            return await nxt(call, ctx)
        n, taken = self.checkpoint, []
        for path, st in found.files.items():
            try:
                data = path.read_bytes()
            except OSError:
                continue
            blob = self.store.put_blob(data)
            mode = stat.S_IMODE(st.st_mode)
            rec = {"t": "snapshot", "n": n, "path": str(path), "blob": blob, "mode": mode}
            self.store.append({**rec, "by": "bash"})
            taken.append(path)
        for shown, why in found.skipped:
            self.store.append({"t": "untracked", "n": n, "path": shown, "why": why})
        background = call.args.get("run_in_background") is True
        try:
            return await nxt(call, ctx)
        finally:  # also when interrupted: the command may have run
            for path in taken:  # a background command has not run yet: expect it done
                digest = None if background else _hash(path)
                self.store.append(
                    {"t": "written", "path": str(path), "hash": digest, "n": n, "by": "bash"}
                )


@dataclass
class Checkpoint:
    n: int
    time: float
    prompt: str
    msg_index: int
    files: list[str] = field(default_factory=list)  # changed at or after this checkpoint
    deleted: list[str] = field(default_factory=list)  # of those, deleted by a bash command
    untracked: list[str] = field(default_factory=list)  # "path (why)": too large to snapshot
    root: str = ""  # the project root, for showing paths relative to it


def _checkpoint(rec: dict[str, Any]) -> Checkpoint | None:
    n, at, prompt, index = rec.get("n"), rec.get("time"), rec.get("prompt"), rec.get("msg_index")
    if not (is_int(n) and is_int(index) and isinstance(at, (int, float))):
        return None
    return Checkpoint(n, float(at), prompt if isinstance(prompt, str) else "", index)


def checkpoints(records: list[dict[str, Any]]) -> list[Checkpoint]:
    """Checkpoints in order, each with the files the agent changed from then on.

    A snapshot counts only if what was there after the call differs from it (a failed edit,
    or a file a bash command left alone, is not a change)."""
    out: list[Checkpoint] = []
    pending: dict[str, tuple[int, str | None]] = {}  # snapshots awaiting their outcome

    def add(n: int, path: str, deleted: bool = False) -> None:
        for cp in out:
            if cp.n <= n and path not in cp.files:
                cp.files.append(path)
            if cp.n <= n and deleted and path not in cp.deleted:
                cp.deleted.append(path)

    for rec in records:  # records of another shape (a file edited by hand) are skipped
        t = rec.get("t")
        if t == "checkpoint" and (cp := _checkpoint(rec)) is not None:
            out.append(cp)
        elif t == "snapshot" and (snap := snap_of(rec)) is not None:
            pending[snap.path] = (snap.n, snap.blob)
        elif t == "written" and (w := written_of(rec)) is not None and w[0] in pending:
            n, blob = pending.pop(w[0])
            if w[1] != blob:
                add(n, w[0], deleted=rec.get("by") == "bash" and w[1] is None)
        elif t == "untracked" and is_int(rec.get("n")):
            for cp in out:
                if cp.n <= rec["n"]:
                    cp.untracked.append(f"{rec.get('path')} ({rec.get('why')})")
    for path, (n, _) in pending.items():  # no outcome recorded (killed while running)
        add(n, path)
    return out
