"""Sessions, the audit log and the home directory's credential stores are secrets: a protected
read always asks, and a directory search (the grep tool) hides what they contain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.base.record import ToolContext, ToolResult
from agent.permissions.decide import decide
from agent.permissions.paths import Workspace, protected
from agent.tools.files.read import READ_FILE
from agent.tools.search import grep as search
from agent.tools.shared import secret_hits, walk
from agent.tools.shared.walk import FileHits
from agent.tools.shell import bash as shell

PAST = ".agent/sessions/ holds past conversations"
BACKENDS = ["rg", "python"] if walk.find_rg() else ["python"]


async def _run(args: dict[str, Any], ctx: Any) -> ToolResult:
    return ToolResult("")


READ, BASH, GREP = READ_FILE, shell.BASH, search.GREP  # the real records


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return h


def _project(root: Path) -> None:
    """A project an earlier version ran in (its records stay there until they are moved, or
    for good in a project not trusted): a session, a checkpoint's blob, the audit log and the
    .gitignore it wrote."""
    sessions = root / ".agent" / "sessions"
    (sessions / "20250101-000000-abcdef12.files").mkdir(parents=True)
    (sessions / "20250101-000000-abcdef12.jsonl").write_text(
        '{"t":"message","role":"user","content":"my token is sk-live-PASTED"}\n'
    )
    blob = sessions / "20250101-000000-abcdef12.files" / ("ab" * 32)
    blob.write_text("API_KEY=sk-live-PASTED\n")  # a file's contents kept for a checkpoint
    (root / ".agent" / ".gitignore").write_text(
        "sessions/\nsettings.local.json\naudit.jsonl\n*.log\nworktrees/\n"
    )
    (root / ".agent" / "audit.jsonl").write_text('{"args": {"command": "sk-live-PASTED"}}\n')
    (root / "app.py").write_text("print('sk-live-PASTED is not here')\n")


def test_records_are_protected_and_a_read_always_asks(tmp_path: Path, home: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    _project(root)
    ws = Workspace.make(root, home=home)
    sessions = root / ".agent" / "sessions"
    blobs = [p for p in sessions.iterdir() if p.is_dir()]
    for p in (sessions, sessions / "20250101-000000-abcdef12.jsonl", *blobs[0].iterdir()):
        assert protected(p, ws) == PAST
    assert protected(root / ".agent" / "audit.jsonl", ws) == (
        ".agent/audit.jsonl records past tool calls"
    )
    assert protected(home / ".agent" / "sessions" / "x.jsonl", ws) == PAST  # the user's own
    state = home / ".local" / "state" / "agent" / "projects" / "p-1" / "sessions" / "x.jsonl"
    assert protected(state, ws) == "~/.local/state/agent holds credentials"  # where they live now
    assert protected(root / ".agent" / "settings.json", ws).endswith("configures the agent")
    for p in (root / ".agent" / "worktrees" / "w" / "a.py", root / "sessions" / "a.jsonl"):
        assert protected(p, ws) == ""
    for tool, args in [
        (READ, {"path": ".agent/sessions/20250101-000000-abcdef12.jsonl"}),
        (READ, {"path": ".agent/audit.jsonl"}),
        (BASH, {"command": "cat .agent/sessions/*.jsonl"}),
        (BASH, {"command": "grep -rn sk-live ."}),
        (BASH, {"command": "cd .agent && grep -r sk-live"}),
        (GREP, {"pattern": "sk-live", "path": ".agent/sessions"}),
    ]:
        d = decide({}, "bypassPermissions", tool, args, ws)
        assert (d.kind, d.source) == ("ask", "protected"), args
    d = decide({}, "default", GREP, {"pattern": "sk-live"}, ws)
    assert d.kind == "allow"  # a directory search stays free: it hides the records' hits


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("ignored", [True, False], ids=["gitignored", "no-gitignore"])
async def test_grep_hides_sessions_and_the_audit_log(
    tmp_path: Path, home: Path, backend: str, ignored: bool
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    _project(root)
    if not ignored:
        (root / ".agent" / ".gitignore").unlink()
    ctx = ToolContext(cwd=root, search_backend=backend)

    async def grep(**args: str) -> str:
        call = {"pattern": "sk-live", "output_mode": "content", **args}
        out = (await search.GREP.run(call, ctx)).output
        assert "my token" not in out and "API_KEY" not in out and "command" not in out
        return out

    session = ".agent/sessions/20250101-000000-abcdef12.jsonl"
    out = await grep()
    assert out.startswith("Found 1 matching line in 1 file\napp.py:1:")
    if ignored:  # .agent/.gitignore keeps the search out of them
        assert "not shown" not in out
    else:
        assert "[matches in 3 file(s) that may hold secrets are not shown: " in out
        assert session in out and ".agent/audit.jsonl" in out
    out = await grep(glob="*.jsonl")  # a glob overrides .gitignore (not an ignored directory's)
    assert out.startswith("No matches") and ".agent/audit.jsonl" in out
    assert f"{1 if ignored else 2} file(s) that may hold secrets" in out
    assert (session in out) is not ignored
    out = await grep(path=".agent", glob="*.jsonl")
    assert "not shown: audit.jsonl" in out
    assert ("sessions/20250101-000000-abcdef12.jsonl;" in out) is not ignored
    # A search of the sessions themselves was asked about (see above): it shows them.
    out = (await search.GREP.run({"pattern": "sk-live", "path": ".agent/sessions"}, ctx)).output
    assert out.startswith("Found 2 files") and "not shown" not in out


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_hides_home_credential_stores_when_the_workspace_is_home(
    home: Path, backend: str
) -> None:
    stores = (".ssh/config", ".bash_history", ".config/gcloud/credentials.db", ".aws/credentials")
    for name in (*stores, "proj/a.py", ".config/app.toml"):
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text("token=T0K3N\n")
    ctx = ToolContext(cwd=home, search_backend=backend)

    async def files(path: str) -> tuple[list[str], str]:
        out = (await search.GREP.run({"pattern": "T0K3N", "path": path}, ctx)).output
        shown, _, note = out.partition("\n[")
        return shown.splitlines()[1:], note

    shown, note = await files(".")
    assert sorted(shown) == [".config/app.toml", "proj/a.py"]
    assert all(s in note for s in stores) and note.startswith("matches in 4 file(s)")
    shown, note = await files(".config")  # the root's own path holds the hidden directory
    assert shown == ["app.toml"] and "gcloud/credentials.db" in note
    shown, note = await files(".ssh")  # the path itself was asked about
    assert shown == ["config"] and not note


def test_hide_secrets_takes_the_quick_path_unless_a_record_may_be_in_reach(home: Path) -> None:
    hits = [FileHits("src/a.py"), FileHits("b/c.txt")]
    assert secret_hits.hide_secrets(hits, home / "proj") == (hits, "")
    kept, note = secret_hits.hide_secrets(hits, home / ".agent" / "sessions")  # asked about
    assert kept == hits and not note
    kept, note = secret_hits.hide_secrets([*hits, FileHits("sessions/x.jsonl")], home / ".agent")
    assert kept == hits and "sessions/x.jsonl" in note
    kept, note = secret_hits.hide_secrets([*hits, FileHits(".ssh/known_hosts")], home)
    assert kept == hits and ".ssh/known_hosts" in note
    kept, note = secret_hits.hide_secrets([*hits, FileHits(".ssh/known_hosts")], home / "proj")
    assert len(kept) == 3 and not note  # a project's own .ssh is no home credential store
