"""symbols through the language server: what a use resolves to across files (imports), its
type, and references the server found; the syntax trees when no server runs. /lsp, the
`lsp` setting, and what an untrusted project without a sandbox gets."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from agent.app import Run
from agent.commands.code import lsp_cmd
from agent.commands.registry import Ctx
from agent.config.settings import ConfigError, read_settings
from agent.lsp.session import CodeServers
from agent.lsp.specs import configured
from agent.tools.code.tools import SYMBOLS

MakeRun = Callable[..., Run]  # the `session` fixture (tests/lsp/conftest.py)


async def test_a_use_resolves_through_its_import(session: MakeRun) -> None:
    run = session()
    ctx = run.agent.ctx
    found = await SYMBOLS.run({"name": "helper", "at": "pkg/app.py:5"}, ctx)
    out = found.output
    assert not found.is_error, out
    assert "resolves to (language server ty)" in out
    assert "pkg/util.py:1: def helper(n: int) -> int:" in out
    assert "Type: def helper(n: int) -> int" in out
    assert "pkg/app.py:5: x: int = helper(2)" in out
    assert "pkg/app.py:10:" in out  # the other use


async def test_by_name_the_references_come_from_the_server(session: MakeRun) -> None:
    run = session()
    found = await SYMBOLS.run({"name": "helper"}, run.agent.ctx)
    out = found.output
    assert "Definitions of helper (1):" in out and "pkg/util.py:1-2" in out
    assert "References (2, from the language server ty):" in out  # the two calls
    assert "pkg/app.py:5: x: int = helper(2)" in out and "pkg/app.py:10: return helper(5)" in out
    off = session(lsp=False)
    plain = (await SYMBOLS.run({"name": "helper"}, off.agent.ctx)).output
    assert "References to helper (" in plain and "language server" not in plain


async def test_at_names_a_workspace_file_and_line(session: MakeRun, tmp_path: Path) -> None:
    ctx = session().agent.ctx
    bad = await SYMBOLS.run({"name": "helper", "at": "pkg/app.py"}, ctx)
    assert bad.is_error and "file:line" in bad.output
    (tmp_path / "outside.py").write_text("helper = 1\n")
    out = await SYMBOLS.run({"name": "helper", "at": f"{tmp_path}/outside.py:1"}, ctx)
    assert out.is_error and "not a file of the workspace" in out.output


async def test_untrusted_without_a_sandbox_waits_and_lsp_says_so(pyproj: Path) -> None:
    servers = CodeServers(configured({}), pyproj, None, trusted=False)
    assert await servers.diagnostics(pyproj / "pkg" / "app.py") is None
    assert "waits for trust" in {r["name"]: r for r in servers.status()}["ty"]["problem"]
    assert servers.running == {}


async def test_the_lsp_command_shows_each_server(session: MakeRun) -> None:
    run = session()
    await SYMBOLS.run({"name": "helper", "at": "pkg/app.py:5"}, run.agent.ctx)  # ty starts
    out = io.StringIO()
    await lsp_cmd(Ctx(run, Console(file=out, width=200), run.turn), "")
    shown = out.getvalue()
    assert "ty " in shown and "running" in shown and "runs the project's Python" in shown
    assert "gopls" in shown and "after edits: all (editDiagnostics)" in shown


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ('{"lsp": true}', "'lsp' must be false or an object"),
        ('{"lsp": {"ty": "off"}}', "'lsp.ty' must be an object"),
        ('{"lsp": {"x": {"command": "x --stdio"}}}', "'lsp.x.command'"),
        ('{"lsp": {"x": {"command": ["x", 1]}}}', "'lsp.x.command' must be a list of strings"),
        ('{"editDiagnostics": "some"}', "'editDiagnostics' must be one of"),
    ],
)
def test_bad_lsp_settings_name_the_key(tmp_path: Path, body: str, said: str) -> None:
    f = tmp_path / "settings.json"
    f.write_text(body)
    with pytest.raises(ConfigError, match=said.replace("(", r"\(")):
        read_settings(f)


def test_settings_turn_servers_off_change_and_add_them() -> None:
    names = [s.name for s in configured({})]
    assert names[:2] == ["ty", "basedpyright"] and "ruff" in names
    assert configured(False) == []
    mine = {"ty": {"disabled": True}, "ruff": {"command": ["ruff", "server", "--preview"]},
            "zig": {"command": ["zls"], "extensions": [".zig"]}}  # fmt: skip
    specs = {s.name: s for s in configured(mine)}
    assert "ty" not in specs and specs["ruff"].command == ("ruff", "server", "--preview")
    assert specs["zig"].takes(Path("a.zig")) and specs["zig"].command == ("zls",)


def test_a_rustup_proxy_without_its_component_is_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """~/.cargo/bin/rust-analyzer is rustup itself; without the component every start fails."""
    bin_dir = tmp_path / "cargo-bin"
    bin_dir.mkdir()
    rustup = bin_dir / "rustup"
    has = tmp_path / "has"
    rustup.write_text(f'#!/bin/sh\n[ "$1" = which ] && grep -qx "$2" {has} && echo "/x/$2"\n')
    rustup.chmod(0o755)
    for name in ("rust-analyzer", "cargo"):
        (bin_dir / name).symlink_to("rustup")
    has.write_text("cargo\n")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    from agent.lsp import specs

    specs._empty_proxy.cache_clear()  # the PATH is new: `which` looks again
    assert specs.which("rust-analyzer") is None and specs.which("cargo") == str(bin_dir / "cargo")
    status = {r["name"]: r["state"] for r in CodeServers(configured({}), tmp_path).status()}
    assert status["rust-analyzer"] == "not installed"
