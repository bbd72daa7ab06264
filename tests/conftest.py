"""Shared fixtures: the scripted OpenAI-compatible fake and an environment pointing at it."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
import zygote
from fake_openai import FakeOpenAI
from helpers import Clock

_SCRUBBED_PREFIXES = ("AGENT_", "OPENAI_", "DEEPSEEK_")
# Unset so that config lookups fall back to the temporary HOME.
_SCRUBBED_NAMES = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")
_CALL_FAILED = pytest.StashKey[bool]()
# What the suite may not take from the machine it runs on (issue 40): the user's home, their
# XDG folders, git identity and config, terminal size, editor, locale and time zone.
_MACHINE = (
    "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
    "COLUMNS", "LINES", "EDITOR", "VISUAL", "PAGER", "GIT_DIR", "GIT_WORK_TREE", "SSH_AUTH_SOCK",
    "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "NO_COLOR", "TERM_PROGRAM", "TMUX",
)  # fmt: skip
_OWN: dict[str, str] = {}  # the session's temporary folder (pytest_configure)


def pytest_configure(config: pytest.Config) -> None:
    """Every process of the run (each xdist worker too) gets a home of its own, a git identity
    and config of its own, the C.UTF-8 locale and UTC: the suite reads nothing of the machine
    but what the README installs."""
    import tempfile

    top = Path(tempfile.mkdtemp(prefix="agent-tests-"))
    home = top / "home"
    home.mkdir()
    gitconfig = top / "gitconfig"
    gitconfig.write_text("[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n")
    # the real-server suite's llama.cpp build stays cached where it is (build_llama.cache_dir)
    cache = os.environ.setdefault("AGENT_TEST_CACHE", str(Path.home() / ".cache" / "agent-tests"))
    # Hundreds of tests start the agent as a user does: each compiled its ~200 modules anew
    # where the machine says not to write bytecode (0.2 s of CPU every start). The compiled
    # files go to the test cache, never into the checkout or the site-packages.
    # The test modules too: pytest's assertion rewriting of them took 8 s of every process.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix = str(Path(cache) / "pycache")
    sys.dont_write_bytecode = False
    for name in _MACHINE:
        os.environ.pop(name, None)
    os.environ.update(
        HOME=str(home),
        TZ="UTC",
        LANG="C.UTF-8",
        LC_ALL="C.UTF-8",
        GIT_AUTHOR_NAME="Agent Tests",
        GIT_AUTHOR_EMAIL="tests@agent.invalid",
        GIT_COMMITTER_NAME="Agent Tests",
        GIT_COMMITTER_EMAIL="tests@agent.invalid",
        GIT_CONFIG_GLOBAL=str(gitconfig),
        GIT_CONFIG_NOSYSTEM="1",
    )
    time.tzset()  # this process too, not only the commands it starts
    _OWN["top"] = str(top)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers a core. Half of a test's time is a wait (for a pseudo-terminal,
    a server, a subprocess), which another worker fills; measured on 2 cores, 4 workers take
    3.6 min where 2 take 4.8."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(2, min(2 * (cores or 1), 16))


def pytest_unconfigure(config: pytest.Config) -> None:
    import shutil

    zygote.close()

    if "top" in _OWN:
        shutil.rmtree(_OWN.pop("top"), ignore_errors=True)


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
def fake_env(fake: FakeOpenAI, tmp_path: Path, state_dir: Path) -> dict[str, str]:
    """Environment for running the agent as a subprocess against `fake`, isolated from the user;
    it keeps its sessions, audit and logs where this process looks (`state_dir`)."""
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
        AGENT_STATE_DIR=str(state_dir),
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


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The clock durations are measured with (perf_counter), standing still unless advanced."""
    c = Clock()
    monkeypatch.setattr(time, "perf_counter", c)
    return c
