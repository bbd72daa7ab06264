"""What any language server may do to us, with a tiny one of our own (tests/lsp/tiny_server.py):
pushed diagnostics matched to the document's version, a server that answers garbage, and one
that needs more than the sandbox gives — asked about once, never without someone to ask."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from routed_fake import close_runs, make_run

from agent.app import Run
from agent.permissions.request import Answer, AskRequest
from agent.sandbox.linux import find_bwrap, probe

TINY = str(Path(__file__).with_name("tiny_server.py"))


def settings(*flags: str, **more: Any) -> dict[str, Any]:
    tiny = {"command": [sys.executable, TINY, *flags], "extensions": [".txt"]}
    return {"lsp": {"tiny": tiny}, **more}


def write(content: str, path: str = "notes.txt") -> Any:
    return tool_calls([("write_file", {"path": path, "content": content})])


def last_result(run: Run) -> str:
    return str([m for m in run.agent.messages if m["role"] == "tool"][-1]["content"])


@pytest.fixture
async def proj(tmp_path: Path) -> Any:
    root = tmp_path / "proj"
    root.mkdir()
    yield root
    await close_runs()


async def test_pushed_diagnostics_of_the_current_version(fake: FakeOpenAI, proj: Path) -> None:
    run, _ = make_run(fake, proj, settings=settings())
    fake.script(write("fine\nBAD one\nWARN two\n"), write("fine\n"), text("ok"))
    await run.turn("write it")
    first, second = [str(m["content"]) for m in run.agent.messages if m["role"] == "tool"]
    assert "notes.txt:2:1 error[bad] BAD here (tiny)" in first
    assert "notes.txt:3:1 warning[warn] WARN here (tiny)" in first
    assert "Problems" not in second  # version 2 has none: never the older push
    run, _ = make_run(fake, proj, settings=settings(editDiagnostics="errors"))
    fake.script(write("WARN only\n", "other.txt"), text("ok"))
    await run.turn("again")
    assert "Problems" not in last_result(run)


async def test_a_server_answering_garbage_leaves_the_edit_whole(
    fake: FakeOpenAI, proj: Path
) -> None:
    run, _ = make_run(fake, proj, settings=settings("--garbage"))
    fake.script(write("BAD\n"), text("ok"))
    end = await run.turn("write it")
    assert end.subtype == "success" and last_result(run).startswith("Created notes.txt")
    assert (proj / "notes.txt").read_text() == "BAD\n"
    status = {r["name"]: r for r in run.agent.ctx.lsp.status()}  # type: ignore[union-attr]
    assert "did not start" in status["tiny"]["problem"]


class Person:
    def __init__(self, answer: str) -> None:
        self.answer, self.asked = answer, []

    async def __call__(self, request: AskRequest) -> Answer:
        self.asked.append(request)
        return Answer(self.answer)


@pytest.mark.parametrize("answer", ["y", "n", None])
async def test_a_server_that_needs_more_than_the_sandbox_asks_once(
    fake: FakeOpenAI, proj: Path, answer: str | None
) -> None:
    if why := probe(find_bwrap()):
        pytest.skip(f"the kernel refuses bubblewrap here: {why}")
    person = Person(answer) if answer else None
    service = socket.create_server(("127.0.0.1", 0))
    port = str(service.getsockname()[1])
    boxed = settings("--needs", port, sandbox={"mode": "workspace-write"})
    run, _ = make_run(fake, proj, settings=boxed, asker=person)
    fake.script(write("BAD\n"), write("BAD\nBAD\n"), text("ok"))
    await run.turn("write it twice")
    shown = last_result(run)
    status = {r["name"]: r for r in run.agent.ctx.lsp.status()}  # type: ignore[union-attr]
    if person is not None:
        assert len(person.asked) == 1  # once, not at every edit
        request = person.asked[0]
        assert "tiny did not start" in request.reason and "cannot reach my" in request.reason
        assert "outside the sandbox" in request.reason and not request.for_model
    if answer == "y":
        assert "error[bad]" in shown and status["tiny"]["state"] == "running"
    else:
        assert "Problems" not in shown and "cannot reach my" in status["tiny"]["problem"]
    service.close()
