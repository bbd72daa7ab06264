"""What /rewind does: list checkpoints; put the conversation, the files, or both back.

The conversation can go back past a compaction: the session file still holds every message,
so the history at a checkpoint is replayed from it.

Only files this session changed through its file tools are restored; a file changed outside
the agent since is not overwritten unless the user confirms. Changes made by bash commands are
not tracked, and the listing says so.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from agent.checkpoints import Checkpoint, FilePlan, checkpoints, plan_restore, restore
from agent.session import load, messages_of

BASH_NOTE = "changes made by bash commands are not tracked and are not restored"


def listing(run: Any) -> list[Checkpoint]:
    """This session's checkpoints, oldest first."""
    return checkpoints(load(run.store.path).records)


def describe(cp: Checkpoint) -> str:
    when = datetime.datetime.fromtimestamp(cp.time).strftime("%H:%M:%S")
    prompt = " ".join(cp.prompt.split())[:60]
    files = f"{len(cp.files)} file(s) changed since" if cp.files else "no file changes since"
    return f"#{cp.n} {when} · {prompt} · {files}"


def _compacted_since(records: list[dict[str, Any]], n: int) -> bool:
    seen = False
    for rec in records:
        if rec.get("t") == "checkpoint" and rec.get("n") == n:
            seen = True
        elif seen and rec.get("t") == "compact":
            return True
    return False


@dataclass
class Outcome:
    conversation: bool = False
    restored: list[str] | None = None
    conflicts: list[str] | None = None
    message: str = ""


def rewind_conversation(run: Any, cp: Checkpoint) -> Outcome:
    """Drop everything from checkpoint `cp`'s user message on (recorded in the session)."""
    records = load(run.store.path).records
    agent = run.agent
    if _compacted_since(records, cp.n):
        # The live history lost those turns to a summary; the session file still has them.
        at = next(
            i for i, r in enumerate(records) if r.get("t") == "checkpoint" and r.get("n") == cp.n
        )
        history = [m for m in messages_of(records[:at]) if m.get("role") != "system"]
        agent.messages[1:] = history
        run.store.append(
            {"t": "rewind", "reason": "rewind", "checkpoint": cp.n, "messages": history}
        )
    else:
        del agent.messages[cp.msg_index :]
        run.store.append({"t": "truncate", "keep": cp.msg_index - 1, "checkpoint": cp.n})
    agent.meter.reset()  # the history changed under the reported usage
    return Outcome(conversation=True, message=f"conversation rewound to before #{cp.n}")


def file_plans(run: Any, cp: Checkpoint) -> list[FilePlan]:
    return plan_restore(load(run.store.path).records, cp.n)


def rewind_files(run: Any, cp: Checkpoint, force: bool = False) -> Outcome:
    """Restore files changed since `cp`; conflicts are skipped unless `force`."""
    plans = file_plans(run, cp)
    conflicts = [p.path for p in plans if p.conflict]
    restored = restore(run.store, plans, force=force)
    msg = f"restored {len(restored)} file(s)"
    if conflicts and not force:
        msg += f"; skipped {len(conflicts)} changed outside the agent since"
    return Outcome(restored=restored, conflicts=conflicts, message=f"{msg} ({BASH_NOTE})")
