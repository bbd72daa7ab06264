"""The audit log: one line per call, denied calls included, kept in the state directory (not in
the project); `.agent/.gitignore` when something personal is first written there."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, text, tool_calls

from agent.base.events import Recorder
from agent.base.record import Call, ToolContext, ToolResult
from agent.config.agentdir import GITIGNORE
from agent.config.statedir import project_state
from agent.core.dispatch import compose
from agent.permissions.asking import edit_local
from agent.permissions.audit import Audit, abbreviate, exit_status
from agent.permissions.gate import Gate
from agent.tools.files.edits import WRITE_FILE

AGENT = [sys.executable, "-m", "agent"]


async def _ok(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ToolResult("done [exit code 0 · 0.1 s]", display="bash x · exit 0")


TOUCH = replace(WRITE_FILE, run=_ok)  # the real record, a run that only reports


def lines(root: Path) -> list[dict[str, Any]]:
    path = project_state(root) / "audit.jsonl"
    return [json.loads(ln) for ln in path.read_text().splitlines()]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True
    ).stdout


def test_abbreviate() -> None:
    big = {"content": "x" * 5000, "items": list(range(100)), "n": 3, "deep": {"a": {"b": "y"}}}
    small = abbreviate(big)
    assert len(small["content"]) < 250
    assert small["content"].endswith("[5000 chars]")
    assert len(small["items"]) == 21
    assert small["items"][-1] == "…[100 items]"
    assert small["n"] == 3
    assert small["deep"] == {"a": {"b": "y"}}


def test_exit_status() -> None:
    assert exit_status(ToolResult("x", display="bash ls · exit 2")) == 2
    assert exit_status(ToolResult("out\n[exit code 7 · 0.3 s]")) == 7
    assert exit_status(ToolResult("read 3 lines")) is None


async def test_allowed_and_denied_calls_are_recorded(tmp_path: Path, state_dir: Path) -> None:
    rec = Recorder()
    gate = Gate(
        {"write_file": TOUCH},
        {"alwaysAllow": ["write_file(ok/**)"]},
        "default",
        rec,
        workspace=tmp_path,
    )

    async def execute(call: Call, ctx: ToolContext) -> ToolResult:
        return await TOUCH.run(call.args, ctx)

    pipeline = compose(execute, Audit(tmp_path, "sess-1", rec), gate)
    ctx = ToolContext(cwd=tmp_path)
    await pipeline(Call("c1", "write_file", {"path": "ok/a.txt", "content": "y" * 3000}), ctx)
    denied = await pipeline(Call("c2", "write_file", {"path": "other.txt", "content": "z"}), ctx)
    assert denied.is_error
    first, second = lines(tmp_path)
    assert first["session"] == "sess-1"
    assert first["tool"] == "write_file"
    assert first["id"] == "c1"
    assert (first["decision"], first["source"], first["rule"]) == (
        "allow",
        "rule",
        "write_file(ok/**)",
    )
    assert first["status"] == "ok"
    assert first["exit_code"] == 0
    assert not first["is_error"]
    assert first["args"]["content"].endswith("[3000 chars]")
    assert isinstance(first["duration_ms"], int)
    assert first["time"].endswith("+00:00")
    assert (second["decision"], second["source"], second["status"]) == ("deny", "mode", "denied")
    assert "no terminal" in second["reason"]
    log = project_state(tmp_path) / "audit.jsonl"
    assert log.is_relative_to(state_dir)
    assert log.stat().st_mode & 0o777 == 0o600  # private: it quotes commands and arguments
    assert not (tmp_path / ".agent").exists()  # nothing in the project


async def test_audit_log_leaves_a_git_repository_clean(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    audit = Audit(tmp_path, "s")

    async def nxt(call: Call, ctx: ToolContext) -> ToolResult:
        return ToolResult("ok")

    await audit(Call("c", "read_file", {"path": "x"}), ToolContext(cwd=tmp_path), nxt)
    assert len(lines(tmp_path)) == 1
    assert not (tmp_path / ".agent").exists()
    assert git(tmp_path, "status", "--porcelain", "--untracked-files=all") == ""


def test_creating_agent_dir_writes_a_gitignore(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    assert not (tmp_path / ".agent").exists()
    path = edit_local(tmp_path, lambda perms: perms.setdefault("alwaysAllow", []).append("x"))
    assert path == tmp_path / ".agent" / "settings.local.json"
    assert (tmp_path / ".agent" / ".gitignore").read_text() == GITIGNORE
    ignore = GITIGNORE.splitlines()
    for entry in ("/.gitignore", "settings.local.json", "worktrees/"):
        assert entry in ignore
    assert git(tmp_path, "status", "--porcelain", "--untracked-files=all") == ""
    (tmp_path / ".agent" / "settings.json").write_text("{}\n")  # a team's file still shows
    status = git(tmp_path, "status", "--porcelain", "--untracked-files=all")
    assert status == "?? .agent/settings.json\n"


def test_one_shot_writes_the_audit_log(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path, state_dir: Path
) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "notes.txt").write_text("hello\n")
    fake.script(
        tool_calls([("read_file", {"path": "notes.txt"})]),
        tool_calls([("write_file", {"path": "new.txt", "content": "x"})]),
        tool_calls([("bash", {"command": "mkdir -p d; exit 3"})]),
        tool_calls([("edit_file", {"path": "notes.txt", "old_string": "nope", "new_string": "x"})]),
        text("done"),
    )
    r = subprocess.run(
        [*AGENT, "--allowed-tools", "bash(mkdir:*)", "go"],
        env={**fake_env, "AGENT_STATE_DIR": str(state_dir)},
        cwd=proj,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert r.returncode == 0, r.stderr
    read, write, bash, edit = lines(proj)
    assert (edit["decision"], edit["status"]) == ("skip", "invalid")  # not run, nobody asked
    assert (read["tool"], read["decision"], read["source"]) == ("read_file", "allow", "read-only")
    assert (write["tool"], write["decision"], write["status"]) == ("write_file", "deny", "denied")
    assert not (proj / "new.txt").exists()
    assert (bash["decision"], bash["rule"], bash["exit_code"]) == ("allow", "bash(mkdir:*)", 3)
    assert len({read["session"], write["session"], bash["session"], edit["session"]}) == 1
    assert not (proj / ".agent").exists()  # the audit log no longer makes .agent/


async def test_a_failure_is_recorded_with_its_kind_and_exception(tmp_path: Path) -> None:
    """The model reads what to do; the audit log (and --verbose) keeps what happened: the
    failure's kind and the exception caught, for a tool's bug and for the system's refusal."""
    from agent.base.events import ToolEnd
    from agent.core.dispatch import Dispatcher
    from agent.tools.shared.common import guard
    from agent.ui.render import TextRenderer

    async def buggy(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise KeyError("lost")

    @guard
    async def refused(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise PermissionError(13, "Permission denied", "/root/x")

    tools = {"buggy": replace(TOUCH, name="buggy", run=buggy)}
    tools["refused"] = replace(TOUCH, name="refused", run=refused)
    rec = Recorder()
    dispatcher = Dispatcher(tools, (Audit(tmp_path, "s", rec),))
    ctx = ToolContext(cwd=tmp_path)
    crashed = await dispatcher.run_one(Call("c1", "buggy", {"path": "a"}), ctx, rec)
    denied = await dispatcher.run_one(Call("c2", "refused", {"path": "a"}), ctx, rec)
    assert "KeyError" in crashed.output and "can_retry: false" in crashed.output
    assert "Permission denied (/root/x)" in denied.output
    first, second = lines(tmp_path)
    assert first["failure"] == "crash: KeyError: 'lost'"
    assert second["failure"] == "system: PermissionError: [Errno 13] Permission denied: '/root/x'"
    ends = [e for e in rec.events if isinstance(e, ToolEnd)]
    assert [e.failure.kind for e in ends if e.failure] == ["crash", "system"]

    import io

    err = io.StringIO()
    verbose = TextRenderer(io.StringIO(), err, verbose=True)
    quiet_err = io.StringIO()
    quiet = TextRenderer(io.StringIO(), quiet_err)
    for e in ends:
        verbose.emit(e)
        quiet.emit(e)
    assert "↳ crash: KeyError: 'lost'" in err.getvalue()
    assert "↳" not in quiet_err.getvalue()  # without --verbose: the error line alone
