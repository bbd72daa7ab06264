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
    """Make `repo`'s own config (or hooks) run `touch marker` the way `kind` names."""
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
    elif kind in ("post-checkout", "pre-commit"):
        script = repo / ".git" / "hooks" / kind
        script.write_text(f"#!/bin/sh\n{cmd}\n")
        script.chmod(0o755)
    else:
        raise ValueError(kind)


def embed(repo: Path, name: str, *init: str) -> Path:
    """An embedded repository at `repo/name`, recorded as a gitlink but not in .gitmodules."""
    sub = make_repo(repo / name, *init)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", f"embed {name}")
    (sub / "notes.txt").write_text("changed\n")
    return sub
