"""What the permission layer learns about one call (Facts) and what it decides (Decision):
plain data, shared by the pure decision, the shell policy, the gate and the prompts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agent.base.record import DecidedBy


@dataclass(frozen=True)
class Decision:
    kind: Literal["allow", "ask", "deny"]
    reason: str = ""
    source: DecidedBy = ""
    rule: str = ""  # the rule that decided, when a rule did


@dataclass
class Facts:
    """What decide learned about one call before applying the mode."""

    deny: str = ""
    deny_reason: str = ""
    ask: str = ""
    allow: str = ""
    read_only: bool = False
    inside: bool = True
    protected: str = ""
    problem: str = ""
    target: str = ""  # resolved path, command or host (shown in the prompt)
    why: str = ""  # why it is not allowed yet, for the prompt and the denial
    suggest: list[str] = field(default_factory=list)
    edits_mode: bool = False  # acceptEdits would allow it (and not open all of home)
    repo_code: str = ""  # the command would run a program the repository supplies (git hooks…)
    paths: tuple[str, ...] = ()  # a file call's paths as judged, lexical and real (judged.py)
