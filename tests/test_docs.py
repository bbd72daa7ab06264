"""The docs site cannot drift from the code: its reference pages are what
scripts/docs_reference.py makes from the code now, every environment name the source reads is
in the table they are made from, and every shell example marked runnable
(`<!-- runnable -->` before a ```sh block, in docs/ or the README) runs as written against the
scripted model. `mkdocs build --strict` (broken links, missing pages) runs in .ci/run."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text

from agent.config.defaults import defaults
from agent.config.environment import ENVIRONMENT
from agent.subagents.records import Limits

ROOT = Path(__file__).resolve().parents[1]
RUNNABLE = re.compile(r"<!-- runnable -->\s*\n```(?:sh|bash|console)\n(.*?)```", re.S)


def test_the_reference_pages_are_made_from_the_code() -> None:
    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "docs_reference.py"), "--check"],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_environment_name_the_source_reads_is_documented() -> None:
    names = set()
    for path in (ROOT / "agent").rglob("*.py"):
        names |= set(re.findall(r"[\"'](AGENT_[A-Z][A-Z_]+)[\"']", path.read_text()))
    assert names - {n for n, _, _ in ENVIRONMENT} == set()


def test_the_subagent_defaults_said_are_the_real_ones() -> None:
    d = Limits()
    said = defaults()["subagents"]
    assert (
        f"maxDepth: {d.max_depth}, maxTurns: {d.max_steps}, maxParallel: {d.max_parallel}" in said
    )


def examples() -> list[tuple[str, str]]:
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for block in RUNNABLE.findall(page.read_text(encoding="utf-8")):
            lines = [ln for ln in block.splitlines() if ln.strip() and not ln.startswith("#")]
            found += [(page.relative_to(ROOT).as_posix(), ln) for ln in lines]
    return found


@pytest.mark.parametrize(("page", "line"), examples() or [("(none)", "")])
def test_runnable_examples_run_as_written(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path, page: str, line: str
) -> None:
    if not line:
        pytest.skip("no example is marked runnable yet")
    assert re.match(r"(echo .*\| )?agent\b", line), f"{page}: not an agent command: {line}"
    fake.default = text("an answer")  # every request answered, however many the command makes
    project = tmp_path / "proj"
    project.mkdir()
    bin_dir = Path(sys.executable).parent  # `agent` as installed beside the test's Python
    env = {**fake_env, "PATH": f"{bin_dir}:{fake_env.get('PATH', '')}"}
    r = subprocess.run(
        ["bash", "-c", line], cwd=project, env=env, capture_output=True, text=True,
        stdin=subprocess.DEVNULL, timeout=60,
    )  # fmt: skip
    assert r.returncode == 0, f"{page}: {shlex.quote(line)}\n{r.stdout}\n{r.stderr}"


def test_the_readme_is_short_and_the_test_command_is_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci.replace("pip install -q ", "pip install ") in readme  # CI's, but pip's quiet
    packages = {p.name for p in (ROOT / "agent").iterdir() if (p / "__init__.py").exists()}
    assert {p for p in packages if f"| `{p}/` |" not in readme} == set()  # the code map
