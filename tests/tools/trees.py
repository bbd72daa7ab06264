"""What the search and ignore-file tests share: the ripgrep binary (when there is one) and a
generated tree exercising every rule both search backends must agree on (a home of the test's
own is `own_home`, in conftest.py)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from agent.base.record import ToolContext
from agent.tools.shared import walk

RG = walk.find_rg()
needs_rg = pytest.mark.skipif(RG is None, reason="no ripgrep binary installed")
WORDS = ["alpha", "beta", "gamma", "delta", "foo", "bar", "TODO", "fixme", "Привет", "naïve"]


def build_tree(root: Path, *, repo: bool, files: int = 400, seed: int = 7) -> Path:
    """A tree exercising every rule both backends must agree on."""
    rnd = random.Random(seed)
    exts = [".py", ".txt", ".log", ".md", ".js", ".min.js", ".tmp", ""]
    dirs = ["", "d1", "d1/s", "d2", "d2/deep/er", "build", "d2/cache/x", ".config", "d3/inner"]
    for i in range(files):
        directory = root / rnd.choice(dirs)
        directory.mkdir(parents=True, exist_ok=True)
        lines = [
            " ".join(rnd.choices(WORDS, k=rnd.randint(1, 6))) for _ in range(rnd.randint(0, 25))
        ]
        newline = "\r\n" if i % 5 == 0 else "\n"
        text = newline.join(lines) + (newline if i % 3 else "")
        (directory / f"f{i}{rnd.choice(exts)}").write_bytes(text.encode())
    (root / ".gitignore").write_text("*.log\n/build/\n!keep.log\ntmp*/\n**/cache/**\n# c\n\n")
    (root / "keep.log").write_text("foo kept\n")
    (root / "d1" / ".gitignore").write_text("*.md\n!README.md\ns/*.js\n")
    # .ignore and .rgignore outrank .gitignore and reach across repository roots
    for name in ("d4/tmp2/x.txt", "d4/b.cfg", "d4/sub/c.cfg", "d3/inner/i.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("foo\n")
    (root / "d4" / ".ignore").write_text("!tmp2/\n*.cfg\n")
    (root / "d4" / "sub" / ".rgignore").write_text("!c.cfg\n")
    (root / "d3" / ".ignore").write_text("*.py\n")
    (root / "d1" / "README.md").write_text("foo readme\n")
    (root / "tmp1").mkdir()
    (root / "tmp1" / "a.py").write_text("foo in ignored dir\n")
    if repo:
        (root / ".git" / "info").mkdir(parents=True)
        (root / ".git" / "info" / "exclude").write_text("*.tmp\n")
        (root / ".git" / "config").write_text("foo = SENTINEL never searched\n")
    (root / "d3" / "inner" / ".git").mkdir(parents=True)  # a nested repository
    (root / "d3" / "inner" / ".gitignore").write_text("*.txt\n")
    (root / "bin.dat").write_bytes(b"foo\0bar alpha SENTINEL\n")
    (root / "d2" / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0foo SENTINEL")
    (root / "utf16.txt").write_bytes("foo in utf16 SENTINEL\nbar\n".encode("utf-16"))
    (root / "bom.py").write_bytes(b"\xef\xbb\xbfalpha foo SENTINEL\n")
    (root / "cp1251.txt").write_bytes("foo привет\n".encode("cp1251"))
    (root / "link.py").symlink_to(root / "bom.py")
    (root / "linkdir").symlink_to(root / "d1", target_is_directory=True)
    return root


def ctx_for(root: Path, backend: str) -> ToolContext:
    return ToolContext(cwd=root, search_backend=backend)
