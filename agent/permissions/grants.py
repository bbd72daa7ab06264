"""What a skill's or a command's `allowed-tools` may grant for the turn it runs in.

Only inside the workspace: a grant never allows a call on a path outside it (a file tool's
path, a command's path arguments and redirections), and never a protected path (the decision
asks about those before any rule). And only once the user has seen it: the first time a skill
or command is used at its current content, a call its grant would allow is asked about, with
the grant named; a yes confirms the grant for that content (its file's digest, remembered in
`~/.agent/grants.json`), so a later change of the file asks again. Without a terminal an
unconfirmed grant allows nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agent.config.trust import digest, digests, record_digest
from agent.permissions.facts import Decision

FILE = "grants.json"


@dataclass(frozen=True)
class Grant:
    """The rules a skill or command allows for its turn, and where they come from."""

    rules: tuple[str, ...] = ()
    label: str = ""  # "skill csv-report", "command /deploy"
    source: str = ""  # the file that declares them ("": the user's own, e.g. a test)
    digest: str = ""  # its content when it was read

    @classmethod
    def of_file(cls, rules: tuple[str, ...], label: str, path: Path) -> Grant:
        try:
            content = digest(path.read_bytes())
        except OSError:
            content = "unreadable"
        return cls(tuple(rules), label, os.path.abspath(path), content)

    @classmethod
    def of_text(cls, rules: tuple[str, ...], label: str, path: Path, text: str) -> Grant:
        """The grant of a file already read as `text` (the digest of what was used)."""
        return cls(tuple(rules), label, os.path.abspath(path), digest(text.encode("utf-8")))


def confirmed(grant: Grant) -> bool:
    """Whether the user said yes to this grant at this content before."""
    return not grant.source or digests(FILE).get(grant.source) == grant.digest


def confirm(grant: Grant) -> None:
    """Remember the user's yes to `grant` (a failure to save only means asking again)."""
    if grant.source:
        record_digest(FILE, grant.source, grant.digest)


def granted_by(rule: str, grants: list[Grant]) -> Grant | None:
    """The first of the turn's grants that holds `rule`."""
    return next((g for g in grants if rule in g.rules), None)


def limit(d: Decision, grant: Grant | None, inside: bool) -> Decision:
    """A decision allowed by `grant`'s rule, as far as a grant may go: asked about outside the
    workspace, or while the grant is not confirmed."""
    if grant is None or d.kind != "allow" or d.source != "rule":
        return d
    if not inside:
        why = f"{grant.label}'s allowed-tools ({d.rule}) never reach outside the workspace"
        return Decision("ask", why, "outside")
    if not confirmed(grant):
        why = (
            f"{grant.label} allows this with its allowed-tools ({d.rule}), used here for the "
            "first time as it is now: yes confirms its allowed-tools"
        )
        return Decision("ask", why, "grant", d.rule)
    return d
