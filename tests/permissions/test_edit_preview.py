"""The permission prompt's diff is computed the way write_file/edit_file compute theirs: the same
decoding (cp1251, UTF-16, BOM), line endings and matching, so what the user approves is what
the tool writes, and a call the tool will refuse is never shown as a diff."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.base.record import ToolContext
from agent.tools.builtin import builtin_tools

TOOLS = {t.name: t for t in builtin_tools()}


def preview(name: str, args: dict[str, Any], root: Path) -> str:
    """What the permission prompt shows for this call: the tool record's preview."""
    previewer = TOOLS[name].preview
    assert previewer is not None
    shown = previewer(args, root)
    return (shown.diff or shown.note) if shown is not None else ""


def _files(root: Path) -> dict[str, bytes]:
    return {
        "ru.txt": "привет мир\r\nвторая строка\r\n".encode("cp1251"),
        "wide.txt": "\ufeffalpha\nbeta\n".encode("utf-16-le"),
        "bom.py": b"\xef\xbb\xbfx = 1\r\ny = 2\r\n",
        "twice.txt": b"a\na\n",
        "blob.bin": b"\x00\x01\x02needle",
        "src/deep.py": b"a = 1\n",
    }


def _write_files(root: Path) -> None:
    for file, data in _files(root).items():
        (root / file).parent.mkdir(exist_ok=True)
        (root / file).write_bytes(data)


CASES: list[tuple[str, dict[str, Any]]] = [
    ("edit_file", {"path": "ru.txt", "old_string": "вторая строка", "new_string": "третья"}),
    ("edit_file", {"path": "wide.txt", "old_string": "beta", "new_string": "gamma"}),
    ("edit_file", {"path": "bom.py", "old_string": "y = 2\n", "new_string": "y = 3\nz = 4\n"}),
    ("write_file", {"path": "ru.txt", "content": "новый\nтекст\n"}),
    ("edit_file", {"path": "twice.txt", "old_string": "a", "new_string": "b", "replace_all": True}),
    ("edit_file", {"path": "src/deep.py", "old_string": "1", "new_string": "2"}),  # named in full
]


@pytest.mark.parametrize(("name", "args"), CASES)
async def test_the_prompt_shows_the_diff_the_tool_makes(
    tmp_path: Path, name: str, args: dict[str, Any]
) -> None:
    _write_files(tmp_path)
    shown = preview(name, args, tmp_path)
    result = await TOOLS[name].run(args, ToolContext(cwd=tmp_path))
    assert not result.is_error, result.output
    assert shown.startswith(f"--- a/{args['path']}")
    assert result.display is not None
    assert shown.rstrip("\n") in result.display  # the very diff the tool reports after writing


@pytest.mark.parametrize(
    ("name", "args", "says"),
    [
        ("edit_file", {"path": "twice.txt", "old_string": "a", "new_string": "b"}, "2 times"),
        (
            "edit_file",
            {"path": "ru.txt", "old_string": "нет такого", "new_string": "x"},
            "not found",
        ),
        ("edit_file", {"path": "gone.txt", "old_string": "a", "new_string": "b"}, "not found"),
        ("edit_file", {"path": "ru.txt", "old_string": "мир", "new_string": "мир"}, "identical"),
        ("edit_file", {"path": "ru.txt", "old_string": "мир", "new_string": "🙂"}, "cp1251"),
        ("write_file", {"path": "blob.bin", "content": "text"}, "binary"),
    ],
)
async def test_a_call_the_tool_refuses_shows_why(
    tmp_path: Path, name: str, args: dict[str, Any], says: str
) -> None:
    _write_files(tmp_path)
    shown = preview(name, args, tmp_path)
    assert shown.startswith("(") and shown.endswith("will fail)"), shown
    assert says in shown
    assert "\n" not in shown
    result = await TOOLS[name].run(args, ToolContext(cwd=tmp_path))
    assert result.is_error
    assert (tmp_path / "ru.txt").read_bytes() == _files(tmp_path)["ru.txt"]


def test_a_near_miss_quoting_stray_bytes_is_printable(tmp_path: Path) -> None:
    (tmp_path / "s.txt").write_bytes("ü\n".encode() + b"caf\xe9 ok\nline2\n")  # UTF-8, a stray
    args = {"path": "s.txt", "old_string": "café ok\nline2", "new_string": "x"}
    shown = preview("edit_file", args, tmp_path)
    assert shown.endswith("will fail)")
    shown.encode("utf-8")  # no lone surrogate: the prompt prints it


async def test_a_call_that_cannot_work_is_answered_without_a_prompt(tmp_path: Path) -> None:
    from agent.base.events import Recorder
    from agent.permissions.gate import Gate
    from tests.permissions.test_permissions_e2e import Answer, Script, ask_through

    _write_files(tmp_path)
    asker = Script(Answer("y"))
    gate = Gate(TOOLS, {}, "default", Recorder(), asker, workspace=tmp_path)
    missing = {"path": "ru.txt", "old_string": "нету", "new_string": "x"}
    result = await ask_through(gate, "edit_file", missing)
    assert result.is_error and "old_string not found in ru.txt" in result.output
    assert result.output != "ran" and asker.seen == []  # not run, nobody asked
    binary = await ask_through(gate, "write_file", {"path": "blob.bin", "content": "x"})
    assert "blob.bin is a binary file" in binary.output and asker.seen == []
    fine = {"path": "ru.txt", "old_string": "мир", "new_string": "мир!"}
    assert (await ask_through(gate, "edit_file", fine)).output == "ran"
    assert len(asker.seen) == 1 and "+привет мир!" in asker.seen[0].diff


async def test_a_protected_or_outside_file_is_asked_about_first(tmp_path: Path) -> None:
    from agent.base.events import Recorder
    from agent.permissions.gate import Gate
    from tests.permissions.test_permissions_e2e import Answer, Script, ask_through

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".env").write_text("API_KEY=sk-live-SECRET\n")
    outside = tmp_path / "creds.txt"
    outside.write_text("password: hunter2\n")
    asker = Script(Answer("n"), Answer("n"), Answer("n"))
    gate = Gate(TOOLS, {}, "default", Recorder(), asker, workspace=ws)
    for path in (".env", str(outside)):
        near = {"path": path, "old_string": "API_KEY =\n\n", "new_string": "x"}
        result = await ask_through(gate, "edit_file", near)
        assert "SECRET" not in result.output and "hunter2" not in result.output
    assert len(asker.seen) == 2  # both were asked about, their contents never quoted
    empty = await ask_through(gate, "write_file", {"path": "", "content": "x"})
    assert "is a directory" not in empty.output  # left to the tool, which names the problem


def test_the_prompt_of_a_latin1_edit_agrees_with_the_tool(tmp_path: Path) -> None:
    (tmp_path / "l1.txt").write_bytes("café\nx\n".encode("latin-1"))
    args = {"path": "l1.txt", "old_string": "x", "new_string": "naïve"}
    assert "+naïve" in preview("edit_file", args, tmp_path)
    euro = {**args, "new_string": "5 €"}
    refused = preview("edit_file", euro, tmp_path)
    assert refused.startswith("(the new text has characters that latin-1 cannot store: '€'")
    assert refused.endswith("; the edit will fail)")
