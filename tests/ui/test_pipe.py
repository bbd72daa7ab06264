"""`agent … | head -1`: a reader that goes away ends the run quietly with the SIGPIPE status,
and the session is still saved (issue 20)."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import AGENT_CMD

from agent.base.messages import Message
from agent.context.compaction import is_valid
from agent.session.listing import sessions_dir
from agent.session.store import load, messages_of

LONG = "a line of the answer\n" * 120_000  # 2.5 MB: past any pipe buffer (up to 1 MiB)


@pytest.mark.parametrize("fmt", ["json", "stream-json", "text"])
def test_a_closed_pipe_ends_the_run_quietly_and_saves_it(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, state_dir: Path, fmt: str
) -> None:
    fake.allow_unused()  # the run stops where the reader left
    first = tool_calls([("read_file", {"path": "notes.txt"})], text="Reading the notes first.\n")
    fake.script(first, text(LONG, pieces=400, stall_after=0, stall_seconds=0.5))  # reader gone
    fake.script(text("never asked for"))
    env = {**fake_env, "AGENT_STATE_DIR": str(state_dir)}
    cmd = " ".join(shlex.quote(a) for a in [*AGENT_CMD, "--output-format", fmt, "summarise"])
    r = subprocess.run(
        ["bash", "-c", f"{cmd} | head -c 5 >/dev/null; echo ${{PIPESTATUS[0]}}"],
        env=env, cwd=project, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.stdout.strip() == "141", r.stderr
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr
    [session] = sessions_dir(project).glob("*.jsonl")
    history = messages_of(load(session).records)
    assert history[0]["content"].endswith("summarise")
    system: list[Message] = [{"role": "system", "content": ""}]
    assert is_valid(system + history) and history[-1]["role"] == "assistant"  # to continue from
    if fmt != "text":  # text writes its answer alone once the turn has ended: the last write
        assert LONG not in [m.get("content") for m in history]  # stopped, not run to its end
