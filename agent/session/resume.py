"""Choosing a session to continue: `-c` (latest here), `-r ID`, `-r` (a picker)."""

from __future__ import annotations

import datetime
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from agent.base.messages import Message
from agent.base.visible import visible
from agent.config.settings import ConfigError
from agent.context.mentions import without_attachments
from agent.session.checkpoints import Snapshots, own_words
from agent.session.recorder import repair_history
from agent.session.records import is_int
from agent.session.salvage import check
from agent.session.store import (
    SessionFile,
    Summary,
    in_use,
    list_sessions,
    load,
    messages_of,
    resumable,
    sessions_dir,
)


def restore(store: SessionFile, snapshots: Snapshots) -> list[Message]:
    """The stored conversation (without its system prompt), repaired into a valid request."""
    records = load(store.path).records
    numbers = [r.get("n") for r in records if r.get("t") == "checkpoint"]
    snapshots.checkpoint = max((n for n in numbers if is_int(n)), default=0)
    stored = [m for m in messages_of(records) if m.get("role") != "system"]
    repaired = repair_history(stored)
    if repaired != stored:  # record it, so the store's history and the agent's stay one list
        store.append({"t": "rewind", "reason": "repair", "messages": repaired})
    return repaired


class PickInterrupted(ConfigError):
    """Ctrl-C at the picker: the program exits 130, like any interrupt."""


def describe(s: Summary, chars: int = 60) -> str:
    """One line: when, turns, cost, id and the first prompt in the user's words (`chars`)."""
    when = datetime.datetime.fromtimestamp(s.mtime).strftime("%Y-%m-%d %H:%M")
    words = own_words(without_attachments(s.first_prompt))
    prompt = " ".join(words.split())[:chars] or "(no prompt)"
    cost = "$?" if s.cost is None else f"${s.cost:.4f}"
    turns = f"{s.turns:>3} turn{'s' if s.turns != 1 else ' '}"
    return f"{when}  {turns}  {cost:>7}  {s.id}  {prompt}"


def find(root: Path, cwd: Path, ident: str | None) -> Summary:
    """The session for `-c` (ident None) or `-r ID` (an id or unique prefix); ConfigError else."""
    if ident is None:
        here = resumable(root, cwd)
        if not here:
            raise ConfigError(f"no previous session in {cwd} to continue")
        return here[0]
    matches = [s for s in list_sessions(root) if s.id.startswith(ident)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise ConfigError(f"no session {ident!r} in {sessions_dir(root)} (agent -r lists them)")
    raise ConfigError(f"session id {ident!r} is ambiguous: {', '.join(s.id for s in matches)}")


Choose = Callable[[str, list[str]], "int | None"]  # a picker: (title, rows) → row or None


def pick(
    root: Path,
    cwd: Path,
    out: TextIO = sys.stderr,
    inp: TextIO = sys.stdin,
    choose: Choose | None = None,
) -> Summary:
    """This directory's sessions, newest first: in `choose` (the REPL's arrow-key picker),
    else listed with a number read."""
    here = resumable(root, cwd)[: 50 if choose else 20]
    if not here:
        raise ConfigError(f"no previous session in {cwd} to resume")
    if not inp.isatty():
        listing = "\n".join(f"  {visible(describe(s), '')}" for s in here)
        raise ConfigError(f"agent -r needs an ID without a terminal; sessions here:\n{listing}")
    if choose is not None:
        try:
            n = choose("resume which?", [describe(s, 300) for s in here])
        except KeyboardInterrupt:
            raise PickInterrupted("no session chosen") from None
        if n is None:
            raise ConfigError("no session chosen")
        return here[n]
    for n, s in enumerate(here, 1):
        print(f"{n:>3}. {visible(describe(s), '')}", file=out)  # a session's own words
    try:  # the question too: Ctrl-C pressed as it appears may land before readline is called
        print("resume which? [1] ", end="", file=out, flush=True)
        line = inp.readline()
    except KeyboardInterrupt:
        print(file=out)
        raise PickInterrupted("no session chosen") from None
    if not line:  # Ctrl-D: no choice made
        print(file=out)
        raise ConfigError("no session chosen")
    answer = line.strip() or "1"
    if not answer.isdigit() or not 1 <= int(answer) <= len(here):
        raise ConfigError(f"no session number {answer!r}")
    return here[int(answer) - 1]


def chosen(
    args: object, root: Path, cwd: Path, out: TextIO = sys.stderr, choose: Choose | None = None
) -> str | None:
    """The session id that `-c` / `-r [ID]` ask for, or None for a new session. Lines of its
    file that cannot be read are said on `out` (and the file kept) before anything opens it.
    A --session-id must be new; with -c/-r it names the fork (--fork-session)."""
    new, fork = getattr(args, "session_id", None), getattr(args, "fork_session", False)
    resuming = getattr(args, "cont", False) or getattr(args, "resume", None) is not None
    if new and resuming and not fork:
        raise ConfigError("--session-id with --continue or --resume needs --fork-session")
    if new and (sessions_dir(root) / f"{new}.jsonl").exists():
        raise ConfigError(f"--session-id {new}: that session exists (agent -r {new} resumes it)")
    if getattr(args, "cont", False):
        found = find(root, cwd, None).id
    else:
        ident = getattr(args, "resume", None)
        if ident is None:
            return None
        found = (find(root, cwd, ident) if ident else pick(root, cwd, choose=choose)).id
    if in_use(root, found):
        raise ConfigError(f"session {found} is in use by another agent; finish that one first")

    lost = check(sessions_dir(root) / f"{found}.jsonl")
    if lost:
        print(f"agent: warning: {visible(lost)}", file=out)
    return found
