"""`agent mcp add|add-json|get|list|remove` on real settings files in temporary directories (HOME
pointed at one): the user, local and project scopes, stdio and http/sse entries, what the agent
then loads, and clear errors that never rewrite a file the user must fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text
from helpers import run_agent

from agent.config.load import load_settings
from agent.config.mcpfiles import project_servers
from agent.mcpcli.main import main


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    return h


@pytest.fixture
def project(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    (p / "src").mkdir()
    monkeypatch.chdir(p / "src")  # a subdirectory: the files are the project root's
    return p


def mcp(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as e:  # argparse's usage errors
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def servers(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text())["mcpServers"])


def test_add_stdio_to_the_local_scope_by_default(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    argv = ["add", "-e", "TZ=UTC", "-e", "X=a=b", "time", "--", "uvx", "mcp-server-time", "-y"]
    code, out, _ = mcp(capsys, *argv)
    local = project / ".agent" / "settings.local.json"
    assert code == 0 and str(local) in out and "(local scope)" in out
    assert servers(local) == {
        "time": {
            "type": "stdio",
            "command": "uvx",
            "args": ["mcp-server-time", "-y"],
            "env": {"TZ": "UTC", "X": "a=b"},
        }
    }
    assert "settings.local.json" in (project / ".agent" / ".gitignore").read_text()
    merged, _ = load_settings(project, trusted=False)  # the user's own file: applied untrusted
    assert merged["mcpServers"]["time"]["command"] == "uvx"


def test_add_to_the_user_scope_keeps_the_rest_of_the_file(
    capsys: pytest.CaptureFixture[str], project: Path, home: Path
) -> None:
    settings = home / ".agent" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "m", "mcpServers": {"old": {"command": "old"}}}')
    code, out, _ = mcp(capsys, "add", "--scope", "user", "fs", "--", "npx", "-y", "server-fs")
    assert code == 0 and "(user scope)" in out
    data = json.loads(settings.read_text())
    assert data["model"] == "m"
    assert data["mcpServers"] == {
        "old": {"command": "old"},
        "fs": {"type": "stdio", "command": "npx", "args": ["-y", "server-fs"]},
    }
    assert not list(settings.parent.glob(".*.tmp"))  # written whole, through a temp file


def test_add_http_and_sse_to_the_project_scope(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    header = "Authorization: Bearer ${DOCS_TOKEN}"
    code, out, _ = mcp(
        capsys, "add", "-s", "project", "-t", "http", "-H", header, "docs", "https://d.example/mcp"
    )
    assert code == 0 and "not started until you trust the project" in out
    assert (
        mcp(
            capsys, "add", "-s", "project", "--transport", "sse", "events", "http://localhost:9/sse"
        )[0]
        == 0
    )
    assert mcp(capsys, "add", "-s", "project", "plain", "https://p.example/mcp")[0] == 0  # http
    assert servers(project / ".mcp.json") == {
        "docs": {
            "type": "http",
            "url": "https://d.example/mcp",
            "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
        },
        "events": {"type": "sse", "url": "http://localhost:9/sse"},
        "plain": {"type": "http", "url": "https://p.example/mcp"},
    }
    assert set(project_servers(project, trusted=True)[0]) == {"docs", "events", "plain"}
    assert project_servers(project, trusted=False)[0] == {}  # still only once trusted
    assert not (project / ".agent").exists()  # nothing else was written


def test_list_shows_every_file_and_which_entry_wins(
    capsys: pytest.CaptureFixture[str], project: Path, home: Path
) -> None:
    mcp(capsys, "add", "-s", "user", "time", "--", "uvx", "mcp-server-time")
    mcp(capsys, "add", "time", "--", "python", "my time.py")
    mcp(capsys, "add", "-s", "project", "docs", "https://d.example/mcp")
    (project / ".agent" / "settings.json").write_text(
        '{"mcpServers": {"team": {"command": "team-server", "disabled": true}}}'
    )
    code, out, err = mcp(capsys, "list")
    assert code == 0 and err == ""
    local, user = project / ".agent" / "settings.local.json", home / ".agent" / "settings.json"
    assert out.splitlines() == [
        f"{local} (local):",
        "  time: python 'my time.py' (stdio)",
        f"{project / '.agent' / 'settings.json'} (project settings), not started until you "
        "trust the project (agent --trust-project):",
        "  team: team-server (stdio) — disabled",
        f"{user} (user):",
        f"  time: uvx mcp-server-time (stdio) — overridden by {local}",
        f"{project / '.mcp.json'} (project), not started until you trust the project "
        "(agent --trust-project):",
        "  docs: https://d.example/mcp (http)",
    ]
    code, out, _ = mcp(capsys, "get", "time")
    assert code == 0
    assert f"time  (user: {user}) — overridden by {local}" in out
    assert "  command: uvx mcp-server-time" in out and "remove --scope" not in out
    assert "agent mcp remove time --scope local" in out


def test_list_with_nothing_configured(capsys: pytest.CaptureFixture[str], project: Path) -> None:
    code, out, _ = mcp(capsys, "list")
    assert code == 0 and "No MCP servers" in out and "agent mcp add" in out


def test_remove_from_the_scope_that_has_it(
    capsys: pytest.CaptureFixture[str], project: Path, home: Path
) -> None:
    mcp(capsys, "add", "-s", "user", "time", "--", "uvx", "mcp-server-time")
    mcp(capsys, "add", "-s", "project", "time", "--", "uvx", "mcp-server-time")
    mcp(capsys, "add", "-s", "project", "docs", "https://d.example/mcp")
    code, _, err = mcp(capsys, "remove", "time")
    assert code == 2 and "several scopes" in err and "--scope" in err
    code, out, _ = mcp(capsys, "remove", "time", "-s", "project")
    assert code == 0 and "Still declared in" in out
    assert servers(project / ".mcp.json") == {
        "docs": {"type": "http", "url": "https://d.example/mcp"}
    }
    assert mcp(capsys, "remove", "time")[0] == 0  # now only the user's
    assert servers(home / ".agent" / "settings.json") == {}
    code, _, err = mcp(capsys, "remove", "time")
    assert code == 2 and "no MCP server named 'time'" in err
    code, _, err = mcp(capsys, "remove", "docs", "-s", "local")
    assert code == 2 and "no MCP server named 'docs'" in err and "settings.local.json" in err


def test_a_duplicate_name_is_refused_and_nothing_changes(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    mcp(capsys, "add", "time", "--", "uvx", "mcp-server-time")
    local = project / ".agent" / "settings.local.json"
    before = local.read_bytes()
    code, _, err = mcp(capsys, "add", "time", "--", "other")
    assert code == 2
    assert "already exists" in err and str(local) in err and "remove time --scope local" in err
    assert local.read_bytes() == before
    assert mcp(capsys, "add", "-s", "user", "time", "--", "other")[0] == 0  # another scope


def test_a_broken_file_is_named_and_never_rewritten(
    capsys: pytest.CaptureFixture[str], project: Path, home: Path
) -> None:
    broken = project / ".mcp.json"
    broken.write_text('{"mcpServers": {\n  "a": {"command": "x"},\n}}\n')
    mcp(capsys, "add", "-s", "user", "time", "--", "uvx", "mcp-server-time")
    for argv in (["add", "-s", "project", "b", "--", "y"], ["remove", "a", "-s", "project"]):
        code, _, err = mcp(capsys, *argv)
        assert code == 2 and f"{broken}: invalid JSON at line 3, column 1" in err
    assert broken.read_text() == '{"mcpServers": {\n  "a": {"command": "x"},\n}}\n'
    code, out, err = mcp(capsys, "list")  # what can be read is still listed
    assert code == 2 and str(broken) in err and "time: uvx mcp-server-time" in out
    code, _, err = mcp(capsys, "remove", "a")
    assert code == 2 and str(broken) in err
    (home / ".agent" / "settings.json").write_text('{"mcpServers": ["time"]}')
    code, _, err = mcp(capsys, "add", "-s", "user", "x", "--", "y")
    assert code == 2 and "'mcpServers' must be an object, got list" in err


def test_bad_arguments_say_what_is_expected(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    cases = {
        ("add", "time"): "add needs the server",
        ("add", "-e", "TZ", "t", "--", "x"): "-e 'TZ': expected KEY=VALUE",
        ("add", "-e", "1A=b", "t", "--", "x"): "expected KEY=VALUE",
        ("add", "-t", "http", "-H", "NoColon", "t", "https://x.example"): 'expected "Name: value"',
        ("add", "-t", "http", "-e", "A=b", "t", "https://x.example"): "-e/--env sets a stdio",
        ("add", "-H", "A: b", "t", "--", "x"): "-H/--header is for http and sse",
        ("add", "-t", "sse", "t", "localhost:9"): "takes one URL",
        ("add", "bad name", "--", "x"): "use letters, digits, - and _",
        ("add", "t", "npx", "-y", "pkg"): "a server's own options go after --",
        ("add-json", "t", "[1]"): "expected a JSON object",
        ("add-json", "t", "{"): "invalid JSON",
        ("add-json", "t", '{"type": "http"}'): 'needs "url"',
        ("add-json", "t", '{"type": "ws", "url": "x"}'): "unknown \"type\" 'ws'",
        ("get", "nope"): "no MCP server named 'nope'",
    }
    for argv, said in cases.items():
        code, _, err = mcp(capsys, *argv)
        assert code == 2 and said in err, (argv, err)
    assert not (project / ".agent").exists()


def test_add_json(capsys: pytest.CaptureFixture[str], project: Path) -> None:
    entry = {"command": "uvx", "args": ["mcp-server-time"], "timeout": 10}
    code, out, _ = mcp(capsys, "add-json", "-s", "project", "time", json.dumps(entry))
    assert code == 0 and "Added stdio MCP server 'time'" in out
    assert servers(project / ".mcp.json") == {"time": entry}


def test_links_are_not_written_through(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("{}")
    (project / ".mcp.json").symlink_to(elsewhere)
    code, _, err = mcp(capsys, "add", "-s", "project", "t", "--", "x")
    assert code == 2 and "symbolic link" in err
    assert elsewhere.read_text() == "{}"


def test_at_home_the_local_scope_is_refused(
    capsys: pytest.CaptureFixture[str], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (home / ".agent").mkdir()
    monkeypatch.chdir(home)
    code, _, err = mcp(capsys, "add", "t", "--", "x")
    assert code == 2 and "use --scope user" in err
    assert mcp(capsys, "add", "-s", "user", "t", "--", "x")[0] == 0
    assert mcp(capsys, "list")[1].splitlines()[0] == f"{home / '.agent' / 'settings.json'} (user):"


def test_the_command_line_routes_mcp_words(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """`agent mcp add …` is the subcommand; `agent mcp is great` and `agent "mcp list"` stay
    one-shot prompts."""
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    r = run_agent(fake_env, proj, "mcp", "add", "-s", "user", "t", "--", "x", "-y")
    assert r.returncode == 0, r.stderr
    home = Path(fake_env["HOME"])
    assert servers(home / ".agent" / "settings.json")["t"]["args"] == ["-y"]
    fake.script(text("yes"), text("ok"))
    for argv in (("mcp", "is", "great"), ("mcp list",)):
        r = run_agent(fake_env, proj, *argv)
        assert r.returncode == 0 and r.stdout in ("yes\n", "ok\n"), r.stderr
    prompts = [req["messages"][1]["content"] for req in fake.requests]
    assert prompts[0].endswith("mcp is great") and prompts[1].endswith("mcp list")
    r = run_agent({**fake_env, "PATH": os.environ["PATH"]}, proj, "mcp", "list")
    assert r.returncode == 0 and "t: x -y (stdio)" in r.stdout


def test_managing_servers_loads_no_sdk(home: Path, project: Path) -> None:
    """add/list/remove are file edits: neither the mcp SDK nor the model client is imported."""
    code = (
        "from agent.cli import main; main(['mcp', 'list'])\n"
        "import sys; print('@modules@'); print('\\n'.join(sys.modules))"
    )
    env = {**os.environ, "HOME": str(home)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    mods = set(out.stdout.rsplit("@modules@", 1)[-1].split())
    assert not mods & {"mcp", "openai", "pydantic", "httpx", "rich", "prompt_toolkit"}


def test_every_subcommand_is_routed_by_the_command_line() -> None:
    from agent.cli import MCP_COMMANDS
    from agent.mcpcli.main import parser

    [sub] = [a for a in parser()._actions if a.dest == "command"]
    assert set(sub.choices or ()) <= set(MCP_COMMANDS)


def test_a_private_settings_file_stays_private_and_a_new_one_is_private(
    capsys: pytest.CaptureFixture[str], project: Path, home: Path
) -> None:
    settings = home / ".agent" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "m"}')
    settings.chmod(0o600)
    argv = [
        "add",
        "-s",
        "user",
        "-t",
        "http",
        "-H",
        "Authorization: Bearer s3cret",
        "gh",
        "http://x",
    ]
    assert mcp(capsys, *argv)[0] == 0
    assert settings.stat().st_mode & 0o777 == 0o600
    assert mcp(capsys, "remove", "gh", "--scope", "user")[0] == 0
    assert settings.stat().st_mode & 0o777 == 0o600
    assert mcp(capsys, "add", "time", "--", "uvx", "mcp-server-time")[0] == 0
    local = project / ".agent" / "settings.local.json"
    assert local.stat().st_mode & 0o777 == 0o600  # a new file
    (project / ".mcp.json").write_text('{"mcpServers": {}}')
    (project / ".mcp.json").chmod(0o640)
    assert mcp(capsys, "add", "-s", "project", "t2", "--", "uvx", "x")[0] == 0
    assert (project / ".mcp.json").stat().st_mode & 0o777 == 0o640  # its own mode is kept


def test_the_documented_header_example_keeps_the_token_out_of_the_file() -> None:
    readme = (Path(__file__).parents[2] / "docs" / "mcp.md").read_text()
    from agent.mcpcli.main import EPILOG

    for doc in (readme, EPILOG):
        assert '-H "Authorization: Bearer ${' not in doc  # the shell would expand it
    assert "-H 'Authorization: Bearer ${GITHUB_TOKEN}'" in readme
