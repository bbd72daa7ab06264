"""The first run (issue 43, item 1): with no API key an interactive run sets one up — provider,
key (never echoed), model from the server's list — keeps it in ~/.agent/.env (0600) or the OS
keyring, and goes on into the REPL; cancelled, it writes nothing; a one-shot run, or one whose
stderr is not a terminal, keeps the error that names every provider."""

from __future__ import annotations

import io
import json
import socket
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest
from fake_openai import FakeOpenAI, text
from helpers import run_agent, user_settings, user_texts
from pty_term import READY, Term, plain_repl

from agent.config.providers import PRESETS

KEY = "sk-typed-by-hand-0123456789"
# A stand-in for the `keyring` package with a working backend, its store a JSON file.
FAKE_KEYRING = """
import json, os, pathlib
_STORE = pathlib.Path(os.environ["FAKE_KEYRING_STORE"])
class _Backend:
    priority = 5
    name = "FakeRing"
def get_keyring():
    return _Backend()
def _load():
    return json.loads(_STORE.read_text()) if _STORE.exists() else {}
def get_password(service, user):
    return _load().get(f"{service}/{user}")
def set_password(service, user, password):
    _STORE.write_text(json.dumps({**_load(), f"{service}/{user}": password}))
"""


@pytest.fixture
def no_key_env(fake_env: dict[str, str], fake: FakeOpenAI) -> dict[str, str]:
    """No key, model or endpoint in the environment: the user's settings send requests to
    the fake (baseUrl), and keep another key the set-up must not lose."""
    env = {k: v for k, v in fake_env.items() if k not in ("AGENT_API_KEY", "AGENT_MODEL")}
    del env["AGENT_BASE_URL"]
    user_settings(env, {"baseUrl": fake.base_url, "temperature": 0.25})
    return env


@pytest.fixture
def first_run(no_key_env: dict[str, str], project: Path) -> Iterator[Term]:
    t = Term(no_key_env, project)
    yield t
    t.close()


def _agent_dir(env: dict[str, str]) -> Path:
    return Path(env["HOME"]) / ".agent"


def test_set_up_chooses_provider_key_and_model_then_answers(
    first_run: Term, fake: FakeOpenAI, no_key_env: dict[str, str]
) -> None:
    fake.models = ["fake-model", "fake-large"]
    term = first_run
    shown = term.wait_for("Provider [1]:")
    assert "No API key for deepseek (DEEPSEEK_API_KEY)" in shown
    assert "2. openai" in shown and "ollama" in shown
    term.type("2")
    term.wait_for("OPENAI_API_KEY:")
    term.type(KEY)
    shown = term.wait_for("Model [gpt-4.1]:")
    assert "1. fake-large" in shown and "2. fake-model" in shown  # the server's own list
    term.type("1")
    term.wait_for(READY, where="bottom")
    assert "fake-large" in term.bottom()
    assert fake.model_list_headers[0]["authorization"] == f"Bearer {KEY}"
    dot_env = _agent_dir(no_key_env) / ".env"
    assert stat.S_IMODE(dot_env.stat().st_mode) == 0o600
    assert dot_env.read_text() == f"OPENAI_API_KEY={KEY}\n"
    settings = json.loads((_agent_dir(no_key_env) / "settings.json").read_text())
    assert settings == {
        "baseUrl": fake.base_url,
        "temperature": 0.25,
        "provider": "openai",
        "model": "fake-large",
    }
    fake.script(text("set up and answering"))
    term.type("hello")
    term.wait_for("set up and answering")
    term.wait_for(READY, where="bottom")
    term.send("\x04")
    assert term.wait_exit() == 0
    assert KEY not in term.raw.decode(errors="replace")  # never echoed, never printed
    assert fake.request_headers[0]["authorization"] == f"Bearer {KEY}"
    assert fake.requests[0]["model"] == "fake-large"
    assert user_texts(fake.requests[0])[-1].endswith("hello")


def test_the_key_goes_to_the_os_keyring_where_there_is_one(
    fake: FakeOpenAI, no_key_env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    """With a `keyring` that has a real backend the set-up offers it; the next runs read it."""
    lib = tmp_path / "lib"
    (lib / "keyring").mkdir(parents=True)
    (lib / "keyring" / "__init__.py").write_text(FAKE_KEYRING)
    store = tmp_path / "ring.json"
    env = {**no_key_env, "PYTHONPATH": str(lib), "FAKE_KEYRING_STORE": str(store)}
    term = Term(env, project)
    try:
        term.wait_for("Provider [1]:")
        term.type("")  # the default: deepseek
        term.wait_for("DEEPSEEK_API_KEY:")
        term.type(KEY)
        assert "1. FakeRing" in term.wait_for("Where [1]:")
        term.type("")
        shown = term.wait_for("Model [deepseek-chat]:")
        assert "1. fake-model" in shown
        term.type("")
        term.wait_for(READY, where="bottom")
        assert json.loads(store.read_text()) == {"agent/DEEPSEEK_API_KEY": KEY}
        assert not (_agent_dir(env) / ".env").exists()
        fake.script(text("from the keyring"))
        term.type("hi")
        term.wait_for("from the keyring")
        term.wait_for(READY, where="bottom")
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()
    assert KEY not in term.raw.decode(errors="replace")
    assert fake.request_headers[0]["authorization"] == f"Bearer {KEY}"
    # nothing to pin: the provider and model are what the run picks anyway
    settings = json.loads((_agent_dir(env) / "settings.json").read_text())
    assert settings == {"baseUrl": fake.base_url, "temperature": 0.25}
    # the next run, one-shot, finds the key there
    fake.script(text("again"))
    r = run_agent(env, project, "again?")
    assert r.returncode == 0, r.stderr
    assert fake.request_headers[1]["authorization"] == f"Bearer {KEY}"


def test_offline_the_model_is_typed(
    fake: FakeOpenAI, no_key_env: dict[str, str], project: Path
) -> None:
    """A server that does not answer GET /models: the set-up goes on, the name typed."""
    with socket.socket() as closed:  # bound, never listening: every connection is refused
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/v1"
        user_settings(no_key_env, {"baseUrl": url})
        term = Term(no_key_env, project)
        try:
            term.wait_for("Provider [1]:")
            term.type("3")
            term.wait_for("GROQ_API_KEY:")
            term.type(KEY)
            assert "no list of models from" in term.wait_for("Model [llama-3.3-70b-versatile]:")
            term.type("my-own-model")
            term.wait_for(READY, where="bottom")
            assert "my-own-model" in term.bottom()
            term.send("\x04")
            assert term.wait_exit() == 0
        finally:
            term.close()
    settings = json.loads((_agent_dir(no_key_env) / "settings.json").read_text())
    assert settings == {"baseUrl": url, "provider": "groq", "model": "my-own-model"}
    assert (_agent_dir(no_key_env) / ".env").read_text() == f"GROQ_API_KEY={KEY}\n"


@pytest.mark.parametrize(
    ("at", "keys", "code"),
    [
        ("Provider [1]:", "\x03", 130),  # Ctrl-C
        ("Provider [1]:", "\x04", 2),  # Ctrl-D
        ("OPENAI_API_KEY:", "\x04", 2),
        ("OPENAI_API_KEY:", "\r", 2),  # an empty key
        ("Model [gpt-4.1]:", "\x03", 130),
    ],
    ids=["ctrl-c-provider", "ctrl-d-provider", "ctrl-d-key", "empty-key", "ctrl-c-model"],
)
def test_cancelling_writes_nothing(
    first_run: Term, fake: FakeOpenAI, no_key_env: dict[str, str], at: str, keys: str, code: int
) -> None:
    fake.allow_unused()  # the model list may or may not have been asked for
    term = first_run
    settings = (_agent_dir(no_key_env) / "settings.json").read_text()
    term.wait_for("Provider [1]:")
    if at != "Provider [1]:":
        term.type("openai")
        term.wait_for("OPENAI_API_KEY:")
        if at.startswith("Model"):
            term.type(KEY)
    term.wait_for(at)
    term.send(keys)
    term.wait_for("nothing was written")
    assert term.wait_exit() == code
    assert sorted(p.name for p in _agent_dir(no_key_env).iterdir()) == ["settings.json"]
    assert (_agent_dir(no_key_env) / "settings.json").read_text() == settings
    assert fake.requests == []


def test_a_one_shot_run_keeps_the_error_naming_every_provider(
    no_key_env: dict[str, str], project: Path
) -> None:
    r = run_agent(no_key_env, project, "what is here?")
    assert r.returncode == 2
    assert "no API key for provider deepseek: set DEEPSEEK_API_KEY" in r.stderr
    for p in PRESETS.values():
        assert p.name in r.stderr
    assert str(_agent_dir(no_key_env) / ".env") in r.stderr
    assert "Provider [" not in r.stderr
    assert sorted(p.name for p in _agent_dir(no_key_env).iterdir()) == ["settings.json"]


def test_no_set_up_when_stderr_is_not_a_terminal(
    no_key_env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    """The REPL asked for (stdin a terminal) with stderr to a file: nobody would see the
    questions, so the error stands."""
    err = tmp_path / "err.txt"
    line = f"{sys.executable} -m agent 2>{err}"
    child = pexpect.spawn("bash", ["-c", line], env=no_key_env, cwd=str(project))
    child.expect(pexpect.EOF, timeout=60)
    child.close()
    assert child.exitstatus == 2
    said = err.read_text()
    assert "no API key for provider deepseek" in said and "Provider [" not in said
    assert not (_agent_dir(no_key_env) / ".env").exists()


def test_a_local_provider_needs_no_set_up(
    no_key_env: dict[str, str], project: Path, fake: FakeOpenAI
) -> None:
    user_settings(no_key_env, {"baseUrl": fake.base_url, "provider": "ollama"})
    term = Term(no_key_env, project)
    try:
        term.wait_for(READY, where="bottom")
        assert "Provider [" not in term.text()
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()


def test_a_key_in_an_untrusted_projects_env_is_named(
    no_key_env: dict[str, str], project: Path
) -> None:
    """The key is there but not read: the set-up says where and how to have it read."""
    (project / ".env").write_text("DEEPSEEK_API_KEY=sk-in-the-project\n")
    term = Term(no_key_env, project)
    try:
        shown = term.wait_for("Provider [1]:").replace("\n", "")  # a long path wraps
        assert f"(DEEPSEEK_API_KEY is in {project / '.env'}, read once you trust" in shown
        assert "agent --trust-project" in shown and "sk-in-the-project" not in shown
        term.send("\x03")
        assert term.wait_exit() == 130
    finally:
        term.close()


def test_the_plain_repl_sets_up_too(
    fake: FakeOpenAI, no_key_env: dict[str, str], project: Path
) -> None:
    """stdout piped (the line REPL), stdin and stderr terminals: the same set-up."""
    fake.script(text("plain and set up"))
    child = plain_repl(no_key_env, project)
    child.logfile_read = seen = io.BytesIO()  # all it shows
    try:
        child.expect_exact("Provider [1]:", timeout=60)
        child.send("\r")
        child.expect_exact("DEEPSEEK_API_KEY:", timeout=60)
        child.send(f"{KEY}\r")
        child.expect_exact("Model [deepseek-chat]:", timeout=60)
        child.send("fake-model\r")
        child.expect_exact("Ctrl-D exits", timeout=60)
        child.send("hello\r")
        child.expect_exact("plain and set up", timeout=60)
        child.sendeof()
        child.expect(pexpect.EOF, timeout=60)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert KEY not in seen.getvalue().decode(errors="replace")
    assert fake.request_headers[0]["authorization"] == f"Bearer {KEY}"
    assert fake.requests[0]["model"] == "fake-model"
