"""@path mentions: completion inserts what attach understands, spaces in names included."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.document import Document

from agent.context.mentions import attach, mentioned
from agent.ui.completion import ReplCompleter


def test_a_name_with_spaces_completes_quoted_and_attaches(tmp_path: Path) -> None:
    (tmp_path / "my notes.txt").write_text("the plan\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    completer = ReplCompleter(dict, lambda: ["my notes.txt", "a.py"])
    [done] = completer.get_completions(Document("read @my"), None)
    line = "read @my"[: len("read @my") + done.start_position] + done.text + " and @a.py."
    assert line == 'read @"my notes.txt" and @a.py.'
    assert mentioned(line, tmp_path) == [tmp_path / "my notes.txt", tmp_path / "a.py"]
    sent = attach(line, tmp_path)
    assert '<file path="my notes.txt">\nthe plan\n</file>' in sent
    assert '<file path="a.py">\nx = 1\n</file>' in sent
