"""A session file is data from disk (issues 38 item 3 and 39 item 5): one planted in a repository
or edited by hand can name any path and any mode. Resumed and rewound through the real /rewind
command, it restores nothing outside the project, nothing through a link, and no mode bits
beyond a file's permissions; a repository shipping `.agent/sessions` as a git submodule (or
any nested repository) gets nothing migrated into the user's state folder, and migration moves
only regular files named as the agent names them."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from rich.console import Console

from agent.app import build
from agent.base.events import Recorder
from agent.commands.registry import Ctx
from agent.commands.session import rewind
from agent.config.load import Flags
from agent.config.statedir import project_state
from agent.config.trust import trust
from agent.session.listing import sessions_dir
from agent.session.migrate import migrate
from agent.session.restoring import plan_restore, restore
from agent.session.store import SessionFile, load
from agent.ui.startup import configure

SID = "20250101-000000-deadbeef"
PAYLOAD = b"#!/bin/sh\necho planted\n"
DIGEST = hashlib.sha256(PAYLOAD).hexdigest()


def git(cwd: Path, *args: str) -> str:
    ident = ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always"]
    return subprocess.run(
        ["git", *ident, *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "outside").mkdir()
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q")
    (r / "app.py").write_text("print('hi')\n")
    git(r, "add", ".")
    git(r, "commit", "-qm", "init")
    (r / "lnk").symlink_to(tmp_path / "outside", target_is_directory=True)
    return r


def forged_records(repo: Path) -> list[dict[str, Any]]:
    """Checkpoint 1, then snapshots that say "this file was absent/held PAYLOAD before" for
    paths chosen by an attacker, each followed by a `written` record that matches the disk as
    it is (absent), so that /rewind sees no conflict."""
    out = repo.parent / "outside"
    hostile = [
        (str(out / "abs.sh"), DIGEST, 0o6777),  # an absolute path elsewhere
        (f"{repo}/../outside/climb.sh", DIGEST, 0o6777),  # `..` out of the project
        (str(repo / "lnk" / "through.sh"), DIGEST, 0o755),  # through a link in the project
        (str(repo / "inside.sh"), DIGEST, 0o6777),  # inside: restored, permission bits only
        (str(repo / "blob.txt"), "../../../../../../etc/hostname", None),  # a blob climbing out
        (str(repo / "app.py"), None, None),  # "created by the agent": deleting it is inside
        (str(repo / ".git" / "hooks" / "pre-commit"), DIGEST, 0o755),  # runs at the next commit
        (str(repo / ".agent" / "hooks.json"), DIGEST, 0o644),  # configures the agent
        (str(repo / ".envrc"), DIGEST, 0o644),  # direnv
    ]
    records: list[dict[str, Any]] = [
        {"t": "meta", "cwd": str(repo), "model": "m", "started": 1735689600},
        {"t": "checkpoint", "n": "one", "time": 0, "prompt": "x", "msg_index": 1},  # wrong shape
        {"t": "checkpoint", "n": 1, "time": 1735689600, "prompt": "plant", "msg_index": 1},
        {"t": "message", "message": {"role": "user", "content": "plant"}},
        {"t": "message", "message": {"role": "assistant", "content": "ok"}},
        {"t": "snapshot"},  # no fields at all
        {"t": "snapshot", "n": 1, "path": ["a", "list"], "blob": None},
        {"t": "written", "path": 5, "hash": None},
        {"t": "untracked", "n": None},
    ]
    for path, blob, mode in hostile:
        records.append({"t": "snapshot", "n": 1, "path": path, "blob": blob, "mode": mode})
        now = hashlib.sha256(Path(path).read_bytes()).hexdigest() if blob is None else None
        records.append({"t": "written", "path": path, "hash": now})
    return records


def plant(folder: Path, repo: Path, sid: str = SID) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{sid}.files").mkdir(exist_ok=True)
    (folder / f"{sid}.files" / DIGEST).write_bytes(PAYLOAD)
    text = "".join(json.dumps(r) + "\n" for r in forged_records(repo))
    (folder / f"{sid}.jsonl").write_text(text)
    return folder / f"{sid}.jsonl"


@pytest.fixture
async def resumed(fake: FakeOpenAI, repo: Path) -> AsyncIterator[tuple[Any, Ctx, io.StringIO]]:
    """The forged session, found in this project's sessions folder, resumed as `agent -r`
    does, with the /rewind command's context."""
    plant(sessions_dir(repo), repo)
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "k", "AGENT_MODEL": "m"}
    cfg = configure(Flags(permission_mode="acceptEdits"), env, repo)
    run = build(cfg, Recorder(), resume_id=SID)
    out = io.StringIO()
    yield run, Ctx(run, Console(file=out, width=400), run.agent.run_turn), out
    await run.agent.llm.aclose()


async def test_rewind_of_a_forged_session_stays_inside_with_plain_modes(
    resumed: tuple[Any, Ctx, io.StringIO], repo: Path
) -> None:
    run, ctx, out = resumed
    assert [m["content"] for m in run.agent.messages[1:]] == ["plant", "ok"]
    await rewind(ctx, "")  # the listing copes with the records of the wrong shape
    await rewind(ctx, "1 files --force")
    said = out.getvalue()
    assert list((repo.parent / "outside").iterdir()) == []  # not abs.sh, climb.sh, through.sh
    inside = repo / "inside.sh"
    assert inside.read_bytes() == PAYLOAD
    assert stat.S_IMODE(inside.stat().st_mode) == 0o777  # 6777 asked: no setuid, no setgid
    assert not (repo / "blob.txt").exists() and not (repo / "app.py").exists()
    assert "restored 2 file(s)" in said
    for why in ("outside the project", "not a plain absolute path", "not a blob of this session"):
        assert why in said
    assert "through.sh (outside the project)" in said  # its real place is outside
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert not (repo / ".agent" / "hooks.json").exists() and not (repo / ".envrc").exists()
    assert "restore it by hand if you mean to" in said
    written = [r for r in load(run.store.path).records if r.get("t") == "written"]
    assert {r["path"] for r in written[-2:]} == {str(inside), str(repo / "app.py")}


async def test_a_snapshot_of_a_fifo_or_a_link_inside_never_blocks_or_follows(
    repo: Path, tmp_path: Path
) -> None:
    os.mkfifo(repo / "pipe")  # reading it would wait for a writer for ever
    (repo / "alias").symlink_to(tmp_path / "outside" / "target.txt")
    store = SessionFile(repo, "forged")
    blob = store.put_blob(PAYLOAD)
    records: list[dict[str, Any]] = [{"t": "checkpoint", "n": 1, "time": 0, "prompt": "p",
                                      "msg_index": 1}]  # fmt: skip
    for name in ("pipe", "alias"):
        path = str(repo / name)
        records += [
            {"t": "snapshot", "n": 1, "path": path, "blob": blob, "mode": 0o4755},
            {"t": "written", "path": path, "hash": None},
        ]
    plans = plan_restore(records, 1, repo)
    shown = [(Path(p.path).name, p.conflict, p.refused) for p in plans]
    assert shown == [("pipe", True, ""), ("alias", False, "outside the project")]
    assert restore(store, plans, force=True) == []  # neither replaced nor written through
    assert stat.S_ISFIFO(os.lstat(repo / "pipe").st_mode) and (repo / "alias").is_symlink()
    assert not (tmp_path / "outside" / "target.txt").exists()


def _sessions_submodule(repo: Path, kind: str) -> Path:
    """`.agent/sessions` as another repository holding a forged session: a submodule checkout
    (gitlink in the index, `.git` file), a gitlink whose `.git` is gone, or a nested clone the
    index does not list."""
    old = repo / ".agent" / "sessions"
    plant(old, repo)
    git(old, "init", "-q")
    git(old, "add", ".")
    git(old, "commit", "-qm", "sessions")
    if kind == "nested clone":
        return old
    git(repo, "add", ".agent/sessions")  # the gitlink, as `git submodule add` records it
    git(repo, "commit", "-qm", "sessions as a submodule")
    modules = repo / ".git" / "modules" / "sessions"
    modules.parent.mkdir(parents=True)
    (old / ".git").rename(modules)
    if kind == "submodule":
        (old / ".git").write_text("gitdir: ../../.git/modules/sessions\n")
    return old


@pytest.mark.parametrize("kind", ["submodule", "gitlink only", "nested clone"])
@pytest.mark.parametrize("trusted", [False, True])
def test_sessions_a_submodule_ships_are_never_migrated(
    repo: Path, kind: str, trusted: bool
) -> None:
    old = _sessions_submodule(repo, kind)
    if trusted:
        trust(repo)
    note = migrate(repo)
    assert "were left there: .agent/sessions is" in note and "came with the code" in note
    assert (old / f"{SID}.jsonl").exists() and (old / f"{SID}.files" / DIGEST).exists()
    assert not sessions_dir(repo).exists()
    cfg = configure(Flags(), {"AGENT_API_KEY": "k"}, repo)  # the start-up path: said once
    assert not any("moved" in w or "left there" in w for w in cfg.warnings)
    assert not sessions_dir(repo).exists()


def test_only_regular_files_named_as_the_agent_names_them_move(repo: Path, tmp_path: Path) -> None:
    old = repo / ".agent" / "sessions"
    plant(old, repo)
    secret = tmp_path / "outside" / "id_rsa"
    secret.write_text("PRIVATE KEY\n")
    files = old / f"{SID}.files"
    (files / ("ab" * 32)).symlink_to(secret)  # named like a blob, a link to a secret
    (files / "notes.txt").write_text("not a blob\n")
    os.mkfifo(old / "20250101-000000-0000fifo.jsonl")  # named like a session, not a file
    (old / "20250101-000000-000alink.jsonl").symlink_to(secret)
    note = migrate(repo)
    assert note.startswith("moved 1 earlier session(s)")
    new = sessions_dir(repo)
    assert sorted(p.name for p in new.iterdir()) == [f"{SID}.files", f"{SID}.jsonl"]
    assert [p.name for p in (new / f"{SID}.files").iterdir()] == [DIGEST]
    assert sorted(p.name for p in files.iterdir()) == ["ab" * 32, "notes.txt"]  # left there
    assert secret.read_text() == "PRIVATE KEY\n" and not (project_state(repo) / "id_rsa").exists()
