"""Commands the model runs never see the model API keys: a prompt injection that asks for
`printenv` gets nothing worth stealing; everything else in the environment is passed on."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.base.record import ToolContext
from agent.config.providers import hide_key, model_key_names
from agent.tools.shell.bash import BASH


async def test_model_keys_are_not_in_a_command_s_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {
        "DEEPSEEK_API_KEY": "sk-deep",
        "OPENAI_API_KEY": "sk-open",
        "AGENT_API_KEY": "sk-agent",
        "MY_GATEWAY_KEY": "sk-custom",
        "PROJECT_SETTING": "kept",
    }.items():
        monkeypatch.setenv(name, value)
    hide_key("MY_GATEWAY_KEY")  # what config does for `apiKeyEnv`
    assert {"DEEPSEEK_API_KEY", "OPENAI_API_KEY", "AGENT_API_KEY"} <= model_key_names()
    result = await BASH.run({"command": "env"}, ToolContext(cwd=tmp_path))
    assert "sk-" not in result.output
    assert "PROJECT_SETTING=kept" in result.output and "PYTHONIOENCODING=utf-8" in result.output
