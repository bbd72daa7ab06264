"""The repository map in a real session: the first message carries it (the system prompt
never changes), steered by the message; repoMap.tokens sets its size or turns it off; /map
shows it for the conversation; the one-shot CLI sends it too."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import user_settings
from rich.console import Console
from routed_fake import close_runs, make_run

from agent.base.tokens import estimate
from agent.commands.code import map_cmd
from agent.commands.registry import Ctx
from tests.code.trees import write

CORE = (
    "class Engine:\n    def start(self) -> None:\n        pass\n\n\n"
    "def make() -> Engine:\n    return Engine()\n"
)


@pytest.fixture(autouse=True)
async def _closed() -> AsyncIterator[None]:
    yield
    await close_runs()


def _project(root: Path) -> Path:
    files = {"core/engine.py": CORE, "misc/leaf.py": "def lonely():\n    return 1\n"}
    for i in range(6):
        files[f"app/u{i}.py"] = (
            f"from core.engine import make\n\ndef job{i}():\n    make().start()\n"
        )
    return write(root, files)


def _user(request: dict) -> str:  # type: ignore[type-arg]
    return str(request["messages"][1]["content"])


WAIT = {"wait": 60}  # a loaded machine may take its time: the map is asked to be in the message


async def test_the_first_message_carries_the_map(fake: FakeOpenAI, tmp_path: Path) -> None:
    _project(tmp_path)
    fake.script(text("one"), text("two"))
    run, _ = make_run(fake, tmp_path, settings={"repoMap": WAIT})
    system = run.agent.messages[0]["content"]
    await run.turn("where does lonely live?")
    first = _user(fake.requests[0])
    env_end, map_start = first.index("</env>"), first.index("<repo-map>")
    assert env_end < map_start < first.index("where does lonely live?")
    block = first[map_start : first.index("</repo-map>")]
    assert "core/engine.py:" in block and "class Engine" in block
    assert "def lonely()" in block  # named in the message
    assert estimate(block) <= 1000
    await run.turn("and now?")
    assert "<repo-map>" not in str(fake.requests[1]["messages"][-1]["content"])
    assert fake.requests[1]["messages"][0]["content"] == system  # the cached prefix holds


async def test_the_setting_sizes_or_turns_off_the_map(fake: FakeOpenAI, tmp_path: Path) -> None:
    _project(tmp_path / "a")
    _project(tmp_path / "b")
    fake.script(text("one"), text("two"))
    small, _ = make_run(fake, tmp_path / "a", settings={"repoMap": {"tokens": 70, **WAIT}})
    await small.turn("hi")
    block = _user(fake.requests[0]).split("<repo-map>\n")[1].split("</repo-map>")[0]
    assert estimate(block) <= 70 and "core/engine.py:" in block
    off, _ = make_run(fake, tmp_path / "b", settings={"repoMap": {"tokens": 0}})
    await off.turn("hi")
    assert "<repo-map>" not in _user(fake.requests[1])


async def test_no_code_no_map(fake: FakeOpenAI, tmp_path: Path) -> None:
    write(tmp_path, {"notes.txt": "just text\n"})
    fake.script(text("ok"))
    run, _ = make_run(fake, tmp_path)
    await run.turn("hi")
    assert "<repo-map>" not in _user(fake.requests[0])


async def test_map_command_follows_the_conversation(fake: FakeOpenAI, tmp_path: Path) -> None:
    _project(tmp_path)
    fake.script(
        tool_calls([("read_file", {"path": "misc/leaf.py"})], usage=None, usage_mode=None),
        text("read it"),
    )
    run, _ = make_run(fake, tmp_path, settings={"repoMap": {"tokens": 0}})
    await run.turn("look")
    out = io.StringIO()
    ctx = Ctx(run, Console(file=out, width=200), run.turn)
    await map_cmd(ctx, "")
    assert "repository map is off" in out.getvalue()
    await map_cmd(ctx, "60")
    shown = out.getvalue()
    assert "misc/leaf.py:" in shown  # the file the conversation read ranks first now
    assert "of 60 tokens" in shown
    await map_cmd(ctx, "lots")
    assert "usage: /map [tokens]" in out.getvalue()


def test_a_bad_setting_names_its_file(tmp_path: Path) -> None:
    from agent.config.settings import ConfigError, read_settings

    bad = tmp_path / "settings.json"
    bad.write_text(json.dumps({"repoMap": {"tokens": -5}}))
    with pytest.raises(ConfigError, match=r"settings.json: key 'repoMap.tokens' must be a whole"):
        read_settings(bad)


def test_one_shot_sends_the_map(fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path) -> None:
    proj = _project(tmp_path / "proj")
    user_settings(fake_env, {"repoMap": WAIT})
    fake.script(text("done"))
    r = subprocess.run(
        [sys.executable, "-m", "agent", "--trust-project", "what is Engine?"],
        env=fake_env,
        cwd=proj,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert r.returncode == 0, r.stderr
    assert "<repo-map>" in _user(fake.requests[0]) and "class Engine" in _user(fake.requests[0])
    cache = Path(fake_env["HOME"]) / ".cache" / "agent" / "code-tags.sqlite"
    assert cache.exists()  # in the user's cache directory, not the project
    assert not list(proj.rglob("*.sqlite"))


async def test_a_broken_grammar_costs_the_map_not_the_turn(
    fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.code import index

    def broken(*args: object, **kwargs: object) -> object:
        raise ValueError("Invalid node type")

    monkeypatch.setattr(index, "tags_for", broken)
    monkeypatch.setattr("agent.context.repomap.tags_for", broken)
    _project(tmp_path)
    fake.script(text("fine"))
    run, _ = make_run(fake, tmp_path)
    end = await run.turn("hello")
    assert end.subtype == "success" and "<repo-map>" not in _user(fake.requests[0])


async def test_a_late_map_joins_the_next_message_once(fake: FakeOpenAI, tmp_path: Path) -> None:
    """The first request never waits for the map (repoMap.wait 0 here, 0.1 s by default): it
    goes without it, and the next user message carries it, once."""
    _project(tmp_path)
    fake.script(text("one"), text("two"), text("three"))
    run, _ = make_run(fake, tmp_path, settings={"repoMap": {"wait": 0}})
    await run.turn("where does lonely live?")
    assert "<repo-map>" not in _user(fake.requests[0])
    assert run.repo_map is not None and run.repo_map.drawing is not None
    await run.repo_map.drawing  # done in the background meanwhile
    await run.turn("and Engine?")
    second = str(fake.requests[1]["messages"][-1]["content"])
    assert second.startswith("<repo-map>") and "class Engine" in second
    assert second.endswith("and Engine?")
    await run.turn("thanks")
    assert "<repo-map>" not in str(fake.requests[2]["messages"][-1]["content"])


def _commit(root: Path, message: str, init: bool = False) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    if init:
        subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "core", "app", "misc"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", message], cwd=root, check=True)


async def test_the_next_session_starts_with_the_last_whole_map(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    """A whole map is kept for the project while its git index and HEAD stay as they were:
    the next session's first message has it at once, a commit later it is drawn again."""
    _project(tmp_path)
    _commit(tmp_path, "one", init=True)
    fake.script(text("one"), text("two"), text("three"))
    first, _ = make_run(fake, tmp_path, settings={"repoMap": {"wait": 60}})
    await first.turn("where does lonely live?")
    assert first.repo_map is not None and first.repo_map.drawing is not None
    await first.repo_map.drawing
    later, _ = make_run(fake, tmp_path, settings={"repoMap": {"wait": 0}})
    await later.turn("hello again")
    assert "class Engine" in _user(fake.requests[1])  # kept, not drawn in time
    write(tmp_path, {"misc/new.py": "def fresh():\n    return 2\n"})
    _commit(tmp_path, "two")
    changed, _ = make_run(fake, tmp_path, settings={"repoMap": {"wait": 0}})
    await changed.turn("and now?")
    assert "<repo-map>" not in _user(fake.requests[2])  # the files moved on: drawn again


async def test_a_one_message_run_reads_no_map_it_could_not_use(
    fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-shot has no later message for a late map: past ONE_MESSAGE_FILES files (counted
    in the git index's header, before any listing) it reads none."""
    import agent.context.repomap as repomap

    _project(tmp_path)
    _commit(tmp_path, "one", init=True)
    monkeypatch.setattr(repomap, "ONE_MESSAGE_FILES", 3)
    fake.script(text("one"))
    run, _ = make_run(fake, tmp_path, settings={"repoMap": {"wait": 60}})
    assert run.repo_map is not None
    run.repo_map.one_message = True
    await run.turn("where does lonely live?")
    assert "<repo-map>" not in _user(fake.requests[0])
    assert run.repo_map.task is not None and not (await run.repo_map.task).files


async def test_in_a_git_project_the_map_lists_what_git_tracks(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    """The file list comes from the git index (no walk of the tree): an untracked file is not
    mapped, .agentignore still hides, and a tracked link is not read through."""
    proj = _project(tmp_path / "proj")
    outside = write(tmp_path / "outside", {"secret.py": "def outsideOnly():\n    pass\n"})
    (proj / "misc" / "link.py").symlink_to(outside / "secret.py")
    write(proj, {"misc/hidden.py": "def hiddenByIgnore():\n    pass\n"})
    (proj / ".agentignore").write_text("misc/hidden.py\n")
    _commit(proj, "one", init=True)
    write(proj, {"app/extra.py": "def untrackedName():\n    pass\n"})
    fake.script(text("one"))
    run, _ = make_run(fake, proj, settings={"repoMap": {"wait": 60, "tokens": 4000}})
    await run.turn("map it all")
    first = _user(fake.requests[0])
    assert "class Engine" in first
    for absent in ("untrackedName", "hiddenByIgnore", "outsideOnly"):
        assert absent not in first
