"""Opening a session's store: a new one, or one resumed with its history restored; old sessions
pruned by the retention settings (never the one resumed), and what that removed, to be said."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.base.messages import Message
from agent.config.view import Retention
from agent.session.checkpoints import Snapshots
from agent.session.listing import prune_notice
from agent.session.resume import restore
from agent.session.store import SessionFile, new_id, prune, summarize


@dataclass
class Opened:
    store: SessionFile
    snapshots: Snapshots
    history: list[Message]  # the resumed conversation ([] for a new session)
    pruned: str  # what pruning removed, to be said ("" when nothing)
    ran_in: str  # where a resumed session last ran ("" for a new one)


def open_store(root: Path, resume_id: str | None, retention: Retention) -> Opened:
    store = SessionFile(root, resume_id or new_id())
    snapshots = Snapshots(store)
    history = restore(store, snapshots) if resume_id else []
    before = summarize(store.path) if resume_id else None
    keep, days = retention.keep, retention.max_age_days  # the user's, or a trusted project's
    removed = prune(root, keep, days, protect=store.id)  # never the one being resumed
    notice = prune_notice(removed, keep, days) if removed else ""
    return Opened(store, snapshots, history, notice, before.cwd if before is not None else "")
