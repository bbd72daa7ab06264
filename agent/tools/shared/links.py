"""Listings never leave the workspace through a symbolic link.

A repository can ship `docs -> ../../..` (or any link to the home directory, `/etc`, another
project): glob, grep, outline, symbols, a read of a folder, the repository map and an `@folder`
mention list nothing below a folder that is named inside the workspace but that a link on
the way takes out of it — unless into a folder the user added (--add-dir,
permissions.additionalDirectories). Walks never follow the links they meet (ripgrep runs
without --follow; walk.Walker skips them), so the folder a call names is the one place a link
can be crossed. What lies outside reaches a listing only by its own path, which the permission
gate judges (and shows) as what it is.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent.base.record import ToolContext
from agent.permissions.paths import within
from agent.tools.shared.common import ToolError, shown


def linked_out(folder: Path | str, cwd: Path | str, added: tuple[str, ...] = ()) -> str:
    """Where `folder` really is when it is named inside the workspace (`cwd` or an `added`
    folder, as given or resolved) but a symbolic link on the way leads out of all of them;
    "" otherwise. A folder named outside is the gate's to judge, not this rule's."""
    joined = os.path.join(os.getcwd(), folder)  # `..` kept: the kernel takes a link first
    lexical = os.path.normpath(joined)
    real_cwd = os.path.realpath(cwd)
    if not within(lexical, (os.path.abspath(cwd), real_cwd, *added)):
        return ""
    for real in (os.path.realpath(lexical), os.path.realpath(joined)):
        if not within(real, (real_cwd, *added)):
            return real
    return ""


def enter(ctx: ToolContext, folder: Path, what: str) -> None:
    """Refuse (ToolError) to list `folder` for `what` ("glob", "a search") when a link takes
    it out of the workspace: the model is told the real place, which it may name instead (and
    the user is then asked about that place, not about a harmless-looking name)."""
    real = linked_out(folder, ctx.cwd, ctx.added_dirs)
    if real:
        raise ToolError(
            f"{shown(ctx, folder)} leads through a symbolic link to {real}, outside the "
            f"workspace: {what} does not follow it",
            can_retry=False,
            hint=f"name {real} itself to look there (the user is asked first), or the user adds "
            "it to the workspace (--add-dir, permissions.additionalDirectories)",
        )
