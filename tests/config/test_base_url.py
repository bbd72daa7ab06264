"""A base URL the client cannot use is said before any request, with the spelling to use."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config.errors import ConfigError
from agent.config.load import Flags, load_config


@pytest.mark.parametrize(
    "url", ["localhost:8080/v1", "127.0.0.1:11434", "ftp://host/v1", "http://"]
)
def test_a_base_url_without_http_or_https_is_refused_with_the_fix(tmp_path: Path, url: str) -> None:
    env = {"AGENT_BASE_URL": url, "AGENT_API_KEY": "k", "AGENT_MODEL": "m", "HOME": str(tmp_path)}
    with pytest.raises(ConfigError, match=r"needs http:// or https://: e\.g\. http://"):
        load_config(Flags(), env, tmp_path)


def test_http_and_https_urls_load(tmp_path: Path) -> None:
    for url in ("http://localhost:8080/v1", "HTTPS://api.example.com/v1"):
        env = {"AGENT_BASE_URL": url, "AGENT_API_KEY": "k", "AGENT_MODEL": "m"}
        assert load_config(Flags(), env, tmp_path).base_url == url


def test_no_key_says_where_it_goes_and_why_the_projects_env_was_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every provider and its variable; your own .env; a key in an untrusted project's .env
    named, with what to do."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    proj.mkdir()
    (proj / ".env").write_text("DEEPSEEK_API_KEY=sk-in-the-project\n")
    monkeypatch.setenv("HOME", str(home))
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    with pytest.raises(ConfigError) as said:
        load_config(Flags(), env, proj)
    text = str(said.value)
    assert text.startswith("no API key for provider deepseek: set DEEPSEEK_API_KEY")
    assert str(home / ".agent" / ".env") in text
    assert f"DEEPSEEK_API_KEY is in {proj / '.env'}" in text and "--trust-project" in text
    for other in ("openai (OPENAI_API_KEY)", "groq (GROQ_API_KEY)", "ollama (no key"):
        assert other in text
    assert "sk-in-the-project" not in text
