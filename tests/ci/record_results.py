"""Record the job folders under tests/ci/recorded/ that the aggregation tests read: real
`agent --output-format json` runs against the scripted fake, laid out as the fan-out
workflow's artifacts download (docs/workflows/agent-fanout.yml). Run it again when the result
event changes: python tests/ci/record_results.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))

from fake_openai import FakeOpenAI, Turn, text, tool_calls  # noqa: E402

SCHEMA = ROOT / "docs" / "workflows" / "review-schema.json"
PRICE = {"prices": {"fake-model": {"in": 0.28, "cached": 0.028, "out": 0.42}}}
BIG = {"prompt_tokens": 1_800_000, "completion_tokens": 1_000, "total_tokens": 1_801_000}
APPROVE = {
    "verdict": "request_changes",
    "summary": "The retry loop never gives up on a 401.",
    "findings": [
        {"file": "src/client.py", "line": 42, "severity": "major", "message": "401 is retried"}
    ],
}
JOBS: dict[str, tuple[list[Turn], list[str], bool]] = {  # name: turns, flags, result.json
    "org--api": (
        [tool_calls([("read_file", {"path": "notes.txt"})]), text(json.dumps(APPROVE))],
        ["--output-schema", str(SCHEMA)],
        True,
    ),
    "org--web": (
        [text("Looks fine to me."), text('{"verdict": "ship it"}')],
        ["--output-schema", str(SCHEMA)],
        True,
    ),
    "org--cli": (
        [tool_calls([("read_file", {"path": "notes.txt"})], usage=BIG)],
        ["--max-budget-usd", "0.5"],
        True,
    ),
    "tasks-bump-md": ([text("Bumped requests to 2.32.3 in 3 files.")], [], False),
}


def record(name: str, turns: list[Turn], flags: list[str], whole: bool, out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI() as fake:
        home, proj = Path(tmp, "home"), Path(tmp, "proj")
        (home / ".agent").mkdir(parents=True)
        (home / ".agent" / "settings.json").write_text(json.dumps(PRICE))
        proj.mkdir()
        (proj / "notes.txt").write_text("the secret word is mango\n")
        fake.script(*turns)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "DEEPSEEK"))}
        env.update(
            AGENT_BASE_URL=fake.base_url, AGENT_API_KEY="k", AGENT_MODEL="fake-model",
            HOME=str(home), AGENT_SANDBOX="off", AGENT_STATE_DIR=str(Path(tmp, "state")),
        )  # fmt: skip
        cmd = [sys.executable, "-m", "agent", "-p", "review", "--output-format", "json", *flags]
        r = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, check=False)
    job = out / name
    job.mkdir(parents=True)
    (job / "events.jsonl").write_text(r.stdout)
    (job / "exit_code").write_text(f"{r.returncode}\n")
    if whole:
        (job / "result.json").write_text(r.stdout.splitlines()[-1] + "\n")


def main() -> None:
    out = HERE / "recorded"
    shutil.rmtree(out, ignore_errors=True)
    for name, (turns, flags, whole) in JOBS.items():
        record(name, turns, flags, whole, out)
    # a job killed before it finished (a timeout): its events stop before the result line
    killed = out / "tasks-docs-md"
    killed.mkdir()
    init = json.loads((out / "org--api" / "events.jsonl").read_text().splitlines()[0])
    lines: list[Any] = [init, {"type": "text", "text": "Reading the docs"}]
    (killed / "events.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


if __name__ == "__main__":
    main()
