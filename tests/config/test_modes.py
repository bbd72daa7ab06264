"""The permission and sandbox modes are written once (agent.config.modes): settings, flags and
the sandbox policy all check against that one definition."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest

from agent.cli import parser
from agent.config.errors import ConfigError
from agent.config.modes import MODES, SANDBOX_MODES, PermissionMode, SandboxMode, is_mode
from agent.config.settings import read_settings


def test_the_tuples_are_the_literal_types() -> None:
    assert get_args(PermissionMode) == MODES
    assert get_args(SandboxMode) == SANDBOX_MODES
    assert is_mode("acceptEdits") and not is_mode("accept_edits")


def test_the_flag_and_a_settings_file_offer_the_same_modes(tmp_path: Path) -> None:
    flag = next(a for a in parser()._actions if "--permission-mode" in a.option_strings)
    assert tuple(flag.choices or ()) == (*MODES, "auto")  # Claude Code's auto: default here
    bad = tmp_path / "settings.json"
    bad.write_text(json.dumps({"permissions": {"mode": "yolo"}}))
    with pytest.raises(ConfigError, match=", ".join(MODES)):
        read_settings(bad)
    bad.write_text(json.dumps({"sandbox": {"mode": "everything"}}))
    with pytest.raises(ConfigError, match=", ".join(SANDBOX_MODES)):
        read_settings(bad)
