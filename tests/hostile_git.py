"""Real git repositories whose own config runs a command that creates a marker file.

Shared by the scanner tests (test_gitsafe.py) and the end-to-end permission tests: the same
hostile settings an unpacked archive or a shared folder could carry in `.git/config`.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str) -> str:
    """git as the attacker (or the test's own check) runs it: nothing neutralised."""
    env = {**os.environ, **GIT_ENV}
    env.pop("GIT_CONFIG_COUNT", None)
    run = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    return run.stdout


def make_repo(path: Path, *init: str) -> Path:
    """Two commits of notes.txt, then an uncommitted change to it."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main", *init)
    (path / "notes.txt").write_text("one\n")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "one")
    (path / "notes.txt").write_text("one\ntwo\n")
    git(path, "commit", "-q", "-am", "two")
    (path / "notes.txt").write_text("one\ntwo\nthree\n")
    return path


def touch(marker: Path) -> str:
    """A shell command creating `marker`; `#` drops the arguments git appends (fsmonitor)."""
    return f"touch {shlex.quote(str(marker))} #"


def arm(repo: Path, kind: str, marker: Path) -> None:
    """Make `repo`'s own config (or hooks) run `touch marker` the way `kind` names: a config
    setting (fsmonitor, textconv, external, clean, process, smudge, gpg, help, promisor,
    include) or a hook (post-checkout, pre-commit, post-index-change)."""
    cmd = touch(marker)
    attrs = {"textconv": "diff=x", "external": "diff=x", "clean": "filter=x", "process": "filter=x"}
    if kind in attrs:
        (repo / ".gitattributes").write_text(f"*.txt {attrs[kind]}\n")
    if kind == "fsmonitor":
        git(repo, "config", "core.fsmonitor", cmd)
    elif kind == "textconv":
        git(repo, "config", "diff.x.textconv", f"touch {shlex.quote(str(marker))}; cat")
    elif kind == "external":
        git(repo, "config", "diff.x.command", cmd)
    elif kind in ("clean", "process"):
        git(repo, "config", f"filter.x.{kind}", cmd)
        git(repo, "config", "filter.x.required", "true")
    elif kind == "smudge":
        (repo / ".gitattributes").write_text("*.txt filter=x\n")
        git(repo, "add", ".gitattributes")
        git(repo, "commit", "-q", "-m", "attributes")
        git(repo, "config", "filter.x.smudge", f"touch {shlex.quote(str(marker))}; cat")
        git(repo, "config", "filter.x.clean", "cat")
    elif kind in ("post-checkout", "pre-commit", "post-index-change"):
        if kind == "post-index-change":  # stale stat data, as after unpacking: git refreshes
            (repo / "stale.txt").write_text("same\n")  # the index and writes it back
            git(repo, "add", "stale.txt")
            git(repo, "commit", "-q", "-m", "stale")
            os.utime(repo / "stale.txt", (1, 1))
        script = repo / ".git" / "hooks" / kind
        script.write_text(f"#!/bin/sh\n{cmd}\n")
        script.chmod(0o755)
    else:
        _arm_more(repo, kind, marker)


def _arm_more(repo: Path, kind: str, marker: Path) -> None:
    cmd = touch(marker)
    if kind == "gpg":  # a commit with a (fake) signature; showing it runs gpg.program
        signed(repo)
        script = repo / ".git" / "gpg.sh"
        script.write_text(f"#!/bin/sh\n{cmd}\n")
        script.chmod(0o755)
        git(repo, "config", "gpg.program", str(script))
    elif kind == "help":
        git(repo, "config", "man.viewer", "evil")
        git(repo, "config", "man.evil.cmd", cmd)
    elif kind == "promisor":  # a partial clone missing a blob: git fetches it from the remote
        blob = git(repo, "rev-parse", "HEAD:notes.txt").strip()
        (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
        for key, value in (
            ("core.repositoryformatversion", "1"),
            ("extensions.partialClone", "origin"),
            ("remote.origin.url", f"ext::sh -c touch% {marker}"),
            ("remote.origin.promisor", "true"),
            ("protocol.ext.allow", "always"),
        ):
            git(repo, "config", key, value)
    elif kind == "include":  # git walks `lnk/..` through the link: .git/deep/evil.conf
        (repo / ".git" / "deep" / "deeper").mkdir(parents=True)
        (repo / ".git" / "lnk").symlink_to("deep/deeper")
        (repo / ".git" / "deep" / "evil.conf").write_text(f"[core]\n\tfsmonitor = {cmd}\n")
        with (repo / ".git" / "config").open("a") as f:
            f.write("[include]\n\tpath = lnk/../evil.conf\n")
    else:
        raise ValueError(kind)


def signed(repo: Path) -> None:
    """Replace HEAD by the same commit with a gpgsig header (no real signature needed)."""
    head, _, message = git(repo, "cat-file", "commit", "HEAD").partition("\n\n")
    sig = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n x\n -----END PGP SIGNATURE-----"
    env = {**os.environ, **GIT_ENV}
    run = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=repo,
        input=f"{head}\n{sig}\n\n{message}",
        capture_output=True,
        text=True,
        env=env,
    )
    git(repo, "update-ref", "HEAD", run.stdout.strip())


def gitdir_through_link(repo: Path) -> Path:
    """Move `repo/.git` to `<parent>/store/x.git` and point at it with `gitdir: l/../x.git`,
    `l` a link to `<parent>/store/sub`: git follows `l` before `..`; a lexical `..` would
    look for `repo/x.git`, which does not exist."""
    store = repo.parent / "store"
    (store / "sub").mkdir(parents=True)
    (repo / ".git").rename(store / "x.git")
    (repo / "l").symlink_to(store / "sub")
    (repo / ".git").write_text("gitdir: l/../x.git\n")
    git(repo.parent, f"--git-dir={store / 'x.git'}", "config", "core.worktree", str(repo))
    return store / "x.git"


def history_submodule(repo: Path, marker: Path) -> None:
    """A submodule `lib` that only history records (the index no longer lists it), whose git
    directory `vendor.git` is outside .git/modules and whose config has a textconv driver:
    `git show --submodule=diff HEAD~1` runs git in it."""
    lib = make_repo(repo / "lib")
    (lib / ".gitattributes").write_text("*.txt diff=x\n")
    git(lib, "add", ".gitattributes")
    git(lib, "commit", "-q", "-m", "attributes")
    first = git(lib, "rev-parse", "HEAD").strip()
    git(lib, "commit", "-q", "-am", "three")
    second = git(lib, "rev-parse", "HEAD").strip()
    for oid in (first, second):
        git(repo, "update-index", "--add", "--cacheinfo", f"160000,{oid},lib")
        git(repo, "commit", "-q", "-m", f"lib at {oid[:7]}")
    git(repo, "rm", "-q", "--cached", "lib")
    git(repo, "commit", "-q", "-m", "lib left the index")
    (lib / ".git").rename(repo / "vendor.git")
    (lib / ".git").write_text("gitdir: ../vendor.git\n")
    git(lib, "config", "diff.x.textconv", f"touch {shlex.quote(str(marker))}; cat")
    git(lib, "config", "core.worktree", "../lib")


def embed(repo: Path, name: str, *init: str) -> Path:
    """An embedded repository at `repo/name`, recorded as a gitlink but not in .gitmodules."""
    sub = make_repo(repo / name, *init)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", f"embed {name}")
    (sub / "notes.txt").write_text("changed\n")
    return sub
