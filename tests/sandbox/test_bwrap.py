"""The sandbox with the real bubblewrap (issue 23): what a command may write and reach, that a
symlink cannot widen it, that a timeout kills everything inside, and what the probe says when
the kernel refuses. Skipped, with the reason, only where the kernel refuses namespaces."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from web_server import QuietHandler, serve

from agent.sandbox.linux import bwrap_args, find_bwrap, probe
from agent.sandbox.policy import make_policy
from agent.sandbox.runtime import Sandbox, start
from agent.tools.shell.bash import execute

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bubblewrap: Linux")
WHY = probe(find_bwrap())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / ".git" / "hooks").mkdir(parents=True)
    (p / ".git" / "config").write_text("[core]\n")
    (p / ".env").write_text("KEY=1\n")
    (p / "src").mkdir()
    return p


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside /tmp (the sandbox's /tmp is private): like a home directory."""
    base = "/var/tmp" if os.access("/var/tmp", os.W_OK) else str(Path.home())
    with tempfile.TemporaryDirectory(dir=base) as d:
        yield Path(d)


def box(project: Path, mode: str = "workspace-write", network: bool = False) -> Sandbox:
    if WHY:
        pytest.skip(f"the kernel refuses bubblewrap here: {WHY}")
    made = start(mode, [project], network=network)
    assert made.active, made.problem
    return made


def run(b: Sandbox, command: str, cwd: Path, timeout: float = 20) -> tuple[int | None, str]:
    async def go() -> tuple[int | None, str]:
        code, proto, _ = await execute(command, str(cwd), timeout, b)
        return code, proto.streams[1].text()[0] + proto.streams[2].text()[0]

    return asyncio.run(go())


def test_writes_inside_the_project_work_and_nowhere_else(project: Path, outside: Path) -> None:
    b = box(project)
    code, out = run(b, "echo made > src/new.txt && cat src/new.txt && echo t > /tmp/x", project)
    assert code == 0 and "made" in out
    assert (project / "src" / "new.txt").read_text() == "made\n"
    home = Path.home()  # the tests' own home may live below /tmp: the sandbox's /tmp is its own
    for target in (f"{outside}/f", "/etc/agent-sandbox-test", f"{home}/.agent-sbx-test"):
        code, out = run(b, f"echo x > {target}", project)
        if not target.startswith("/tmp/"):
            assert code != 0 and ("Read-only file system" in out or "No such file" in out), out
        assert not os.path.exists(target)  # nothing of it reached the machine
    assert not os.path.exists("/tmp/x")  # the sandbox's /tmp was its own


@pytest.mark.parametrize(
    "command",
    [
        "echo x >> .git/hooks/pre-commit",
        "echo x >> .git/config",
        "echo x >> .env",
        "mkdir -p .agent && echo '{}' > .agent/settings.local.json",
        "rm -rf .git/hooks",
    ],
)
def test_protected_paths_stay_read_only(project: Path, command: str) -> None:
    before = {p: p.read_bytes() for p in (project / ".git" / "config", project / ".env")}
    code, out = run(box(project), command, project)
    assert code != 0 and ("Read-only file system" in out or "Device or resource busy" in out)
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    assert not (project / ".agent" / "settings.local.json").exists()
    assert (project / ".git" / "hooks").is_dir()
    assert {p: p.read_bytes() for p in before} == before


def test_a_symlink_to_outside_does_not_make_it_writable(project: Path, outside: Path) -> None:
    (project / "link").symlink_to(outside)
    code, out = run(box(project), "echo x > link/planted", project)
    assert code != 0 and "Read-only file system" in out
    assert not (outside / "planted").exists()
    # Nor does a project whose root itself is reached through a link widen anything.
    alias = project.parent / "alias"
    alias.symlink_to(project)
    code, _ = run(box(alias), "echo ok > via-alias.txt", alias)
    assert code == 0 and (project / "via-alias.txt").exists()


def test_read_only_mode_writes_nothing_but_tmp(project: Path) -> None:
    _, out = run(
        box(project, "read-only"), "echo x > src/f; echo y > /tmp/y && cat /tmp/y", project
    )
    assert "Read-only file system" in out and "y" in out
    assert not (project / "src" / "f").exists()


class _Hello(QuietHandler):
    def do_GET(self) -> None:
        self.reply(200, b"hello from the host", "text/plain")


def test_network_is_off_unless_allowed(project: Path) -> None:
    handler: type[BaseHTTPRequestHandler] = _Hello
    with serve(handler) as host:
        get = f"u.urlopen('http://{host}/', timeout=30).read().decode()"
        fetch = f'python3 -c "import urllib.request as u; print({get})"'
        code, out = run(box(project), fetch, project)
        assert code != 0 and "hello from the host" not in out
        assert b_note(box(project), out)
        code, out = run(box(project, network=True), fetch, project, timeout=60)
        assert code == 0 and "hello from the host" in out, out


def b_note(b: Sandbox, out: str) -> bool:
    """The result of a command the sandbox stopped says so and how to retry."""
    note = b.blocked_note(out, failed=True)
    return "ran in the sandbox" in note and '"sandbox": false' in note


def test_a_timed_out_command_is_killed_with_its_children(project: Path) -> None:
    marker = "317.25"  # an argument no other process has
    t0 = time.monotonic()
    code, _ = run(box(project), f"sleep {marker} & sleep {marker} & wait", project, timeout=1)
    assert code is None  # timed out
    assert time.monotonic() - t0 < 45  # not the 317 s of the sleeps
    deadline = time.monotonic() + 20  # killed, they are gone at once (busy: in a moment)
    while True:
        left = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True)
        if not left.stdout.strip() or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert left.stdout.strip() == ""


def test_the_probe_names_the_fix_when_the_kernel_refuses(tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    why = probe(str(fake))
    assert "setting up uid map: Permission denied" in why and "unprivileged_userns_clone" in why
    assert "not installed" in probe(None)


def test_the_command_line_binds_real_paths(project: Path) -> None:
    alias = project.parent / "alias"
    alias.symlink_to(project)
    args = bwrap_args("bwrap", make_policy("workspace-write", [alias]), alias)
    real = str(project.resolve())
    assert args[args.index("--bind") + 1] == real and str(alias) not in args
    assert "--unshare-net" in args and "--unshare-pid" in args and "--die-with-parent" in args
    assert "--new-session" in args and args[-1] == "--"
    hooks = str(project.resolve() / ".git")  # the whole of it
    assert args.index("--bind") < args.index(hooks)  # protected after the writable bind
    open_net = bwrap_args("bwrap", make_policy("workspace-write", [project], network=True), project)
    assert "--unshare-net" not in open_net


def test_a_worktree_is_writable_but_its_protected_paths_are_not(project: Path) -> None:
    tree = project / ".agent" / "worktrees" / "w1"
    (tree / "src").mkdir(parents=True)
    (tree / ".env").write_text("KEY=2\n")
    b = box(project)
    code, out = run(b, "echo ok > src/new.txt && echo x >> .env", tree)
    assert (tree / "src" / "new.txt").read_text() == "ok\n"
    assert code != 0 and "Read-only file system" in out
    assert (tree / ".env").read_text() == "KEY=2\n"
    code, out = run(b, "echo '{}' > ../../settings.local.json", tree)
    assert code != 0 and not (project / ".agent" / "settings.local.json").exists()


def test_a_background_command_runs_in_the_sandbox_too(project: Path, outside: Path) -> None:
    from agent.tools.shell import background as shell_bg

    b = box(project)
    started = shell_bg.start(f"echo in > bg.txt; echo out > {outside}/bg.txt", str(project), b)
    job = shell_bg.JOBS[started.output.split(" as ", 1)[1].split(" ", 1)[0]]
    job.proc.wait(timeout=20)
    assert (project / "bg.txt").read_text() == "in\n"
    assert not (outside / "bg.txt").exists()
    assert "Read-only file system" in job.files["stderr"].read_text()


def test_hooks_run_in_the_sandbox_when_asked(project: Path, outside: Path) -> None:
    from agent.base.events import Recorder
    from agent.hooks.hooks import Hooks

    command = f"echo in > hooked.txt; echo out > {outside}/hooked.txt"
    config = {"SessionEnd": [{"hooks": [{"type": "command", "command": command}]}]}
    hooks = Hooks(config, session_id="s", cwd=project, sink=Recorder())
    hooks.box = box(project)
    asyncio.run(hooks.fire("SessionEnd", {}))
    assert (project / "hooked.txt").read_text() == "in\n"
    assert not (outside / "hooked.txt").exists()
    hooks.box = None  # sandbox.hooks off (the default): the hook is the user's own
    asyncio.run(hooks.fire("SessionEnd", {}))
    assert (outside / "hooked.txt").read_text() == "out\n"


def test_a_stdio_mcp_server_runs_in_the_sandbox_when_asked(project: Path) -> None:
    from helpers import MCP_SERVERS

    from agent.base.record import ToolContext
    from agent.mcp.config import ServerSpec
    from agent.mcp.manager import Manager
    from agent.mcp.tools import McpTools, denied_by

    spec = ServerSpec("demo", "stdio", command=sys.executable, args=(str(MCP_SERVERS / "demo.py"),))
    if os.path.realpath(sys.prefix).startswith("/tmp/"):
        pytest.skip("this Python lives below /tmp, which the sandbox replaces with its own")

    async def go() -> str:
        manager = Manager([spec], project, box(project))
        manager.start()
        mt = McpTools(manager, {}, denied_by([]), None)
        try:
            mt.wait()
            result = await mt.tools["mcp__demo__echo"].run({"text": "boxed"}, ToolContext(project))
            return result.output
        finally:
            await mt.aclose()

    assert asyncio.run(go()) == "echo: boxed"


def test_a_project_action_runs_in_the_sandbox(project: Path, outside: Path) -> None:
    import json

    from agent.actions.registry import load_actions
    from agent.actions.tool import ActionRunner

    (project / ".agent").mkdir()
    script = f"echo in > action.txt; echo out > {outside}/action.txt"
    spec = {"id": "x", "description": "d", "command": "bash", "args": ["-c", script]}
    (project / ".agent" / "actions.json").write_text(json.dumps({"actions": [spec]}))
    loaded = load_actions(project, trusted=True)
    runner = ActionRunner(loaded.actions, project, None, "sess")
    runner.sandbox = box(project)
    outcome = asyncio.run(runner.run(runner.prepare("x", {})))
    assert (project / "action.txt").read_text() == "in\n"
    assert not (outside / "action.txt").exists() and "Read-only file system" in outcome.stderr


def test_a_bang_command_at_the_prompt_runs_in_the_sandbox(project: Path, outside: Path) -> None:
    from agent.context.mentions import bang

    said: list[str] = []
    notes: list[str] = []
    command = f"echo in > bang.txt; echo out > {outside}/bang.txt"
    asyncio.run(bang(command, project, lambda *a: said.append(str(a[0])), notes, box(project)))
    assert (project / "bang.txt").read_text() == "in\n"
    assert not (outside / "bang.txt").exists()
    assert any("Read-only file system" in s for s in said) and "Read-only file system" in notes[0]
