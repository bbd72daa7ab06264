"""Where the first-run set-up keeps a key (agent.config.keystore) and how a run finds it again
(agent.config.keys): ~/.agent/.env readable by the user alone, or the OS keyring only when the
`keyring` package has a real backend; a missing key is a NoKey saying what this run would use."""

from __future__ import annotations

import importlib.machinery
import stat
import sys
import types
from pathlib import Path

import pytest

from agent.config import keystore
from agent.config.keys import NoKey
from agent.config.load import Flags, load_config
from agent.config.safefile import SymlinkRefused


def _fake_keyring(monkeypatch: pytest.MonkeyPatch, priority: float, module: str = "x") -> dict:
    """A `keyring` module whose backend has `priority` (defined in module `module`)."""
    store: dict[tuple[str, str], str] = {}
    backend = type("Backend", (), {"priority": priority, "name": "TestRing", "__module__": module})
    ring = types.ModuleType("keyring")
    ring.__spec__ = importlib.machinery.ModuleSpec("keyring", None)
    ring.get_keyring = backend  # type: ignore[attr-defined]
    ring.get_password = lambda service, user: store.get((service, user))  # type: ignore[attr-defined]
    ring.set_password = lambda s, u, p: store.__setitem__((s, u), p)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "keyring", ring)
    return store


def test_the_key_replaces_its_old_line_keeps_the_rest_and_the_file_is_0600(home: Path) -> None:
    (home / ".agent").mkdir()
    env = home / ".agent" / ".env"
    env.write_text("OTHER=1\nexport DEEPSEEK_API_KEY=old\n# a comment\n")
    env.chmod(0o644)
    assert keystore.to_env_file("DEEPSEEK_API_KEY", "sk-new") == env
    assert env.read_text() == "OTHER=1\n# a comment\nDEEPSEEK_API_KEY=sk-new\n"
    assert stat.S_IMODE(env.stat().st_mode) == 0o600


def test_a_new_env_file_is_made_0600(home: Path) -> None:
    path = keystore.to_env_file("GROQ_API_KEY", "gsk_1")
    assert path.read_text() == "GROQ_API_KEY=gsk_1\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_env_file_that_is_a_link_is_refused(home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("X=1\n")
    (home / ".agent").mkdir()
    (home / ".agent" / ".env").symlink_to(elsewhere)
    with pytest.raises(SymlinkRefused):
        keystore.to_env_file("OPENAI_API_KEY", "sk-1")
    assert elsewhere.read_text() == "X=1\n"


def test_no_keyring_package_no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "keyring", None)  # not installed (it is optional)
    assert keystore.keyring_module() is None and keystore.from_keyring("X_API_KEY") == ""
    with pytest.raises(OSError, match="no OS keyring"):
        keystore.to_keyring("X_API_KEY", "k")


@pytest.mark.parametrize(
    ("priority", "module"),
    [(0, "keyring.backends.fail"), (-1, "keyring.backends.null"), (0.5, "keyrings.alt.file")],
)
def test_a_keyring_that_keeps_nothing_is_not_offered(
    monkeypatch: pytest.MonkeyPatch, priority: float, module: str
) -> None:
    _fake_keyring(monkeypatch, priority, module)
    assert keystore.keyring_name() == ""
    assert keystore.from_keyring("DEEPSEEK_API_KEY") == ""


def test_a_key_kept_in_the_keyring_is_read_when_nothing_else_has_one(
    monkeypatch: pytest.MonkeyPatch, home: Path, tmp_path: Path
) -> None:
    store = _fake_keyring(monkeypatch, 5)
    assert keystore.keyring_name() == "TestRing"
    assert "DEEPSEEK_API_KEY" in keystore.to_keyring("DEEPSEEK_API_KEY", "sk-ring")
    assert store == {("agent", "DEEPSEEK_API_KEY"): "sk-ring"}
    env = {"HOME": str(home), "AGENT_MODEL": "m"}
    assert load_config(Flags(), env, tmp_path).api_key == "sk-ring"
    # the environment still wins
    assert load_config(Flags(), {**env, "DEEPSEEK_API_KEY": "sk-env"}, tmp_path).api_key == "sk-env"


def test_no_key_says_what_this_run_would_use(home: Path, tmp_path: Path) -> None:
    env = {"HOME": str(home), "AGENT_MODEL": "m"}
    with pytest.raises(NoKey) as raised:
        load_config(Flags(provider="openai", base_url="http://127.0.0.1:9/v1"), env, tmp_path)
    e = raised.value
    assert (e.provider.name, e.var, e.base_url, e.in_project) == (
        "openai",
        "OPENAI_API_KEY",
        "http://127.0.0.1:9/v1",
        None,
    )
    assert str(e).startswith("no API key for provider openai: set OPENAI_API_KEY")


def test_a_local_provider_needs_no_key(home: Path, tmp_path: Path) -> None:
    for name in ("ollama", "vllm", "llamacpp"):
        cfg = load_config(Flags(provider=name), {"HOME": str(home)}, tmp_path)
        assert cfg.api_key == "sk-no-key-needed"


def test_only_a_variable_name_is_written(home: Path) -> None:
    with pytest.raises(OSError, match="not a variable name"):
        keystore.to_env_file("X\nAGENT_BASE_URL=http://elsewhere", "k")
    assert not (home / ".agent" / ".env").exists()
