"""README's "Use it from the Claude Agent SDK" example runs as written: `cli_path="agent"`
found on PATH (the installed command), the endpoint from the environment."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from fake_openai import FakeOpenAI, text

README = Path(__file__).resolve().parents[2] / "README.md"


def example() -> str:
    section = README.read_text().split("## Use it from the Claude Agent SDK", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "README's SDK section has a Python example"
    return found.group(1)


def test_the_readme_example_runs_as_written(
    fake: FakeOpenAI, agent_env: dict[str, str], project: Path
) -> None:
    code = example()
    assert len(code.strip().splitlines()) <= 12  # short enough to read at a glance
    fake.script(text("It is a calculator."))
    bin_dir = Path(sys.executable).parent  # where `pip install` put the `agent` command
    assert (bin_dir / "agent").exists()
    env = {**os.environ, **agent_env, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "It is a calculator." in done.stdout and "ResultMessage(subtype='success'" in done.stdout
    tools = [t["function"]["name"] for t in fake.requests[0]["tools"]]
    assert fake.requests[0]["messages"][-1]["content"].endswith("What does this repository do?")
    assert "read_file" in tools
