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
from agent.session.store import SessionFile


def _read(path: Path) -> bytes | None:
    """The file's bytes, None when there is no file; other errors (unreadable, a name too
    long) raise: "absent" would make /rewind delete a file it could not read."""
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _hash(path: Path, strict: bool = False) -> str | None:
    """The content's hash, None when absent (or, unless `strict`, unreadable)."""
    try:
        data = _read(path)
    except OSError:
        if strict:
            raise
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
                "prompt": own_words(prompt)[:200],
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

    for rec in records:
        t = rec.get("t")
        if t == "checkpoint":
            out.append(Checkpoint(rec["n"], rec["time"], rec["prompt"], rec["msg_index"]))
        elif t == "snapshot":
            pending[rec["path"]] = (rec["n"], rec["blob"])
        elif t == "written" and rec["path"] in pending:
            n, blob = pending.pop(rec["path"])
            if rec["hash"] != blob:
                add(n, rec["path"], deleted=rec.get("by") == "bash" and rec["hash"] is None)
        elif t == "untracked":
            for cp in out:
                if cp.n <= rec["n"]:
                    cp.untracked.append(f"{rec['path']} ({rec['why']})")
    for path, (n, _) in pending.items():  # no outcome recorded (killed while running)
        add(n, path)
    return out


@dataclass
class FilePlan:
    path: str
    restore_to: str | None  # blob hash of the content before the checkpoint; None = absent
    conflict: bool  # changed outside the agent since the agent last wrote it
    mode: int | None = None  # permission bits before the checkpoint, when recorded
    missing: bool = False  # absent now (deleted): restoring brings it back


def plan_restore(records: list[dict[str, Any]], n: int) -> list[FilePlan]:
    """For each file this session changed at or after checkpoint n: what to restore (files
    already as they were, content and mode, need nothing)."""
    first_before: dict[str, dict[str, Any]] = {}
    last_written: dict[str, str | None] = {}
    for rec in records:
        if rec.get("t") == "snapshot" and rec["n"] >= n and rec["path"] not in first_before:
            first_before[rec["path"]] = rec
        elif rec.get("t") == "written":
            last_written[rec["path"]] = rec["hash"]
    plans = []
    for path, snap in first_before.items():
        now_hash, blob, mode = _hash(Path(path), strict=True), snap["blob"], snap.get("mode")
        if now_hash == blob and (blob is None or mode is None or _mode(Path(path)) == mode):
            continue
        # A directory where the file was is someone else's change too.
        conflict = now_hash != last_written.get(path) or os.path.isdir(path)
        plans.append(FilePlan(path, blob, conflict, mode, missing=now_hash is None))
    return plans


def restore(store: SessionFile, plans: list[FilePlan], force: bool = False) -> list[str]:
    """Put files back (content and mode); skips conflicts unless forced, and files that
    cannot be written. Returns the paths restored."""
    done = []
    for plan in plans:
        if plan.conflict and not force:
            continue
        path = Path(plan.path)
        try:
            if plan.restore_to is None:
                path.unlink(missing_ok=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(store.get_blob(plan.restore_to))
                if plan.mode is not None:
                    path.chmod(plan.mode)
        except OSError:
            continue  # the caller reports it as not restored
        store.append({"t": "written", "path": plan.path, "hash": _hash(path)})
        done.append(plan.path)
    return done
