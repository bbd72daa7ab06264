"""/rewind in a real git repository: edits, creations, files bash commands deleted or wrote
over, and the "changed outside" refusal."""

from __future__ import annotations

import io
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from rich.console import Console

from agent.app import build
from agent.base.events import Recorder
from agent.commands.registry import Ctx
from agent.commands.session import rewind
from agent.config.load import Flags
from agent.session.checkpoint_shell import doomed
from agent.session.checkpoints import Checkpoint
from agent.session.rewind import Outcome, describe, listing, rewind_conversation, rewind_files
from agent.session.store import load, messages_of, sessions_dir
from agent.ui.startup import configure


def _rewind(run: Any, cp: Checkpoint) -> Outcome:
    """What /rewind N conversation does: replay up to `cp`, then put it in the agent."""
    history, out = rewind_conversation(run.store, cp)
    run.replace_history(history)
    return out


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    r = tmp_path / "repo"
    r.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=r, check=True)
    _commit(r, {"app.py": "print('v1')\n"})
    return r


@pytest.fixture
async def run(fake: FakeOpenAI, repo: Path) -> AsyncIterator[object]:
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "m"}
    cfg = configure(Flags(permission_mode="acceptEdits"), env, repo)
    r = build(cfg, Recorder())
    yield r
    await r.end()


def git_status(repo: Path) -> str:
    return subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout


async def _two_turns(fake: FakeOpenAI, run: object) -> None:
    edit = {"path": "app.py", "old_string": "v1", "new_string": "v2"}
    create = ("write_file", {"path": "new.py", "content": "x = 1\n"})
    again = {"path": "app.py", "old_string": "v2", "new_string": "v3"}
    read = tool_calls([("read_file", {"path": "app.py"})])  # edits wait for a read
    fake.script(read, tool_calls([("edit_file", edit), create]), text("edited and created"))
    fake.script(tool_calls([("edit_file", again)]), text("edited again"))
    await run.agent.run_turn("change things")  # type: ignore[attr-defined]
    await run.agent.run_turn("change more")  # type: ignore[attr-defined]


async def test_rewind_files_and_conversation(fake: FakeOpenAI, run: object, repo: Path) -> None:
    await _two_turns(fake, run)
    assert (repo / "app.py").read_text() == "print('v3')\n"
    cps = listing(run.store, run.cfg.root)
    assert [c.n for c in cps] == [1, 2]
    assert len(cps[0].files) == 2 and len(cps[1].files) == 1
    assert describe(cps[0]).endswith("change things · changed since: app.py, new.py")
    out = rewind_files(run.store, cps[1])
    assert (repo / "app.py").read_text() == "print('v2')\n" and (repo / "new.py").exists()
    out = rewind_files(run.store, cps[0])
    assert (repo / "app.py").read_text() == "print('v1')\n"
    assert not (repo / "new.py").exists()
    assert "bash" in out.message
    assert git_status(repo) == ""  # sessions and checkpoints live in the state directory
    assert run.store.path.parent == sessions_dir(repo)  # type: ignore[attr-defined]
    # a language server runs in the sandbox: its placeholders stay until it has ended
    await run.agent.ctx.lsp.aclose()  # type: ignore[attr-defined]
    run.sandbox().close()  # type: ignore[attr-defined]
    assert not (repo / ".agent").exists()
    assert _rewind(run, cps[1]).conversation
    agent = run.agent  # type: ignore[attr-defined]
    assert agent.messages[-1]["content"] == "edited and created"
    stored = messages_of(load(run.store.path).records)  # type: ignore[attr-defined]
    assert stored == agent.messages[1:]
    fake.script(text("fresh"))
    await agent.run_turn("new direction")
    sent = fake.requests[-1]["messages"]
    assert [m["role"] for m in sent][-2:] == ["assistant", "user"]
    assert sent[-2]["content"] == "edited and created"


async def test_changed_outside_is_refused(fake: FakeOpenAI, run: object, repo: Path) -> None:
    await _two_turns(fake, run)
    (repo / "app.py").write_text("print('user edit')\n")
    cp = listing(run.store, run.cfg.root)[0]
    out = rewind_files(run.store, cp)
    assert out.conflicts == [str((repo / "app.py").resolve())]
    assert (repo / "app.py").read_text() == "print('user edit')\n"
    assert not (repo / "new.py").exists()  # the file without a conflict was restored
    rewind_files(run.store, cp, force=True)
    assert (repo / "app.py").read_text() == "print('v1')\n"


async def test_rewind_past_a_compaction_uses_the_session_file(
    fake: FakeOpenAI, run: object, repo: Path
) -> None:
    from agent.context.compaction import SUMMARY_PREFIX, Policy, is_valid

    await _two_turns(fake, run)
    agent = run.agent  # type: ignore[attr-defined]
    before = [dict(m) for m in agent.messages]
    fake.script(text("## Task\nchange things"))
    agent.compaction = Policy(100_000, keep_turns=1)
    assert await agent.compact()
    assert agent.messages[1]["content"].startswith(SUMMARY_PREFIX)
    assert "change things" not in [m["content"] for m in agent.messages]
    out = _rewind(run, listing(run.store, run.cfg.root)[1])
    assert out.conversation, out.message
    cut = before.index({"role": "user", "content": "change more"})
    assert agent.messages == before[:cut]  # the first turn verbatim, not its summary
    assert is_valid(agent.messages)
    stored = messages_of(load(run.store.path).records)  # type: ignore[attr-defined]
    assert stored == agent.messages[1:]
    fake.script(text("again"))
    await agent.run_turn("other way")
    assert fake.requests[-1]["messages"][1:-1] == before[1:cut]


async def test_rewind_after_clear_and_to_the_start(fake: FakeOpenAI, run: object) -> None:
    agent = run.agent  # type: ignore[attr-defined]
    fake.script(text("a1"), text("a2"), text("a3"), text("a4"), text("fresh"))
    for q in ("t1", "t2"):
        await agent.run_turn(run.user_message(q))  # type: ignore[attr-defined]
    agent.messages[1:] = []  # what /clear does, recorded the same way
    run.store.append({"t": "rewind", "reason": "clear", "messages": []})  # type: ignore[attr-defined]
    run.first_turn = True  # type: ignore[attr-defined]
    for q in ("t3", "t4"):
        await agent.run_turn(run.user_message(q))  # type: ignore[attr-defined]
    cps = listing(run.store, run.cfg.root)
    assert [c.prompt for c in cps] == ["t1", "t2", "t3", "t4"]
    _rewind(run, cps[1])  # before t2: the conversation from before /clear
    assert [m["content"] for m in agent.messages[2:]] == ["a1"]
    assert agent.messages[1]["content"].endswith("t1")
    assert not run.first_turn  # type: ignore[attr-defined]
    _rewind(run, cps[0])  # before the very first message
    assert agent.messages[1:] == []
    await agent.run_turn(run.user_message("again"))  # type: ignore[attr-defined]
    first = fake.requests[-1]["messages"][1]["content"]
    assert first.startswith("<env>") and first.endswith("again")  # the env block is back


# Files bash commands delete (rm, rm -r, git rm, mv) or write over (mv, cp, install, >).


@pytest.fixture
async def bash_run(fake: FakeOpenAI, repo: Path) -> AsyncIterator[Any]:
    """A Run whose bash calls are allowed (outside the sandbox, which keeps `.git` read-only:
    `git rm` must run), its /rewind command context and captured output."""
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "m"}
    env["AGENT_SANDBOX"] = "off"
    r = build(configure(Flags(permission_mode="bypassPermissions"), env, repo), Recorder())
    out = io.StringIO()
    ctx = Ctx(r, Console(file=out, width=300), lambda text: r.agent.run_turn(text))
    yield r, ctx, out
    await r.agent.llm.aclose()


def _commit(repo: Path, files: dict[str, str]) -> None:
    for name, content in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(content)
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    commit = "git -c user.email=a@b -c user.name=t commit -qm more"
    subprocess.run(commit.split(), cwd=repo, check=True)


def _unstage(repo: Path) -> None:
    subprocess.run(["git", "reset", "-q"], cwd=repo, check=True)


async def _bash_turns(fake: FakeOpenAI, run: Any, *commands: str) -> None:
    for i, command in enumerate(commands):
        fake.script(tool_calls([("bash", {"command": command})]), text(f"ran {i}"))
        await run.agent.run_turn(f"turn {i}: {command}")


async def test_rewind_restores_files_deleted_by_bash(
    fake: FakeOpenAI, bash_run: Any, repo: Path
) -> None:
    run, ctx, out = bash_run
    (repo / "notes.txt").write_text("notes\n")
    (repo / "notes.txt").chmod(0o750)
    _commit(repo, {"docs/a.md": "A\n", "docs/sub/b.md": "B\n", "tracked.txt": "t\n"})
    (repo / "a.txt").write_text("untracked a\n")
    await _bash_turns(
        fake, run, "rm notes.txt", "rm -r docs", "git rm -q tracked.txt", "mv a.txt b.txt"
    )
    for gone in ("notes.txt", "docs", "tracked.txt", "a.txt"):
        assert not (repo / gone).exists()
    cps = listing(run.store, run.cfg.root)
    assert [len(cp.files) for cp in cps] == [5, 4, 2, 1]
    assert "notes.txt (deleted)" in describe(cps[0]) and "a.txt (deleted)" in describe(cps[3])
    await rewind(ctx, "")
    assert "tracked.txt (deleted)" in out.getvalue() and "git rm, mv, cp" in out.getvalue()

    await rewind(ctx, "4 files")  # mv: a.txt comes back; b.txt, made by bash, stays
    assert (repo / "a.txt").read_text() == "untracked a\n"
    assert (repo / "b.txt").read_text() == "untracked a\n"
    assert "restored 1 file(s), 1 of them deleted: a.txt" in out.getvalue()
    await rewind(ctx, "3 files")  # git rm: the file, not the index
    assert (repo / "tracked.txt").read_text() == "t\n"
    await rewind(ctx, "2 files")
    assert (repo / "docs/a.md").read_text() == "A\n"
    assert (repo / "docs/sub/b.md").read_text() == "B\n"
    assert "2 of them deleted: docs/a.md, docs/sub/b.md" in out.getvalue()
    await rewind(ctx, "1 files")
    assert (repo / "notes.txt").read_text() == "notes\n"
    assert (repo / "notes.txt").stat().st_mode & 0o777 == 0o750
    _unstage(repo)  # git rm's deletion stays staged: /rewind restores files, not the index
    status = set(git_status(repo).splitlines())
    assert status == {"?? a.txt", "?? b.txt"}  # the rest as committed
    await rewind(ctx, "1 files")
    assert out.getvalue().rstrip().splitlines()[-1].startswith("restored 0 file(s) (")


async def test_rewind_restores_files_bash_wrote_over(
    fake: FakeOpenAI, bash_run: Any, repo: Path
) -> None:
    run, ctx, out = bash_run
    committed = {"src/main.py": "v1\n", "tests/main.py": "t\n", "b.txt": "b\n", "log": "old\n"}
    _commit(repo, committed)
    edit = {"path": "src/main.py", "old_string": "v1", "new_string": "v2"}
    refused = {"path": "tests/main.py", "old_string": "absent", "new_string": "x"}
    reads = [("read_file", {"path": p}) for p in ("src/main.py", "tests/main.py")]
    fake.script(
        tool_calls(reads), tool_calls([("edit_file", edit), ("edit_file", refused)]), text("edited")
    )
    await run.agent.run_turn("edit main")
    assert "not found" in fake.requests[-1]["messages"][-1]["content"]  # the edit was refused
    first = listing(run.store, run.cfg.root)[0]
    assert describe(first).endswith("changed since: src/main.py")  # not tests/main.py
    await _bash_turns(fake, run, "mv b.txt src/main.py && cp src/main.py tests/ && echo > log")
    assert (repo / "src/main.py").read_text() == (repo / "tests/main.py").read_text() == "b\n"
    shown = "changed since: b.txt (deleted), src/main.py, tests/main.py +1"
    assert describe(listing(run.store, run.cfg.root)[1]).endswith(shown)
    await rewind(ctx, "2 files")
    assert "restored 4 file(s), 1 of them deleted: b.txt" in out.getvalue()
    assert (repo / "src/main.py").read_text() == "v2\n"  # as the edit left it
    assert (repo / "tests/main.py").read_text() == "t\n" and (repo / "log").read_text() == "old\n"
    await rewind(ctx, "1 files")  # src/main.py as committed, like the rest
    assert git_status(repo) == ""  # (.agent/.gitignore was committed too)


async def test_deleted_file_recreated_by_user_is_refused(
    fake: FakeOpenAI, bash_run: Any, repo: Path
) -> None:
    run, ctx, out = bash_run
    _commit(repo, {"notes.txt": "agent deleted this\n"})
    await _bash_turns(fake, run, "cd . && sudo rm -f ./notes.txt")
    (repo / "notes.txt").write_text("the user wrote this since\n")
    await rewind(ctx, "1 files")
    assert "changed outside the agent since, not restored" in out.getvalue()
    assert (repo / "notes.txt").read_text() == "the user wrote this since\n"
    await rewind(ctx, "1 files --force")
    assert (repo / "notes.txt").read_text() == "agent deleted this\n"


async def test_bash_without_deletions_records_nothing(
    fake: FakeOpenAI, bash_run: Any, repo: Path
) -> None:
    run, ctx, out = bash_run
    big = repo / "big"
    big.mkdir()
    for i in range(201):
        (big / f"f{i}").write_text(str(i))
    await _bash_turns(
        fake, run, "echo hi > made.txt && ls", "rm -f missing.txt $X", "rm app.py -i < /dev/null"
    )
    await _bash_turns(fake, run, "rm -r big")
    records = load(run.store.path).records
    assert not [r for r in records if r.get("t") == "snapshot" and "big/" in r["path"]]
    cps = listing(run.store, run.cfg.root)
    assert [cp.files for cp in cps] == [[], [], [], []]  # rm -i said no: app.py is unchanged
    assert "not tracked: " + str(big) + " (more than 200 files" in describe(cps[0])
    await rewind(ctx, "1 files")
    assert "not snapshotted, not restored: " + str(big) in out.getvalue()
    assert (repo / "made.txt").exists() and (repo / "app.py").exists()


def test_what_bash_would_delete_or_write_over(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "d").mkdir(parents=True)
    (ws / "e").mkdir()
    for name in ("a.txt", "b.txt", "d/c.txt", "e/c.txt"):
        (ws / name).write_text(name)
    (tmp_path / "outside.txt").write_text("o")
    (ws / "link").symlink_to(tmp_path / "outside.txt")
    (ws / "d" / "up").symlink_to(tmp_path)

    def names(command: str) -> list[str] | None:
        found = doomed(command, ws)
        return None if found is None else sorted(str(p.relative_to(ws)) for p in found.files)

    assert names("ls -la && git status") is None
    assert names("rm *.txt") == ["a.txt", "b.txt"]
    assert names("rm '*.txt' d") == []  # a quoted glob names no file; a directory needs -r
    assert names("rm -rf -- d") == ["d/c.txt"]  # the symlink below is not followed
    assert names("cd d && unlink c.txt") == ["d/c.txt"]
    assert names("cd $DIR && rm a.txt; rm $F") == []
    assert names("git -C d rm c.txt && git rm --cached a.txt && git rm -n b.txt") == ["d/c.txt"]
    assert names("mv a.txt b.txt d/") == ["a.txt", "b.txt"]
    assert names("git mv -k d e && mv -t d b.txt") == ["b.txt", "d/c.txt"]
    assert names("rm link ../outside.txt d/up/outside.txt") == []
    assert names("find . -name '*.o' | xargs rm -f a.txt") == ["a.txt"]
    assert names("echo $(rm b.txt)") == ["b.txt"]
    # What moves, copies and `>` write over: the destination, or DIR/<name of the source>.
    assert names("mv b.txt d/c.txt") == ["b.txt", "d/c.txt"]
    assert names("mv -t e d/c.txt && git mv -f a.txt e") == ["a.txt", "d/c.txt", "e/c.txt"]
    assert names("cp -r d e && cp d/c.txt e/ && install -m 644 a.txt b.txt") == ["b.txt", "e/c.txt"]
    assert names("cp -rT d e") == ["e/c.txt"]  # into e itself: its files may be replaced
    assert names("echo > a.txt 2>&1 >> b.txt; ls > /dev/null") == ["a.txt"]  # not >>
    assert names("cd d && echo > c.txt") is None  # after a cd, a relative one is not followed
