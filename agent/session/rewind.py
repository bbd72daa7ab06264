"""What /rewind does: list checkpoints; put the conversation, the files, or both back.

The conversation is replayed from the session file up to the checkpoint, so it can go back
past compactions, /clear and earlier rewinds.

Only files this session changed are restored: through its file tools, and files its bash
commands deleted or wrote over (`rm`, `unlink`, `git rm`, `mv` sources, what `mv`, `cp` or
`install` replaced, a file `>` truncated), brought back with their content and mode. A file
changed outside the agent since (a deleted file re-created, say) is not overwritten unless the
user confirms. Other changes made by bash commands are not tracked, and the listing says so.
Files are named by their path from the project root (src/main.py and tests/main.py differ).
Whatever the session file says, files are restored only inside the project, never through a
link, with no more than their permission bits (agent.session.restoring); the rest is refused
and said.
"""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass
from pathlib import Path

from agent.base.messages import Message
from agent.context.mentions import without_attachments
from agent.session.checkpoints import Checkpoint, checkpoints, own_words
from agent.session.restoring import FilePlan, plan_restore, restore
from agent.session.store import SessionFile, load, messages_of

BASH_NOTE = (
    "of bash commands, only the files they delete or write over (rm, unlink, git rm, mv, cp, "
    "install, > file) are tracked; their other changes are not restored"
)


def listing(store: SessionFile, root: Path) -> list[Checkpoint]:
    """This session's checkpoints, oldest first; `root` is the project root files are named from."""
    cps = checkpoints(load(store.path).records)
    real = os.path.realpath(root)  # snapshots name files by their real path
    for cp in cps:
        cp.root = real
    return cps


def describe(cp: Checkpoint, chars: int = 60) -> str:
    """One line: number, time, the prompt in the user's words (`chars`), the files since."""
    when = datetime.datetime.fromtimestamp(cp.time).strftime("%H:%M:%S")
    prompt = " ".join(own_words(without_attachments(cp.prompt)).split())[:chars]
    shown = sorted(cp.files, key=lambda p: p not in cp.deleted)[:3]  # deletions first
    names = ", ".join(_name(p, cp) + (" (deleted)" if p in cp.deleted else "") for p in shown)
    more = f" +{len(cp.files) - 3}" if len(cp.files) > 3 else ""
    files = f"changed since: {names}{more}" if cp.files else "no file changes since"
    untracked = f" · not tracked: {', '.join(cp.untracked)}" if cp.untracked else ""
    return f"#{cp.n} {when} · {prompt} · {files}{untracked}"


def _name(path: str, cp: Checkpoint) -> str:
    """The path from the project root; a file outside it keeps its full path."""
    if cp.root and path.startswith(cp.root.rstrip(os.sep) + os.sep):
        return os.path.relpath(path, cp.root)
    return path


@dataclass
class Outcome:
    conversation: bool = False
    restored: list[str] | None = None
    conflicts: list[str] | None = None
    message: str = ""


def rewind_conversation(store: SessionFile, cp: Checkpoint) -> tuple[list[Message], Outcome]:
    """The conversation as it was just before checkpoint `cp`'s user message (without the
    system prompt), recorded as a rewind; the caller puts it in the agent (Run.replace_history).

    The history is replayed from the session file up to that checkpoint, so this works after
    compactions, /clear and earlier rewinds alike."""
    records = load(store.path).records
    at = next(i for i, r in enumerate(records) if r.get("t") == "checkpoint" and r.get("n") == cp.n)
    history = [m for m in messages_of(records[:at]) if m.get("role") != "system"]
    store.append({"t": "rewind", "reason": "rewind", "checkpoint": cp.n, "messages": history})
    return history, Outcome(conversation=True, message=f"conversation rewound to before #{cp.n}")


def file_plans(store: SessionFile, cp: Checkpoint) -> list[FilePlan]:
    """What restoring the files of `cp` would do; files outside the project are refused."""
    return plan_restore(load(store.path).records, cp.n, store.root)


def rewind_files(store: SessionFile, cp: Checkpoint, force: bool = False) -> Outcome:
    """Restore files changed since `cp`; conflicts are skipped unless `force`."""
    plans = file_plans(store, cp)
    conflicts = [p.path for p in plans if p.conflict]
    restored = restore(store, plans, force=force)
    back = [_name(p.path, cp) for p in plans if p.missing and p.restore_to and p.path in restored]
    msg = f"restored {len(restored)} file(s)"
    if back:
        msg += f", {len(back)} of them deleted: {', '.join(back[:5])}"
        msg += f" +{len(back) - 5}" if len(back) > 5 else ""
    if conflicts and not force:
        msg += f"; skipped {len(conflicts)} changed outside the agent since"
    failed = [
        p.path
        for p in plans
        if p.path not in restored and not p.refused and (force or not p.conflict)
    ]
    if failed:
        msg += "; could not write " + ", ".join(failed)
    refused = [f"{_name(p.path, cp)} ({p.refused})" for p in plans if p.refused]
    if refused:
        more = f" +{len(refused) - 5}" if len(refused) > 5 else ""
        msg += "; refused, not restored: " + ", ".join(refused[:5]) + more
    if cp.untracked:
        msg += "; not snapshotted, not restored: " + ", ".join(cp.untracked)
    return Outcome(restored=restored, conflicts=conflicts, message=f"{msg} ({BASH_NOTE})")
