"""`agent --help` fits a screen, says what every flag does, and shows how to start (issue 20)."""

from __future__ import annotations

import subprocess
import sys

from agent.cli import parser


def test_help_fits_and_every_flag_is_described() -> None:
    r = subprocess.run([sys.executable, "-m", "agent", "--help"], capture_output=True, text=True)
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert len(lines) <= 60
    for action in parser()._actions:
        assert action.help, f"{action.option_strings or action.dest} has no description"
    examples = r.stdout.split("examples:", 1)[1].split("\n\n", 1)[0].strip().splitlines()
    assert len(examples) == 4 and "agent mcp serve" in examples[-1]
    assert examples[0].split()[0] == "agent"  # the REPL
    assert any("--output-format json" in e for e in examples)  # CI
    assert "141" in r.stdout


def test_help_names_every_environment_variable_the_agent_reads() -> None:
    """Each provider's key variable and the AGENT_* settings, read from the code: a variable
    added there and not here fails."""
    import re
    from pathlib import Path

    from agent.cli import parser
    from agent.config.providers import PRESETS

    shown = parser().format_help()
    source = "\n".join(p.read_text() for p in Path("agent/config").glob("*.py"))
    wanted = {p.api_key_env for p in PRESETS.values()} | set(
        re.findall(r'"(AGENT_(?:API_KEY|BASE_URL|MODEL|SANDBOX|CACHE_DIR|STATE_DIR))"', source)
    )
    assert len(wanted) >= 10
    assert [v for v in sorted(wanted) if v not in shown] == []
