"""Long pastes at the REPL's prompt: shown as `[pasted text #1 +400 lines]`, sent whole.

The placeholder stands in the input line (which stays short and editable); when the line is
sent, each placeholder is replaced by the text it stands for. The history file keeps the
whole text (a later session can recall it); this session's in-memory history keeps the
placeholder, which still expands.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

LINES = 10  # a paste of more lines than this is collapsed
CHARS = 2000  # ... or of more characters
_MARK = re.compile(r"\[pasted text #(\d+) \+\d+ lines\]")


class Pastes:
    """The long pastes of a session, by number."""

    def __init__(self) -> None:
        self.texts: dict[int, str] = {}

    def add(self, text: str) -> str:
        """What the input line shows for a paste: itself when short, else a placeholder."""
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = len(text.splitlines()) or 1
        if lines <= LINES and len(text) <= CHARS:
            return text
        n = len(self.texts) + 1
        self.texts[n] = text
        return f"[pasted text #{n} +{lines} lines]"

    def expand(self, line: str) -> str:
        """`line` with each placeholder of this session replaced by its text."""
        if "[pasted text #" not in line:
            return line
        return _MARK.sub(lambda m: self.texts.get(int(m.group(1)), m.group(0)), line)


def history(path: Path, pastes: Pastes) -> Any:
    """A FileHistory whose file keeps pastes whole (the placeholder means nothing later)."""
    from prompt_toolkit.history import FileHistory

    class PasteHistory(FileHistory):
        def store_string(self, string: str) -> None:
            super().store_string(pastes.expand(string))

    return PasteHistory(str(path))
