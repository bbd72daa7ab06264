"""What a permission prompt is asked (AskRequest) and answers (Answer), and the asker that
turns one into the other: plain data shared by the gate, the prompts' rendering and every UI."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AskRequest:
    """Everything the prompt shows."""

    tool: str
    args: dict[str, Any]
    reason: str
    target: str  # the resolved path, the full command or the URL
    diff: str = ""
    choices: tuple[str, ...] = ("y", "s", "n")
    remember: tuple[str, ...] = ()  # rules that s / d / a add
    for_model: bool = True  # a "no" may carry a reason for the model (not for /rewind's own)
    what: str = ""  # what the target is: file, folder, command, url, action ("" = the tool)
    body: str = ""  # text shown as it is (a plan), instead of a diff
    labels: tuple[tuple[str, str], ...] = ()  # (choice, its key's label) for other choices
    call_id: str = ""  # the tool call asked about (an editor shows the prompt on that call)

    def key(self, choice: str, default: str) -> str:
        """How a choice's key is shown: its own label, else the usual one."""
        return dict(self.labels).get(choice, default)


@dataclass(frozen=True)
class Answer:
    choice: str  # y s d a n
    reason: str = ""


Asker = Callable[[AskRequest], Awaitable[Answer]]
