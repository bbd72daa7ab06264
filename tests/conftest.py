"""Shared fixtures: the scripted OpenAI-compatible fake and an environment pointing at it."""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI

_SCRUBBED_PREFIXES = ("AGENT_", "OPENAI_", "DEEPSEEK_")
# Unset so that config lookups fall back to the temporary HOME.
_SCRUBBED_NAMES = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")
_CALL_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Remember whether the test body failed, so teardown checks do not pile on."""
    report = yield
    if report.when == "call":
        item.stash[_CALL_FAILED] = report.failed
    return report


@pytest.fixture
def fake(request: pytest.FixtureRequest) -> Iterator[FakeOpenAI]:
    """A running FakeOpenAI; teardown fails on unused turns, unexpected requests, expect errors."""
    server = FakeOpenAI().start()
    yield server
    server.stop()
    if server.errors:  # an `expect` assertion or a bug in the fake: the root cause, raise it
        raise server.errors[0]
    if request.node.stash.get(_CALL_FAILED, False):
        return  # the test's own failure explains more than "turn left unused"
    problems = server.problems()
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture(autouse=True)
def state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Sessions, audit logs and caches of in-process runs go to the test's own state directory
    (outside its tmp_path, which is often the project). Its own MonkeyPatch: a test's
    `monkeypatch.undo()` must not send writes to the real ~/.local/state."""
    state = tmp_path_factory.mktemp("state")
    with pytest.MonkeyPatch.context() as m:
        m.setenv("AGENT_STATE_DIR", str(state))
        m.setenv("AGENT_CACHE_DIR", str(state / "cache"))  # code tags (agent.code.cache)
        yield state


@pytest.fixture
def fake_env(fake: FakeOpenAI, tmp_path: Path) -> dict[str, str]:
    """Environment for running the agent as a subprocess against `fake`, isolated from the user."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith("_API_KEY")
        and not key.startswith(_SCRUBBED_PREFIXES)
        and key not in _SCRUBBED_NAMES
    }
    env.update(
        AGENT_BASE_URL=fake.base_url,
        AGENT_API_KEY="test-key",
        AGENT_MODEL="fake-model",
        HOME=str(home),
        NO_COLOR="1",
        # The permission tests judge commands by the rules alone, the same on every machine
        # (a CI kernel may refuse namespaces): the sandbox's own tests turn it on.
        AGENT_SANDBOX="off",
    )
    return env


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home directory of the test's own (HOME points at it: user settings, skills, commands
    and agents live under it)."""
    h = tmp_path / "home"
    h.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(h))
    return h


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder with one small file (modules that need more define their own)."""
    p = tmp_path / "proj"
    p.mkdir()
    (p / "notes.txt").write_text("the secret word is mango\n")
    return p
