"""The rule prefix offered when a shell command asks: `npm test`, `git status`, `ls`; never a
whole interpreter or a whole multi-command program reached through options."""

from __future__ import annotations

import shlex

from agent.permissions.shell import risk
from agent.permissions.shell.parse import Command

INTERPRETERS = risk.SHELLS | risk.words(
    "python python2 python3 node deno bun ruby perl php lua Rscript julia java"
)


def prefix_suggestion(cmd: Command) -> str:
    """A rule prefix to remember for this command: `npm test`, `git status`, `ls`; for an
    interpreter, up to its script or module (`python tools/gen.py`, `python -m pytest`), never
    the bare interpreter, which would allow any code."""
    words = [w.value or "" for w in cmd.argv]
    if words and words[0].rsplit("/", 1)[-1] in INTERPRETERS:
        for i, w in enumerate(words[1:], 1):
            if w in ("-c", "-e", "--eval", "-E"):
                return shlex.join(words)  # inline code: only this exact command
            if not w.startswith("-"):
                return " ".join(words[: i + 1])
        return " ".join(words)
    if len(words) >= 2 and words[1].startswith("-") and words[0].rsplit("/", 1)[-1] in _SUBS:
        return shlex.join(words)  # `git -C sub commit`: not all of git, only this command
    if (
        len(words) >= 2
        and not words[1].startswith("-")
        and "/" not in words[1]
        and "." not in words[1]
    ):
        return " ".join(words[:2])
    return words[0] if words else ""


# Programs whose first word picks what they do (git commit, npm install, cargo build…): with
# options before it, the whole program is never offered as the rule.
_SUBS = risk.words("git npm npx pnpm yarn cargo go docker kubectl pip pip3 uv poetry make gh")
