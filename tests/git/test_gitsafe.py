"""agent.git.safe and its readers: git's config syntax compared with git itself, the settings
that run commands, where git finds a repository's files, and the agent's own git calls
(/diff's working_diff, worktrees) leaving a hostile repository's commands unrun."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest
from hostile_git import arm, embed, git, make_repo, touch
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.git import safe as gitsafe
from agent.git.config import parse
from agent.git.diff import working_diff
from agent.git.index import BadIndex, gitlinks
from agent.subagents import worktree as w


def ALL(rels: list[str]) -> list[str]:
    return rels


def git_list(tmp: Path, text: str) -> list[tuple[str, str | None]] | None:
    """What `git config --list` reads from `text` (None: git refuses the file)."""
    path = tmp / "cfg"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    run = subprocess.run(["git", "config", "-f", str(path), "--list", "-z"], capture_output=True)
    if run.returncode:
        return None
    out = []
    for rec in run.stdout.split(b"\0")[:-1]:
        name, nl, value = rec.partition(b"\n")
        out.append((name.decode(), value.decode("utf-8", "surrogateescape") if nl else None))
    return out


def mine(text: str) -> list[tuple[str, str | None]] | None:
    parsed = parse(text)
    return None if parsed.bad else parsed.entries


CORPUS = [
    "[core]\n\tfsmonitor = touch x\n",
    "[core] fsmonitor = x",  # a header and a variable on one line, no final newline
    '[filter "MiXed"]\n\tclean = a\n',  # the subsection keeps its case
    "[Filter.MiXed]\n\tClean = a\n",  # the legacy form does not
    "[core]\n\tpager = a \\\n b\n",
    '[core]\n\tpager = "a ; b" # c\n',
    "[core]\r\n\tpager = a\r\n",
    "\ufeff[core]\n\tpager = a\n",
    '[core]\n\tpager = a\\tb\\n\\"\\\\\n',
    "[core]\n\tfsmonitor\n",
    "; c\n# d\n[core]\n  ; x\n\tpager=a;b\n",
    '[diff "a\\"b"]\n\ttextconv = c\n',
    '[ "x"]\n\ty = 1\n',
    "[a.b.c]\n\td = e\n",
    "[a]\n\tb = c\rd\n",
    "[core]\n\tpager = a\0b\n",
    '[core]\n\tpager = "a\\\nb"\n',
    "[core]\n\tpager = a\\x\n",  # bad: unknown escape
    '[core]\n\tpager = "a\n',  # bad: open quote
    "[core\n",
    '[core "sub" ]\n',
    "[core]\n\t1x = y\n",
    "[core]\n\t\vx = y\n",  # git's isspace has no \v
]


@pytest.mark.parametrize("text", CORPUS)
def test_config_is_read_as_git_reads_it(tmp_path: Path, text: str) -> None:
    assert mine(text) == git_list(tmp_path, text)


SYMBOLS = ["[", "]", '"', "\\", "\n", "\r", " ", "\t", "=", ";", "#", "a", "B", ".", "-", "1"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([*SYMBOLS, "core", "fsmonitor", "\ufeff", "é"]), max_size=20))
def test_config_parsing_agrees_with_git_on_odd_text(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str]
) -> None:
    text = "[core]\n" + "".join(parts)
    assert mine(text) == git_list(tmp_path_factory.mktemp("cfg"), text)


def write_config(repo: Path, text: str) -> None:
    with (repo / ".git" / "config").open("a") as f:
        f.write(text)


def reason(start: Path) -> str:
    found = gitsafe.problem(start)
    return found.reason(start) if found else ""


def test_a_command_setting_is_named_with_its_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    assert reason(repo) == ""
    arm(repo, "fsmonitor", tmp_path / "M")
    why = reason(repo)
    assert why.startswith(".git/config sets core.fsmonitor, which runs a command on git status")
    assert "/r/.git/config sets" in reason(repo / "notes.txt")
    assert reason(tmp_path) == ""  # not inside the repository


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("[core]\n\tfsmonitor = false\n", None),
        ("[core]\n\tfsmonitor = 0\n", None),
        ("[core]\n\tfsmonitor = true\n", "setting"),  # git's own daemon: not on the list
        ("[core]\n\tfsmonitor =\n", "setting"),
        ("[pager]\n\tlog = false\n", "setting"),
        ("[pager]\n\tlog = less -S\n", "command"),
        ("[core]\n\thooksPath = .husky\n", "command"),
        ("[alias]\n\tst = !touch x\n", "command"),
        ("[CORE] FsMonitor = x\n", "command"),
        ("[diff.X]\n\ttextconv = x\n", "command"),
        ('[diff "x"]\n\tcommand = x\n', "command"),
        ('[filter "lfs"]\n\tprocess = x\n', "command"),
        ('[filter "lfs"]\n\tsmudge = x\n', "command"),
        ("[core]\n\tsshCommand = x\n", "command"),
        ('[credential "https://x"]\n\thelper = x\n', "command"),
        ('[remote "o"]\n\tuploadpack = x\n', "command"),
        ("[gpg]\n\tprogram = x\n", "command"),
        ('[gpg "ssh"]\n\tprogram = x\n', "command"),
        ('[man "evil"]\n\tcmd = x\n', "command"),
        ("[log]\n\tshowSignature = true\n", "setting"),
        ("[diff]\n\tsubmodule = diff\n", "setting"),
        ("[extensions]\n\tpartialClone = origin\n", "setting"),
        ('[core "x"]\n\tfsmonitor = x\n', "setting"),  # core.x.fsmonitor: not git's, not plain
        ("[user]\n\tname = x\n", None),
    ],
)
def test_which_settings_are_plain(tmp_path: Path, text: str, kind: str | None) -> None:
    repo = make_repo(tmp_path / "r")
    write_config(repo, text)
    assert [f.kind for f in gitsafe.findings(repo)] == ([kind] if kind else [])
    assert len(gitsafe.hazards(repo)) == (kind == "command")


def test_included_files_are_read_too(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "extra.cfg").write_text('[diff "x"]\n\ttextconv = x\n')
    write_config(repo, '[includeIf "gitdir:/nowhere/"]\n\tpath = ../extra.cfg\n')
    assert reason(repo).startswith("extra.cfg sets diff.x.textconv")
    write_config(repo, "[include]\n\tpath = ~nobody-such-user/x\n")
    assert "could not be checked" in " ".join(h.reason() for h in gitsafe.findings(repo))
    loop = make_repo(tmp_path / "loop")
    write_config(loop, "[include]\n\tpath = config\n")  # includes itself: git stops at 10
    assert "could not be checked" in " ".join(h.reason() for h in gitsafe.findings(loop))


def test_odd_files_ask_instead_of_blocking(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    write_config(repo, "[core]\n\tpager = a\\q\n")
    assert "could not be checked" in reason(repo)
    fifo = make_repo(tmp_path / "fifo")
    (fifo / ".git" / "config").unlink()
    os.mkfifo(fifo / ".git" / "config")
    assert "could not be checked" in reason(fifo)
    bad = make_repo(tmp_path / "bad")
    embed(bad, "sub")
    (bad / ".git" / "index").write_bytes(b"DIRC\0\0\0\2\0\0\0\5" + b"\0\0\xe0\0" * 5)
    assert "could not be checked" in reason(bad)


def test_edits_are_seen_without_restarting(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    assert reason(repo) == ""
    arm(repo, "textconv", tmp_path / "M")
    assert "diff.x.textconv" in reason(repo)
    git(repo, "config", "--unset", "diff.x.textconv")
    assert reason(repo) == ""


def test_linked_worktrees_bare_repositories_and_gitdir_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    arm(repo, "fsmonitor", tmp_path / "M")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    assert "core.fsmonitor" in reason(tmp_path / "wt")
    bare = tmp_path / "b.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(bare, "config", "core.fsmonitor", "x")
    assert "core.fsmonitor" in reason(bare / "objects")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".git").write_text(f"gitdir: {bare}\n")
    assert "core.fsmonitor" in reason(linked)


@pytest.mark.parametrize(
    "setup",
    [
        [],
        ["update-index", "--index-version", "4"],
        ["update-index", "--split-index"],
    ],
)
def test_submodules_are_read_wherever_git_recurses(tmp_path: Path, setup: list[str]) -> None:
    repo = make_repo(tmp_path / "r")
    sub = embed(repo, "deep/sub")  # a gitlink not listed in .gitmodules
    if setup:
        git(repo, *setup)
    assert reason(repo) == ""
    arm(sub, "fsmonitor", tmp_path / "M")
    assert reason(repo).startswith("deep/sub/.git/config sets core.fsmonitor")
    gitdir = repo / ".git" / "modules" / "lib" / "x"
    gitdir.mkdir(parents=True)
    (gitdir / "HEAD").write_text("ref: refs/heads/main\n")
    (gitdir / "config").write_text('[diff "y"]\n\ttextconv = x\n')
    assert any(h.key == "diff.y.textconv" for h in gitsafe.hazards(repo))


def test_sha256_repositories(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", "--object-format=sha256")
    embed(repo, "sub", "--object-format=sha256")
    arm(repo / "sub", "fsmonitor", tmp_path / "M")
    assert "sub/.git/config" in reason(repo)


def test_a_broken_index_is_refused() -> None:
    with pytest.raises(BadIndex):
        gitlinks(b"DIRC\0\0\0\2\0\0\0\1" + b"\0\0\xe0\0")
    with pytest.raises(BadIndex):
        gitlinks(b"XXXX\0\0\0\2\0\0\0\0")


def test_git_env_keeps_the_callers_config_and_takes_any_driver_name(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    write_config(repo, '[filter "a=b c"]\n\tclean = x\n')
    env = gitsafe.git_env(repo, {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "user.name"})
    keys = {env[f"GIT_CONFIG_KEY_{i}"]: env[f"GIT_CONFIG_VALUE_{i}"] for i in range(1, 9)}
    assert env["GIT_CONFIG_KEY_0"] == "user.name"
    assert env["GIT_CONFIG_COUNT"] == "9"
    assert keys["core.fsmonitor"] == "false"
    assert keys["filter.a=b c.clean"] == ""
    assert keys["filter.a=b c.required"] == "false"


KINDS = ["fsmonitor", "textconv", "external", "clean", "process"]


@pytest.mark.parametrize("kind", [*KINDS, "submodule"])
def test_working_diff_runs_none_of_the_repositorys_commands(tmp_path: Path, kind: str) -> None:
    """Even in a trusted project (an untrusted one is refused: test_gitplain), git_env
    switches off what the scan names."""
    repo = make_repo(tmp_path / "r")
    marker = tmp_path / "MARKER"
    if kind == "submodule":
        arm(embed(repo, "sub"), "fsmonitor", marker)
    else:
        arm(repo, kind, marker)
    diff = asyncio.run(working_diff(repo, trusted=True, keep=ALL))
    assert "+three" in diff
    assert not marker.exists()
    subprocess.run(["git", "diff"], cwd=repo, capture_output=True)
    assert marker.exists()  # the repository really is hostile


def test_worktrees_run_no_filter_fsmonitor_or_checkout_hook(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    git(repo, "commit", "-q", "-am", "three")
    marker, checked = tmp_path / "MARKER", tmp_path / "PRE-COMMIT"
    for kind in ("smudge", "post-checkout", "fsmonitor"):
        arm(repo, kind, marker)
    arm(repo, "pre-commit", checked)
    git(repo, "config", "commit.gpgSign", "true")
    git(repo, "config", "gpg.program", touch(marker))
    wt = w.create(repo, "t1", trusted=True)  # untrusted, it is refused: test_gitplain
    assert (wt.path / "notes.txt").read_text() == "one\ntwo\nthree\n"
    (wt.path / "notes.txt").write_text("four\n")
    assert w.commit_all(wt, "four")  # without hooks=True its hooks never run
    assert not checked.exists()
    (wt.path / "notes.txt").write_text("five\n")
    assert w.commit_all(wt, "five", hooks=True)
    assert w.changes(wt) == (0, 2)
    assert not marker.exists()
    assert checked.exists()  # a trusted project's commit checks still judge a /batch commit
    git(repo, "worktree", "add", "-q", str(tmp_path / "plain"))
    assert marker.exists()  # the repository really is hostile
