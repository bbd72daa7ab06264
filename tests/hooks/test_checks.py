"""Checks after edits in a real session: a lint command (a real script) runs on the files the
turn changed; a failure goes back to the model, which fixes it; rounds are capped; tests run
with testOnEdit; nothing runs when nothing changed; /lint and /test run them by hand; an
untrusted project's checks never run; inside the sandbox when there is one."""

from __future__ import annotations

import io
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from rich.console import Console
from routed_fake import close_runs, make_run

from agent.base.events import Notice
from agent.commands import checks as by_hand
from agent.commands.registry import Ctx
from tests.sandbox.test_sandbox_e2e import needs_bwrap

# A linter: every file named that holds "bad" is reported, with its line; exit 1 if any.
LINT = (
    f"{sys.executable} -c \"import sys; bad=[f'{{p}}:{{i}}: bad word' for p in sys.argv[1:] "
    "for i, l in enumerate(open(p), 1) if 'bad' in l]; print(*bad, sep=chr(10)); "
    'sys.exit(1 if bad else 0)" {files}'
)


@pytest.fixture(autouse=True)
async def _closed() -> AsyncIterator[None]:
    yield
    await close_runs()


def write(name: str, old: str, new: str) -> Any:
    return tool_calls([("edit_file", {"path": name, "old_string": old, "new_string": new})])


def users(fake: FakeOpenAI) -> list[str]:
    return [str(m["content"]) for m in fake.requests[-1]["messages"] if m["role"] == "user"]


async def test_a_lint_failure_goes_back_and_gets_fixed(fake: FakeOpenAI, tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    fake.script(
        tool_calls([("read_file", {"path": "m.py"})]),
        write("m.py", "x = 1", "x = 'bad'"),
        text("done"),
        write("m.py", "x = 'bad'", "x = 'good'"),
        text("fixed"),
    )
    run, rec = make_run(fake, tmp_path, settings={"checks": {"lint": LINT}})
    end = await run.turn("change x")
    assert end.subtype == "success" and end.text == "fixed"
    back = users(fake)[-1]
    assert back.startswith("[checks after the edits: lint failed on m.py]")
    assert "m.py:1: bad word" in back and "(exit 1)" in back
    notices = [e.message for e in rec.events if isinstance(e, Notice)]
    assert any(n.startswith("checks failed after your edits") for n in notices)
    assert any(n == "checks passed (lint) on 1 changed file" for n in notices)
    assert (tmp_path / "m.py").read_text() == "x = 'good'\n"


async def test_rounds_are_capped(fake: FakeOpenAI, tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    fake.script(
        tool_calls([("read_file", {"path": "m.py"})]),
        write("m.py", "x = 1", "x = 'bad'"),
        text("done"),
        write("m.py", "x = 'bad'", "x = 'bad2'"),
        text("still"),
    )
    run, rec = make_run(fake, tmp_path, settings={"checks": {"lint": LINT, "maxRounds": 1}})
    end = await run.turn("change x")
    assert end.text == "still"
    assert "checks still fail after 1 rounds; stopping" in [
        e.message for e in rec.events if isinstance(e, Notice)
    ]


async def test_tests_run_on_edit_and_nothing_runs_without_changes(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    marker = tmp_path / "tests-ran"
    settings = {"checks": {"lint": LINT, "test": f"echo ran >> {marker}", "testOnEdit": True}}
    fake.script(text("just talk"))
    run, _ = make_run(fake, tmp_path, settings=settings)
    await run.turn("hello")
    assert not marker.exists()  # nothing changed: nothing ran
    fake.script(tool_calls([("read_file", {"path": "m.py"})]), write("m.py", "1", "2"), text("ok"))
    await run.turn("change it")
    assert marker.read_text() == "ran\n"


async def test_lint_and_test_by_hand(fake: FakeOpenAI, tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 'bad'\n")
    run, _ = make_run(fake, tmp_path, settings={"checks": {"lint": LINT}})
    out = io.StringIO()
    # wide enough for the command line whatever the checkout's path (no wrapping in it)
    ctx = Ctx(run, Console(file=out, width=1000), run.turn)
    await by_hand.lint_cmd(ctx, "")  # no file changed yet: the whole project (".")
    assert f"$ {LINT.replace('{files}', '.')}" in out.getvalue()
    await by_hand.test_cmd(ctx, "")
    assert "no test command: set checks.test in settings" in out.getvalue()


def test_an_untrusted_project_cannot_set_checks(tmp_path: Path) -> None:
    from agent.config.settings import restrict_untrusted

    kept, dropped = restrict_untrusted(tmp_path, {"checks": {"lint": "rm -rf ~"}, "model": "m"})
    assert "checks" not in kept and "checks" in dropped


def test_a_bad_setting_names_its_file(tmp_path: Path) -> None:
    import json

    from agent.config.settings import ConfigError, read_settings

    bad = tmp_path / "settings.json"
    bad.write_text(json.dumps({"checks": {"testOnEdit": "yes"}}))
    with pytest.raises(ConfigError, match=r"key 'checks\.testOnEdit' must be true or false"):
        read_settings(bad)


@needs_bwrap
async def test_checks_run_inside_the_sandbox(fake: FakeOpenAI, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "m.py").write_text("x = 1\n")
    lint = f"touch {outside}/escaped; touch inside-mark; exit 0"
    settings = {"checks": {"lint": lint}, "sandbox": {"mode": "workspace-write"}}
    fake.script(tool_calls([("read_file", {"path": "m.py"})]), write("m.py", "1", "2"), text("ok"))
    run, _ = make_run(fake, proj, settings=settings)
    await run.turn("change it")
    assert (proj / "inside-mark").exists()  # it ran, in the workspace
    assert not (outside / "escaped").exists()  # and could not write outside it


def test_an_untrusted_project_without_a_sandbox_runs_no_checks(tmp_path: Path) -> None:
    from agent.base.events import Recorder
    from agent.config.view import ChecksSettings
    from agent.hooks.checks import for_session

    rec = Recorder()
    assert for_session(ChecksSettings(lint="ruff"), tmp_path, {}, rec, None, trusted=False) is None
    assert "checks are off: the project is not trusted" in rec.events[0].message  # type: ignore[attr-defined]
    assert for_session(ChecksSettings(lint="ruff"), tmp_path, {}, rec, None, trusted=True)
