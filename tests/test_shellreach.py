"""Recursive searches (`grep -r`, `rg`) are judged by what they would read below their
directories, on a real tree with real symlinks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent import shellreach
from agent.paths import Workspace
from agent.shellparse import parse


def reach(command: str, ws: Workspace, base: Path | None = None) -> shellreach.Reach:
    return shellreach.recursive_read(parse(command).commands[0], ws, [base or ws.root])


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "proj"
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "deep" / "a.py").write_text("KEY = 1\n")
    (root / ".hidden").mkdir()
    (root / ".hidden" / ".env.local").write_text("KEY=secret\n")
    (root / "certs").mkdir()
    (root / "certs" / "server.pem").write_text("-----BEGIN\n")
    (root / ".env.example").write_text("KEY=\n")
    return Workspace.make(root, home=tmp_path / "home")


def test_secrets_below_are_found_where_the_tool_would_look(ws: Workspace) -> None:
    r = reach("grep -rn KEY .", ws)
    assert r.secret.startswith("grep would read ") and r.secret.endswith("may hold secrets")
    assert reach("grep -rn KEY src", ws) == shellreach.Reach()
    assert reach("grep KEY src/deep/a.py", ws) == shellreach.Reach()  # not recursive
    assert reach("rg KEY src", ws) == shellreach.Reach()
    # rg skips hidden entries: only the .pem is in its way
    assert reach("rg KEY", ws).secret == "rg would read certs/server.pem, which may hold secrets"
    (ws.root / "certs" / "server.pem").unlink()
    assert reach("rg KEY", ws) == shellreach.Reach()
    assert ".hidden/.env.local" in reach("rg --hidden KEY", ws).secret
    assert reach("grep -r KEY deep", ws, ws.root / "src") == shellreach.Reach()
    assert reach("grep -r KEY", ws, ws.root / "src") == shellreach.Reach()


def test_links_are_followed_only_by_the_flags_that_follow_them(
    ws: Workspace, tmp_path: Path
) -> None:
    (ws.root / ".hidden" / ".env.local").unlink()
    (ws.root / "certs" / "server.pem").unlink()
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws.root / "src" / "out").symlink_to(outside, target_is_directory=True)
    (ws.root / "src" / "loop").symlink_to(ws.root / "src", target_is_directory=True)
    assert reach("grep -r KEY src", ws) == shellreach.Reach()
    assert reach("grep -R KEY src", ws).unsure == "grep follows src/out outside the workspace"
    assert reach("rg -L KEY src", ws).unsure == "rg follows src/out outside the workspace"
    (ws.root / "src" / "out").unlink()
    assert reach("grep -R KEY src", ws) == shellreach.Reach()  # the loop is walked once
    (ws.root / "src" / "cfg").symlink_to(ws.root / ".hidden")
    (ws.root / "src" / "token").symlink_to(ws.root / "src" / "deep" / "a.py")
    (ws.root / ".hidden" / "id_rsa").write_text("k\n")
    assert (
        reach("grep -R KEY src", ws).secret
        == "grep would read src/cfg/id_rsa, which may hold secrets"
    )
    (ws.root / ".hidden" / "id_rsa").unlink()
    (ws.root / "src" / "key.pem").symlink_to(ws.root / "src" / "deep" / "a.py")
    assert reach("grep -R KEY src", ws).secret == "grep would follow src/key.pem: may hold secrets"


def test_a_tree_too_large_to_check_is_unknown(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shellreach, "MAX_ENTRIES", 3)
    for i in range(5):
        (ws.root / "src" / f"f{i}.txt").write_text("x\n")
    assert reach("grep -r KEY src", ws).unsure == (
        f"grep reads more than 3 files below {os.path.join(ws.root, 'src')}"
    )
