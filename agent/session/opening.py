"""Opening a session's store: a new one, or one resumed with its history restored; old sessions
pruned by the retention settings (never the one resumed), and what that removed, to be said."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agent.base.messages import Message
from agent.config import safefile
from agent.config.view import Retention
from agent.session.checkpoints import Snapshots
from agent.session.listing import prune_notice
from agent.session.resume import restore
from agent.session.store import SessionFile, load, new_id, prune, sessions_dir, summarize


@dataclass
class Opened:
    store: SessionFile
    snapshots: Snapshots
    history: list[Message]  # the resumed conversation ([] for a new session)
    pruned: str  # what pruning removed, to be said ("" when nothing)
    ran_in: str  # where a resumed session last ran ("" for a new one)


def open_store(
    root: Path, resume_id: str | None, retention: Retention, new: str = "", fork: bool = False
) -> Opened:
    """The session's store: `resume_id`'s (with `fork`, a copy of it under a new id), or a new
    one; `new` is the id a new or forked session takes (--session-id; "" = a fresh one)."""
    if resume_id and fork:
        store = SessionFile(root, new or new_id())
        copy_session(sessions_dir(root) / f"{resume_id}.jsonl", store)
    else:
        store = SessionFile(root, resume_id or new or new_id())
    snapshots = Snapshots(store)
    history = restore(store, snapshots) if resume_id else []
    before = summarize(store.path) if resume_id else None
    keep, days = retention.keep, retention.max_age_days  # the user's, or a trusted project's
    removed = prune(root, keep, days, protect=store.id)  # never the one being resumed
    notice = prune_notice(removed, keep, days) if removed else ""
    return Opened(store, snapshots, history, notice, before.cwd if before is not None else "")


def copy_session(path: Path, to: SessionFile) -> None:
    """--fork-session: every record of the session at `path` into `to`, and the files kept
    beside it (file snapshots for /rewind, long tool outputs); never through a link."""
    for record in load(path).records:
        to.append(record)
    blobs = path.with_suffix(".files")
    names = sorted(os.listdir(blobs)) if blobs.is_dir() and not blobs.is_symlink() else []
    for name in names:
        try:
            data = safefile.read_bytes(to.base, blobs / name)
            safefile.write_atomic(to.base, to.blob_dir / name, data, 0o600, sync=False)
        except OSError:  # a link, a folder, a file gone: not part of the session
            continue
