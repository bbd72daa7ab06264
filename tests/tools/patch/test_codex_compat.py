"""apply_patch takes what Codex's parser takes: a patch wrapped in a heredoc or a `bash -lc`
call, headers padded with spaces, context found exactly first, then with whitespace or
typographic punctuation forgiven; an updated file ends with a newline."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.base.record import ToolContext
from agent.tools.patch.parse import parse
from agent.tools.patch.seek import seek
from agent.tools.patch.tool import APPLY_PATCH, patch_files
from agent.tools.shared.stamps import FileStamps

BODY = '*** Begin Patch\n*** Update File: a.py\n-print("hi")\n+print("bye")\n*** End Patch'


@pytest.mark.parametrize(
    "wrapped",
    [
        f"<<'EOF'\n{BODY}\nEOF\n",
        f"<<EOF\n{BODY}\nEOF",
        f'<< "EOF"\n{BODY}\nEOF\n',
        f"apply_patch <<'EOF'\n{BODY}\nEOF\n",
        f"applypatch <<'PATCH'\n{BODY}\nPATCH",
        "bash -lc \"apply_patch <<'EOF'\n" + BODY.replace('"', '\\"') + '\nEOF\n"',
        'bash -lc \'apply_patch <<"EOF"\n' + BODY + "\nEOF\n'",
        "zsh -lc \"apply_patch <<'EOF'\n" + BODY.replace('"', '\\"') + '\nEOF"',
        "/bin/bash -c \"apply_patch <<'EOF'\n" + BODY.replace('"', '\\"') + '\nEOF"',
        f"  \r\n{BODY}\r\n",
    ],
)
async def test_wrapped_patches_apply(wrapped: str, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('print("hi")\n')
    assert patch_files(wrapped) == ("a.py",)
    r = await APPLY_PATCH.run({"patch": wrapped}, ctx_read(tmp_path, "a.py"))
    assert not r.is_error, r.output
    assert (tmp_path / "a.py").read_text() == 'print("bye")\n'


def test_a_dollar_in_a_double_quoted_script_is_kept_literally() -> None:
    body = "*** Begin Patch\n*** Add File: s.sh\n+echo $HOME\n*** End Patch"
    ops = parse(f"bash -lc \"apply_patch <<'EOF'\n{body}\nEOF\n\"")
    assert ops[0].text == "echo $HOME\n"


@pytest.mark.parametrize(
    "bad",
    [
        f"<<'EOF'\n{BODY}\nEND\n",  # the heredoc does not end where it says
        f"cat <<'EOF'\n{BODY}\nEOF\n",  # another program's heredoc
        f"bash -lc \"apply_patch <<'EOF'\n{BODY}\nEOF\" && rm -rf x",
    ],
)
def test_other_wrappings_are_not_guessed(bad: str) -> None:
    assert patch_files(bad) == ()


def test_headers_padded_with_spaces_and_context_that_looks_like_one() -> None:
    ops = parse(
        " *** Begin Patch \n  *** Add File: b.txt\n+b\n   *** Delete File: c.txt\n"
        "\t*** Update File: a.md\n@@\n *** Add File: not-a-header\n-x\n+y\n *** End Patch "
    )
    assert [(op.kind, op.path) for op in ops] == [
        ("add", "b.txt"),
        ("delete", "c.txt"),
        ("update", "a.md"),
    ]
    assert ops[2].hunks[0].old == ["*** Add File: not-a-header", "x"]  # a context line


def test_exact_first_then_whitespace_then_punctuation() -> None:
    lines = ["    a = 1", "a = 1", "b — “c”\u00a0d"]
    assert seek(lines, ["a = 1"], 0, False) == 1  # the exact line, not the indented one
    assert seek(lines, ["  a = 1  "], 0, False) == 0  # then with whitespace forgiven
    assert seek(lines, ['b - "c" d'], 0, False) == 2  # then dashes, quotes, spaces as ASCII
    assert seek(lines, ["b -- c d"], 0, False) == -1  # nothing looser than that
    assert seek(lines, ["a = 1"], 0, True) == -1  # at the end: only where the file ends


async def test_typographic_context_is_found_and_kept(tmp_path: Path) -> None:
    (tmp_path / "t.md").write_text("Intro – “quoted”\n  Step\u00a0one\nend\n")
    patch = (
        '*** Begin Patch\n*** Update File: t.md\n@@ Intro - "quoted"\n'
        "-Step one\n+Step 1\n end\n*** End Patch"
    )
    r = await APPLY_PATCH.run({"patch": patch}, ctx_read(tmp_path, "t.md"))
    assert not r.is_error, r.output
    assert (tmp_path / "t.md").read_text() == "Intro – “quoted”\nStep 1\nend\n"


async def test_an_updated_file_ends_with_a_newline(tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_bytes(b"one\r\ntwo")
    patch = "*** Begin Patch\n*** Update File: n.txt\n one\n-two\n+TWO\n*** End Patch"
    assert not (await APPLY_PATCH.run({"patch": patch}, ctx_read(tmp_path, "n.txt"))).is_error
    assert (tmp_path / "n.txt").read_bytes() == b"one\r\nTWO\r\n"  # its own line ending


def ctx_read(root: Path, *names: str) -> ToolContext:
    ctx = ToolContext(cwd=root, files=FileStamps())
    for name in names:
        ctx.files.saw(root / name)  # type: ignore[union-attr]
    return ctx
