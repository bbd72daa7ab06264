"""Plain repositories (agent.git.safe): what git itself writes stays plain, anything else is
named; paths are followed as git follows them; the agent's own git calls refuse a repository
that is not plain until the project is trusted."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from hostile_git import arm, embed, git, gitdir_through_link, make_repo, touch

from agent.git import safe as gitsafe
from agent.git.config import plain_url
from agent.git.diff import GitError, working_diff
from agent.permissions.decide import decide
from agent.permissions.paths import Workspace
from agent.subagents import worktree as w
from agent.tools.shell.bash import BASH  # the real record: decide() reads what it is from it


def ALL(rels: list[str]) -> list[str]:
    return rels


def why(start: Path, shown: Path | str = "", hooks: bool = True) -> str:
    found = gitsafe.problem(start, hooks)
    return found.reason(shown) if found else ""


def allowed(repo: Path, command: str) -> bool:
    return decide({}, "default", BASH, {"command": command}, Workspace.make(repo)).kind == "allow"


def test_repositories_git_makes_are_plain(tmp_path: Path) -> None:
    """Every config key git 2.39 writes for init (also --shared), clone (plain, --bare,
    --mirror, --recurse-submodules), submodule add, worktree add, sparse-checkout, remote add,
    branch -u and maintenance register is on the allow-list: a normal repository never asks."""
    origin = make_repo(tmp_path / "origin")
    git(origin, "commit", "-q", "-am", "three")
    git(tmp_path, "clone", "-q", str(origin), "clone")
    git(tmp_path, "clone", "-q", "--bare", str(origin), "bare.git")
    git(tmp_path, "clone", "-q", "--mirror", str(origin), "mirror.git")
    sup = make_repo(tmp_path / "sup")
    file_ok = ("-c", "protocol.file.allow=always")
    git(sup, *file_ok, "submodule", "add", "-q", str(origin), "lib")
    git(sup, "commit", "-q", "-m", "lib")
    git(tmp_path, *file_ok, "clone", "-q", "--recurse-submodules", str(sup), "sup2")
    git(sup, "worktree", "add", "-q", str(tmp_path / "linked"))
    git(sup, "sparse-checkout", "init", "--cone")
    git(sup, "remote", "add", "up", "https://example.com/x.git")
    git(sup, "remote", "add", "scp", "git@example.com:x/y.git")
    git(sup, "update-ref", "refs/remotes/up/main", "HEAD")
    git(sup, "branch", "-q", "-u", "up/main")
    sha = make_repo(tmp_path / "sha", "--object-format=sha256")
    make_repo(tmp_path / "shared", "--shared")
    git(tmp_path / "shared", "config", "maintenance.auto", "false")  # as maintenance register
    git(tmp_path / "shared", "config", "maintenance.strategy", "incremental")
    repos = ("origin", "clone", "bare.git", "mirror.git", "sup", "sup2", "linked", "sha", "shared")
    for repo in repos:
        assert gitsafe.findings(tmp_path / repo) == [], repo
    assert (sup / ".git" / "config.worktree").exists()
    assert "url" in (tmp_path / "sup2" / ".git" / "modules" / "lib" / "config").read_text()
    assert sha.exists()


@pytest.mark.parametrize("made", ["init", "clone"])
def test_reading_git_is_still_allowed_in_a_plain_repository(tmp_path: Path, made: str) -> None:
    repo = make_repo(tmp_path / "r")
    if made == "clone":
        git(tmp_path, "clone", "-q", str(repo), "c")
        repo = tmp_path / "c"
    for command in ("git status", "git diff", "git log -p", "git show", "git status --help"):
        assert allowed(repo, command), command
    arm(repo, "help", tmp_path / "M")
    assert not allowed(repo, "git status --help")


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://github.com/a/b.git", True),
        ("http://h/x", True),
        ("ssh://git@h/x", True),
        ("git+ssh://h/x", True),
        ("git://h/x", True),
        ("file:///srv/x.git", True),
        ("git@github.com:a/b.git", True),
        ("../other", True),
        ("/srv/x.git", True),
        ("ext::sh -c touch% x", False),
        ("fd::3", False),
        ("testgit::x", False),
        ("HTTPS::x", False),
        ("gcrypt::rsync://h/x", False),
        ("foo://h/x", False),  # git would run git-remote-foo
        ("-oProxyCommand=x:y", False),
        ("", False),
        (None, False),
    ],
)
def test_plain_urls(url: str | None, ok: bool) -> None:
    assert plain_url(url) is ok


def test_only_executable_hooks_count(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    hooks = repo / ".git" / "hooks"
    assert any(p.name.endswith(".sample") and os.access(p, os.X_OK) for p in hooks.iterdir())
    (hooks / "post-index-change").write_text("#!/bin/sh\n")  # not executable: git skips it
    (hooks / "dangling").symlink_to(tmp_path / "nowhere")
    (hooks / "pre-commit.d").mkdir()
    assert gitsafe.findings(repo) == []
    (hooks / "post-merge").symlink_to("/bin/true")
    (hooks / "post-index-change").chmod(0o755)
    found = gitsafe.findings(repo)
    assert sorted(Path(f.file).name for f in found) == ["post-index-change", "post-merge"]
    assert {f.kind for f in found} == {"hook"}
    assert "post-index-change is an executable hook" in found[0].reason(repo)
    assert why(repo, hooks=False) == ""
    sub = embed(repo, "sub")
    for f in found:
        Path(f.file).unlink()
    arm(sub, "post-index-change", tmp_path / "M")
    assert "sub/.git/hooks/post-index-change" in why(repo, repo)


def test_includes_are_found_through_links_as_git_finds_them(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    arm(repo, "include", tmp_path / "M")
    origin = git(repo, "config", "--show-origin", "core.fsmonitor")
    assert origin.startswith("file:.git/lnk/../evil.conf")  # git reads .git/deep/evil.conf
    [hazard] = gitsafe.hazards(repo)
    assert hazard.file == str((repo / ".git" / "deep" / "evil.conf").resolve())
    assert hazard.key == "core.fsmonitor"


def test_a_gitdir_file_and_commondir_are_followed_through_links(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    x_git = gitdir_through_link(repo)
    git(repo, "config", "core.fsmonitor", touch(tmp_path / "M"))
    assert git(repo, "rev-parse", "--git-dir").strip() == str(x_git)
    assert "x.git/config sets core.fsmonitor" in why(repo)
    other = make_repo(tmp_path / "o")
    git(other, "worktree", "add", "-q", str(tmp_path / "wt"))
    git(other, "config", "core.fsmonitor", touch(tmp_path / "M"))
    admin = other / ".git" / "worktrees" / "wt"
    (tmp_path / "far" / "away").mkdir(parents=True)
    (admin / "l").symlink_to(tmp_path / "far" / "away")
    (admin / "commondir").write_text("l/../../o/.git\n")  # far/away/.. is far: far/../o
    assert git(tmp_path / "wt", "config", "core.fsmonitor").strip()
    assert "core.fsmonitor" in why(tmp_path / "wt")


def test_core_worktree_is_followed_through_links(tmp_path: Path) -> None:
    """The gitlinks of the index are looked for in the work tree git uses."""
    tree = make_repo(tmp_path / "x" / "w")
    arm(embed(tree, "sub"), "fsmonitor", tmp_path / "M")
    gitdir = tmp_path / "g.git"
    (tree / ".git").rename(gitdir)
    (tree / ".git").write_text(f"gitdir: {gitdir}\n")
    (tmp_path / "x" / "y").mkdir()
    (gitdir / "lnk").symlink_to(tmp_path / "x" / "y")
    git(tree, "config", "core.worktree", "lnk/../w")
    assert git(tree, "rev-parse", "--show-toplevel").strip() == str(tree)
    assert "sub/.git/config sets core.fsmonitor" in why(tree, tree)


HOSTILE = ["fsmonitor", "clean", "textconv", "include", "promisor", "gpg"]


@pytest.mark.parametrize("kind", HOSTILE)
def test_own_calls_refuse_an_untrusted_repository_that_is_not_plain(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "r")
    marker = tmp_path / "MARKER"
    arm(repo, kind, marker)
    if kind in ("clean", "textconv"):
        git(repo, "add", ".gitattributes")
        git(repo, "commit", "-q", "-m", "attributes")
    with pytest.raises(GitError, match=r"--trust-project"):
        asyncio.run(working_diff(repo, keep=ALL))
    for name, value in (("GIT_AUTHOR_NAME", "T"), ("GIT_AUTHOR_EMAIL", "t@e")):
        monkeypatch.setenv(name, value)
    with pytest.raises(w.WorktreeError, match=r"--worktree and /batch run no git"):
        w.create(repo, "t1")
    assert not (repo / ".agent" / "worktrees").exists()
    assert not marker.exists()


def test_own_calls_run_in_a_plain_repository_with_hooks(tmp_path: Path) -> None:
    """Hooks do not stop the agent's own git: git_env switches every hook off."""
    repo = make_repo(tmp_path / "r")
    marker = tmp_path / "MARKER"
    arm(repo, "post-index-change", marker)
    arm(repo, "post-checkout", marker)
    assert "+three" in asyncio.run(working_diff(repo, keep=ALL))
    wt = w.create(repo, "t1")
    assert (wt.path / "notes.txt").read_text() == "one\ntwo\n"
    assert not marker.exists()
    git(repo, "config", "diff.x.textconv", "cat")  # the repository changes under the worktree
    with pytest.raises(w.WorktreeError, match=r"diff\.x\.textconv"):
        w.commit_all(wt, "x")
    assert w.changes(w.Worktree(wt.repo, wt.path, wt.branch, wt.base, True)) == (0, 0)
    assert not marker.exists()
    # our diff refreshed the index (it holds the time 1 arm() set): make it stale again, with
    # another time (the same one was stale only when the index was racily clean: by timing)
    os.utime(repo / "stale.txt", (2, 2))
    git(repo, "status")
    assert marker.exists()  # the hook is real


def test_a_filter_hidden_behind_a_linked_include_is_emptied_when_trusted(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    marker = tmp_path / "MARKER"
    arm(repo, "include", marker)
    evil = repo / ".git" / "deep" / "evil.conf"
    evil.write_text(f'[filter "x"]\n\tclean = {touch(marker)}\n\trequired = true\n')
    (repo / ".gitattributes").write_text("*.txt filter=x\n")
    assert "+three" in asyncio.run(working_diff(repo, trusted=True, keep=ALL))
    assert not marker.exists()
    env = gitsafe.git_env(repo, {"GIT_ALLOW_PROTOCOL": "https:ext"})
    assert env["GIT_ALLOW_PROTOCOL"] == "https"
    assert "ext" not in gitsafe.git_env(repo, {})["GIT_ALLOW_PROTOCOL"]


@pytest.mark.parametrize("dangling", [False, True])
def test_info_exclude_is_never_written_through_a_link(tmp_path: Path, dangling: bool) -> None:
    repo = make_repo(tmp_path / "r")
    git(repo, "commit", "-q", "-am", "three")
    (repo / ".agent").mkdir()
    (repo / ".agent" / ".gitignore").write_text("sessions/\n")  # shipped, no worktrees/
    victim = tmp_path / "victim.rc"
    if not dangling:
        victim.write_text("export SAFE=1\n")
    exclude = repo / ".git" / "info" / "exclude"
    exclude.unlink()
    exclude.symlink_to(victim)
    with pytest.raises(w.WorktreeError, match="is a symbolic link"):
        w.create(repo, "t1")
    assert victim.exists() is not dangling
    assert dangling or victim.read_text() == "export SAFE=1\n"
    exclude.unlink()
    w.create(repo, "t2")
    assert exclude.read_text() == "/.agent/worktrees/\n"
