"""A session's skills: found once at start, their problems said, and what using one unlocks."""

from __future__ import annotations

from pathlib import Path

from agent.base.events import Notice, Sink
from agent.config.plugins import Plugin
from agent.config.trust import Trust
from agent.skills.catalog import Catalog, discover


def for_session(
    root: Path, trusted: bool | Trust, sink: Sink, plugins: tuple[Plugin, ...] = ()
) -> Catalog:
    """The skills of the user, (when `trusted`) the project and the plugins; problems with
    them said once."""
    skills = discover(root, trusted=trusted, plugins=plugins)
    for warning in skills.warnings:
        sink.emit(Notice(f"skill skipped: {warning}"))
    if skills.untrusted:
        sink.emit(
            Notice(
                f"{skills.untrusted} project skill(s) not loaded: {skills.why} "
                "(--trust-project, or answer the trust prompt)"
            )
        )
    return skills
