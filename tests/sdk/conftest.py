"""The Claude Agent SDK (the real package) driving this checkout's `agent` as its CLI, against
the scripted model: a `cli_path` script, the environment the agent needs, a project to work
in (tests/conftest.py: `project`)."""

from __future__ import annotations

import os
import shlex
import stat
import sys
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from sdk_host import Sdk

# What the agent must not take from the machine the tests run on (tests/conftest.py: fake_env)
_SCRUBBED = ("AGENT_", "OPENAI_", "DEEPSEEK_")
_KEPT = ("AGENT_STATE_DIR", "AGENT_CACHE_DIR", "AGENT_TEST_CACHE")  # the test's own folders


@pytest.fixture
def agent_cli(tmp_path: Path) -> Path:
    """An executable that runs this checkout's agent: the SDKs put their flags first and
    spawn `cli_path` directly (no interpreter of their own)."""
    cli = tmp_path / "bin" / "agent-cli"
    cli.parent.mkdir()
    cli.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m agent "$@"\n')
    cli.chmod(cli.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return cli


@pytest.fixture
def agent_env(fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The agent's environment: the fake server, a key, a model, a home of its own. The SDK
    starts the CLI with this process's environment under `options.env`, so what could leak
    into it from the machine (other keys, AGENT_* settings) is taken out of this process's."""
    for key in list(os.environ):
        scrubbed = key.endswith("_API_KEY") or key.startswith(_SCRUBBED)
        if (scrubbed and key not in _KEPT) or key.startswith("XDG_") or key == "CLAUDECODE":
            monkeypatch.delenv(key)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        "AGENT_BASE_URL": fake.base_url,
        "AGENT_API_KEY": "test-key",
        "AGENT_MODEL": "fake-model",
        "AGENT_SANDBOX": "off",  # judged by the rules alone, as in tests/conftest.py:fake_env
        "HOME": str(home),
        "NO_COLOR": "1",
    }


@pytest.fixture
def sdk(agent_cli: Path, agent_env: dict[str, str], project: Path) -> Sdk:
    return Sdk(agent_cli, project, agent_env)
