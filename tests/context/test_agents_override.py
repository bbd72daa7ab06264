"""Codex's AGENTS.override.md (issue 45, item 2): in a directory that has one, it is read
instead of that directory's AGENTS.md; elsewhere AGENTS.md stays. End to end: what the model
is sent."""

from __future__ import annotations

from pathlib import Path

from fake_openai import FakeOpenAI, text
from helpers import run_agent


def test_the_override_replaces_agents_md_in_its_directory(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    (project / ".git").mkdir()
    (project / "AGENTS.md").write_text("Team rule: use tabs.\n")
    (project / "AGENTS.override.md").write_text("Override: use four spaces.\n")
    sub = project / "svc"
    sub.mkdir()
    (sub / "AGENTS.md").write_text("Service rule: run make check.\n")
    fake.script(text("ok"))
    r = run_agent(fake_env, sub, "q")
    assert r.returncode == 0, r.stderr
    system = str(fake.requests[0]["messages"][0]["content"])
    assert "Override: use four spaces." in system
    assert "use tabs" not in system  # replaced in the top directory
    assert "Service rule: run make check." in system  # no override there: AGENTS.md stays
