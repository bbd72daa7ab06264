"""Where a command's paths lead: glob words as the shell expands them, whether every path a
command names stays inside the workspace, and whether one it writes runs later (settings, git's
files, editor tasks: agent.permissions.later.runs_later_in)."""

from __future__ import annotations

from pathlib import Path

from agent.permissions.later import first_runs_later
from agent.permissions.paths import Workspace, check, expand_glob
from agent.permissions.shell import risk
from agent.permissions.shell.parse import Command, Word, parse

HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


def expand(cmd: Command, bases: list[Path]) -> Command:
    """Glob words replaced by what the shell would expand them to (unknown when too many)."""
    if not any(w.glob for w in cmd.argv):
        return cmd
    argv: list[Word] = []
    for i, w in enumerate(cmd.argv):
        if not w.glob or w.value is None or i == 0:
            argv.append(Word(None) if w.glob else w)
            continue
        hits: list[str] = []
        for base in bases:
            found = expand_glob(w.value, base)
            if found is None:
                hits = []
                argv.append(Word(None))
                break
            hits += [h for h in found if h not in hits]
        argv += [Word(h) for h in hits]
    return Command(argv, cmd.assigns, cmd.nested)


# Programs that write, replace or remove the paths they are given (others, and interpreters
# running a script, are left to the sandbox, which keeps those paths read-only).
FILE_WRITERS = risk.words(
    "cp mv rm rmdir mkdir touch ln install tee truncate dd chmod chown chgrp rsync unlink shred "
    "patch sed perl tar unzip git"
)


def runs_later_args(cmd: Command, ws: Workspace, bases: list[Path]) -> str:
    for raw in risk.path_args(cmd):
        for base in bases:
            why = first_runs_later(check(raw, ws, base).paths, ws.dirs)
            if why:
                return why
    return ""


def inside(cmd: Command, ws: Workspace, bases: list[Path]) -> bool:
    if risk.name_of(cmd) == "cd" and len(cmd.argv) < 2:
        return False  # `cd` alone goes home
    return all(check(raw, ws, base).inside for raw in risk.path_args(cmd) for base in bases)


def command_inside(command: str, ws: Workspace) -> bool:
    """Whether every path a command names (arguments, redirections) is inside the workspace;
    False for one that does not parse, runs another command, or has a word known only when it
    runs (`$HOME/x`, `$(pwd)/..`): none of those can be shown to stay inside."""
    p = parse(command)
    if not p.parsed or any(c.nested for c in p.commands):
        return False
    if any(w.value is None for c in p.commands for w in c.argv):
        return False
    bases = [ws.root]
    for r in p.redirects:
        v = r.target.value
        if r.fd_dup or v in HARMLESS_TARGETS:
            continue
        if v is None or not check(v, ws, bases[-1]).inside:
            return False
    return all(inside(expand(cmd, bases), ws, bases) for cmd in p.commands if not cmd.nested)
