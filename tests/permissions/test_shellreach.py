"""Recursive searches (`grep -r`, `rg`) are judged by what they would read below their
directories, on a real tree with real symlinks."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent.permissions.paths import Workspace
from agent.permissions.shell import reach as shellreach
from agent.permissions.shell.parse import parse


def reach(command: str, ws: Workspace, base: Path | None = None) -> shellreach.Reach:
    return shellreach.recursive_read(parse(command).commands[0], ws, [base or ws.root])


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "proj"
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "deep" / "a.py").write_text("KEY = 1\n")
    (root / ".hidden").mkdir()
    (root / ".hidden" / ".env.local").write_text("KEY=secret\n")
    (root / "certs").mkdir()
    (root / "certs" / "server.pem").write_text("-----BEGIN\n")
    (root / ".env.example").write_text("KEY=\n")
    return Workspace.make(root, home=tmp_path / "home")


def test_secrets_below_are_found_where_the_tool_would_look(ws: Workspace) -> None:
    r = reach("grep -rn KEY .", ws)
    assert r.secret.startswith("grep would read ") and r.secret.endswith("may hold secrets")
    assert reach("grep -rn KEY src", ws) == shellreach.Reach()
    assert reach("grep KEY src/deep/a.py", ws) == shellreach.Reach()  # not recursive
    assert reach("rg KEY src", ws) == shellreach.Reach()
    # rg skips hidden entries: only the .pem is in its way
    assert reach("rg KEY", ws).secret == "rg would read certs/server.pem, which may hold secrets"
    (ws.root / "certs" / "server.pem").unlink()
    assert reach("rg KEY", ws) == shellreach.Reach()
    assert ".hidden/.env.local" in reach("rg --hidden KEY", ws).secret
    assert reach("grep -r KEY deep", ws, ws.root / "src") == shellreach.Reach()
    assert reach("grep -r KEY", ws, ws.root / "src") == shellreach.Reach()


def test_links_are_followed_only_by_the_flags_that_follow_them(
    ws: Workspace, tmp_path: Path
) -> None:
    (ws.root / ".hidden" / ".env.local").unlink()
    (ws.root / "certs" / "server.pem").unlink()
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws.root / "src" / "out").symlink_to(outside, target_is_directory=True)
    (ws.root / "src" / "loop").symlink_to(ws.root / "src", target_is_directory=True)
    assert reach("grep -r KEY src", ws) == shellreach.Reach()
    assert reach("grep -R KEY src", ws).unsure == "grep follows src/out outside the workspace"
    assert reach("rg -L KEY src", ws).unsure == "rg follows src/out outside the workspace"
    (ws.root / "src" / "out").unlink()
    assert reach("grep -R KEY src", ws) == shellreach.Reach()  # the loop is walked once
    (ws.root / "src" / "cfg").symlink_to(ws.root / ".hidden")
    (ws.root / "src" / "token").symlink_to(ws.root / "src" / "deep" / "a.py")
    (ws.root / ".hidden" / "id_rsa").write_text("k\n")
    assert (
        reach("grep -R KEY src", ws).secret
        == "grep would read src/cfg/id_rsa, which may hold secrets"
    )
    (ws.root / ".hidden" / "id_rsa").unlink()
    (ws.root / "src" / "key.pem").symlink_to(ws.root / "src" / "deep" / "a.py")
    assert reach("grep -R KEY src", ws).secret == "grep would follow src/key.pem: may hold secrets"


def test_a_tree_too_large_to_check_is_unknown(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shellreach, "MAX_ENTRIES", 3)
    for i in range(5):
        (ws.root / "src" / f"f{i}.txt").write_text("x\n")
    assert reach("grep -r KEY src", ws).unsure == (
        f"grep reads more than 3 files below {os.path.join(ws.root, 'src')}"
    )


def _real_tree(root: Path) -> None:
    """Secrets hold "topsecret"; `3` is a directory, so a value read as a path would reach it."""
    for name in (".env", "3/id_rsa", "t/.env"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("KEY=topsecret\n")
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("KEY = 1\n")
    (root / "t" / "a.py").write_text("KEY = 2\n")
    (root / "pats.txt").write_text("KEY\n")
    (root / "unhide.txt").write_text("!.env\n")


READS_SECRET = {
    # GNU grep: abbreviated long options, -d/--directories values, options after operands
    "grep --rec KEY .": True,
    "grep --recur KEY .": True,
    "grep --dereference-rec KEY .": True,
    "grep --directories=rec KEY .": True,
    "grep --directories recurse KEY .": True,
    "grep -d recurse KEY .": True,
    "grep -drecurse KEY .": True,
    "grep KEY . -r": True,
    "grep --col -r KEY .": True,  # --color takes a value only after `=`
    # option values and the pattern are no paths; values end a cluster
    "grep -A 3 -r KEY src": False,
    "grep -rA3 KEY src": False,
    "grep -rA 3 KEY src": False,
    "grep -m 3 -r KEY src": False,
    "grep -r 3 src": False,
    "grep -e -r src": False,
    "grep -f pats.txt -r .": True,
    "grep -r -e KEY 3": True,
    # ripgrep: -r is --replace, -g takes a glob, -uu and friends search hidden files
    "rg -r . KEY t": False,
    "rg -g 3 KEY t": False,
    "rg -u KEY t": False,
    "rg -uu KEY t": True,
    "rg -uuu KEY t": True,
    "rg -u -u KEY t": True,
    "rg --unrestricted --unrestricted KEY t": True,
    "rg -u --unrestricted KEY t": True,
    "rg -. KEY t": True,
    "rg --files t": False,
    "rg -e KEY 3": True,
    # git grep: files git does not track only with --no-index / --untracked (prefixes too)
    "git grep KEY": False,
    "git grep --no-index KEY": True,
    "git grep --no-ind KEY": True,
    "git grep --untracked KEY": True,
    "git grep --untr KEY": True,
    "git -C src grep --no-index KEY": False,
    "git grep --no-index -e KEY src": False,
    "git grep --no-index KEY 3": True,
    # rg's include globs search exactly the files they match, hidden ones too
    "rg -g '*' KEY": True,
    "rg -g .env KEY": True,
    "rg --glob=.env KEY src": False,
    "rg --iglob '.ENV' KEY": True,
    "rg -g '.ENV' KEY": False,
    "rg --glob-case-insensitive -g '.ENV' KEY": True,
    "rg -g '*.py' KEY": False,
    "rg -g 'id_*' KEY": True,
    "rg -g '!*.py' KEY": True,  # an exclude only: 3/id_rsa is searched as before
    "rg -g 'src/*' KEY": False,
    "rg -g 't/*' KEY": True,
    "rg -g '**/.env' KEY t": True,
    "rg -g '*.{env,py}' KEY src t": True,
    "rg -g '[.]e?v' KEY": True,
    "rg --ignore-file unhide.txt KEY": True,
    # diff -r reads every file below its directories (-N prints those found on one side)
    "diff -rN src .": True,
    "diff --recursive --new-file src t": True,
    "diff --rec -N src t": True,
    "diff -rN -C 3 src t": True,
    "diff -rN --no-dereference src t": True,
    "diff -rN --from-file=src t": True,
    "diff -rN --to-file 3 src": True,
    "diff -N src t": True,  # two directories: the files right in them are compared
    "diff -N src/a.py t/a.py": False,
    "diff -N 3 src": True,
    "diff -N . src": True,
    "diff -rN -L 3 -L x src/a.py t/a.py": False,
    "diff -rNW 3 src/a.py t/a.py": False,
    "diff -rN -I 3 src/a.py t/a.py": False,
    # git diff --no-index too; without it, in a work tree, only tracked files are diffed
    "git diff --no-index src t": True,
    "git diff --no-index --src-prefix 3 src t": True,
    "git diff --no-index -l 3 src/a.py t/a.py": False,
    "git diff --no-index -- src .": True,
    "git diff src t": False,
    "git diff ../outside t": True,  # a path outside the work tree implies --no-index
}


@pytest.mark.parametrize("command", list(READS_SECRET))
def test_options_are_read_the_way_the_program_reads_them(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "r"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    _real_tree(root)
    ws = Workspace.make(root, home=tmp_path / "home")
    # The real program agrees: its output shows the secret exactly when a secret is reported.
    from agent.tools.shared.walk import find_rg

    rg = find_rg()
    if command.startswith("rg") and rg is None:
        pytest.skip("no ripgrep")
    env = {"PATH": f"{os.path.dirname(rg or '/')}:{os.environ['PATH']}", "LC_ALL": "C"}
    env |= {"HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1", "PAGER": "cat"}
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True, env=env)
    subprocess.run([*git, "add", "src"], check=True, env=env)
    out = subprocess.run(command, shell=True, cwd=root, env=env, capture_output=True, text=True)
    assert ("topsecret" in out.stdout) is READS_SECRET[command], out
    assert bool(reach(command, ws).secret) is READS_SECRET[command]


def test_sessions_and_the_audit_log_are_secret_to_the_walk(ws: Workspace) -> None:
    (ws.root / ".hidden" / ".env.local").unlink()
    (ws.root / "certs" / "server.pem").unlink()
    agent = ws.root / ".agent"
    agent.mkdir()
    (agent / "settings.json").write_text("{}\n")
    assert reach("grep -r KEY .", ws) == shellreach.Reach()  # settings are no secret
    (agent / "audit.jsonl").write_text('{"args": "KEY=pasted"}\n')
    assert reach("grep -r KEY .", ws).secret == (
        "grep would read .agent/audit.jsonl: .agent/audit.jsonl records past tool calls"
    )
    (agent / "audit.jsonl").unlink()
    (agent / "sessions").mkdir()
    (agent / "sessions" / "s.jsonl").write_text('{"content": "KEY=pasted"}\n')
    past = ".agent/sessions/ holds past conversations"
    assert reach("grep -r KEY .", ws).secret == f"grep would read .agent/sessions: {past}"
    assert reach("rg KEY", ws) == shellreach.Reach()  # .agent is hidden from rg
    assert reach("rg --hidden KEY", ws).secret.endswith(past)
    inside = reach("grep -r KEY", ws, agent / "sessions")
    assert inside.secret == f"grep would read .agent/sessions: {past}"
    (ws.root / "src" / "logs").symlink_to(agent / "sessions", target_is_directory=True)
    assert reach("grep -r KEY src", ws) == shellreach.Reach()
    assert reach("grep -R KEY src", ws).secret == f"grep would follow src/logs: {past}"


def test_home_credential_stores_are_secret_when_the_workspace_is_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for name in ("proj/a.py", ".ssh/config", ".bash_history", ".config/gcloud/creds.json"):
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text("KEY=x\n")
    ws = Workspace.make(home, home=home)
    assert reach("grep -r KEY proj", ws) == shellreach.Reach()
    assert reach("grep -r KEY", ws, home / ".ssh").secret == (
        "grep would read .ssh: ~/.ssh holds credentials"
    )
    (home / "proj" / "conf").symlink_to(home / ".config", target_is_directory=True)
    assert reach("grep -R KEY proj", ws).secret == (
        "grep would read proj/conf/gcloud: ~/.config/gcloud holds credentials"
    )
    assert reach("grep -r KEY", ws, home / ".config").secret.endswith(
        "~/.config/gcloud holds credentials"
    )
    left = {".ssh", ".config/gcloud", ".bash_history"}
    while left:  # each is found, in whatever order the directories list them
        secret = reach("grep -r KEY .", ws).secret
        store = next(s for s in left if secret.endswith(f": ~/{s} holds credentials"))
        subprocess.run(["rm", "-r", str(home / store)], check=True)
        left.remove(store)
    assert reach("grep -r KEY .", ws) == shellreach.Reach()


def test_rg_searches_hidden_files_its_config_or_ignore_files_let_in(
    ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws.root / "certs" / "server.pem").unlink()
    (ws.root / ".env").write_text("TOKEN=1\n")
    assert reach("rg TOKEN", ws) == shellreach.Reach()  # hidden: rg skips it
    (ws.root / ".ignore").write_text("build/\n!.env\n")  # whitelisted: rg reads it
    assert reach("rg TOKEN", ws).secret == "rg would read .env, which may hold secrets"
    assert "would read .env" in reach("rg TOKEN src/..", ws).secret
    (ws.root / ".ignore").unlink()
    (ws.root / "src" / ".rgignore").write_text("!/.*\n")
    (ws.root / "src" / ".npmrc").write_text("//registry/:_authToken=x\n")
    assert reach("rg TOKEN", ws).secret == "rg would read src/.npmrc, which may hold secrets"
    (ws.root / "src" / ".rgignore").unlink()
    config = tmp_path / "ripgreprc"
    config.write_text("# my defaults\n--hidden\n--smart-case\n")
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", str(config))
    assert reach("rg TOKEN", ws).secret.startswith("rg would read ")
    assert reach("rg --no-config TOKEN", ws) == shellreach.Reach()


def test_diff_walks_directories_the_way_diff_compares_them(ws: Workspace, tmp_path: Path) -> None:
    (ws.root / "certs" / "server.pem").unlink()
    (ws.root / "other").mkdir()
    assert reach("diff src other", ws) == shellreach.Reach()  # deep/a.py: a level below
    assert reach("diff -r src other", ws) == shellreach.Reach()
    assert reach("diff -r . other", ws).secret == (
        "diff would read .hidden/.env.local, which may hold secrets"
    )
    assert reach("diff src/deep/a.py other/a.py", ws) == shellreach.Reach()  # files: path check
    assert reach("diff -r", ws) == shellreach.Reach()  # no operand: diff refuses
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "id_rsa").write_text("k\n")
    (ws.root / "src" / "out").symlink_to(outside, target_is_directory=True)
    (ws.root / "src" / "cfg").symlink_to(ws.root / ".hidden", target_is_directory=True)
    (ws.root / "src" / "shadow").symlink_to(ws.root / ".env.example")
    assert reach("diff -r src other", ws).secret == (
        "diff would read src/cfg/.env.local, which may hold secrets"
    )
    (ws.root / "src" / "cfg").unlink()
    assert reach("diff -r src other", ws).unsure == "diff follows src/out outside the workspace"
    assert reach("diff -r --no-dereference src other", ws) == shellreach.Reach()
    assert reach("git diff --no-index src other", ws) == shellreach.Reach()  # links as links
    assert reach("diff src other", ws) == shellreach.Reach()  # a subdirectory: only named
    (ws.root / "src" / "key").symlink_to(outside / "id_rsa")
    assert (
        reach("diff src other", ws).secret == "diff would follow src/key: id_rsa may hold secrets"
    )


def _git(root: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    env |= {"GIT_CEILING_DIRECTORIES": str(tmp_path), "LC_ALL": "C", "PAGER": "cat"}
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args]
    return subprocess.run(git, cwd=root, env=env, capture_output=True, text=True)


def test_git_diff_outside_a_work_tree_compares_directories(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    _real_tree(root)
    ws = Workspace.make(root, home=tmp_path / "home")
    for command, secret in {"diff src t": True, "diff src/a.py t/a.py": False}.items():
        assert ("topsecret" in _git(root, tmp_path, *command.split()).stdout) is secret
        assert reach(f"git {command}", ws).secret == (
            "git diff would read t/.env, which may hold secrets" if secret else ""
        )
    _git(root, tmp_path, "init", "-q")
    assert "topsecret" not in _git(root, tmp_path, "diff", "src", "t").stdout
    assert reach("git diff src t", ws) == shellreach.Reach()  # tracked files only
    assert reach("git -C src diff --no-index . ../t", ws).secret.startswith("git diff would")


GIT_OBJECT_READS = {
    "git show HEAD:.env": True,
    "git show HEAD:t/.env": True,
    "git -C t show HEAD:./.env": True,
    "git --no-pager show main:t/.env": True,
    "git -C t show HEAD:../3/id_rsa": True,
    "git cat-file -p HEAD:.env": True,
    "git cat-file blob HEAD:3/id_rsa": True,
    "git show :.env": True,
    "git show :0:.env": True,
    "git show HEAD:src/a.py": False,
    "git show HEAD:.env.example": False,
    "git cat-file -p HEAD:3": False,  # a tree: names only
}


def test_git_prints_no_secret_file_from_its_objects_unasked(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    _real_tree(root)
    (root / ".env.example").write_text("KEY=\n")
    ws = Workspace.make(root, home=tmp_path / "home")
    _git(root, tmp_path, "init", "-q", "-b", "main")
    _git(root, tmp_path, "add", "-A")
    _git(root, tmp_path, "commit", "-qm", "all")
    for command, secret in GIT_OBJECT_READS.items():
        args = command.split()[1:]
        base = root / "t" if args[0] == "-C" else root
        out = _git(base, tmp_path, *args[2:] if args[0] == "-C" else args)
        assert ("topsecret" in out.stdout) is secret, (command, out)
        assert bool(reach(command, ws).secret) is secret, command
    assert reach("git show HEAD:.env", ws).secret == (
        "git show would read .env from the repository, which may hold secrets"
    )
    assert reach("git show HEAD:home/.ssh/config", ws).secret.startswith("git show would")
    assert reach("git log -p", ws) == shellreach.Reach()  # tracked contents: left alone
    assert reach("git cat-file --batch", ws).unsure
    assert reach("git cat-file --batch-check", ws) == shellreach.Reach()


def test_rg_include_globs_search_hidden_files_they_match(ws: Workspace) -> None:
    (ws.root / "certs" / "server.pem").unlink()
    assert reach("rg KEY", ws) == shellreach.Reach()
    assert reach("rg -g '*.py' KEY", ws) == shellreach.Reach()
    r = reach("rg -g '*' KEY", ws)
    assert r.secret == "rg would read .hidden/.env.local, which may hold secrets"
    assert reach("rg -g '.env*' KEY", ws).secret.endswith(".env.local, which may hold secrets")
    assert reach("rg -g '.hidden/*' KEY", ws).secret  # rg skips .hidden: erring on asking
    assert reach("rg -g '!*.py' KEY", ws) == shellreach.Reach()  # excludes only
    agent = ws.root / ".agent"
    (agent / "sessions").mkdir(parents=True)
    (agent / "sessions" / "s.jsonl").write_text('{"content": "KEY=pasted"}\n')
    (ws.root / ".hidden" / ".env.local").unlink()
    assert reach("rg -g '*.py' KEY", ws) == shellreach.Reach()
    assert reach("rg -g '*.jsonl' KEY", ws).secret == (
        "rg would read .agent/sessions/s.jsonl: .agent/sessions/ holds past conversations"
    )


def test_a_search_s_own_filters_leave_out_what_they_exclude(ws: Workspace) -> None:
    """grep --include/--exclude/--exclude-dir and rg's `!` globs: what the command itself would
    not read is not counted (issue 20); where an include and an exclude both match, it counts."""
    agent = ws.root / ".agent"
    (agent / "sessions").mkdir(parents=True)
    (agent / "sessions" / "20260101-000000-0123abcd.jsonl").write_text("{}\n")
    (ws.root / ".hidden" / ".env.local").unlink()
    (ws.root / "certs" / "server.pem").unlink()
    (ws.root / "src" / "notes.md").write_text("# KEY\n")
    assert "sessions" in reach("grep -rn KEY .", ws).secret  # unfiltered: it would read them
    assert reach("grep -rn --include=*.md KEY .", ws) == shellreach.Reach()
    assert reach("grep -rn --include '*.py' --include=*.md KEY .", ws) == shellreach.Reach()
    assert reach("grep -rn --exclude-dir=.agent KEY .", ws) == shellreach.Reach()
    assert reach("grep -rn --exclude-dir=.ag* KEY .", ws) == shellreach.Reach()
    assert "sessions" in reach("grep -rn --include=*.jsonl KEY .", ws).secret  # it matches
    assert "sessions" in reach("grep -rn --exclude-dir=src KEY .", ws).secret
    assert reach("rg --hidden -g '!.agent' KEY", ws) == shellreach.Reach()
    assert reach("rg --hidden -g '!.agent/' -g '*.md' KEY", ws) == shellreach.Reach()
    assert "sessions" in reach("rg --hidden KEY", ws).secret
    assert "sessions" in reach("rg --hidden -g '!x/.agent' KEY", ws).secret  # not used: a `/`
    (ws.root / "src" / ".env").write_text("KEY=1\n")
    # an exclude that an include also names: the last one wins in grep, so it may be read
    assert (
        ".env"
        in reach("grep -rn --exclude-dir=.agent --exclude=.env --include=.env KEY .", ws).secret
    )
    assert reach("grep -rn --exclude-dir=.agent --exclude=.env KEY .", ws) == shellreach.Reach()


def test_a_protected_place_that_does_not_exist_is_not_counted(ws: Workspace) -> None:
    """Sessions live outside the project now: a recursive search of a fresh project asks
    about nothing it would not really read."""
    (ws.root / ".hidden" / ".env.local").unlink()
    (ws.root / "certs" / "server.pem").unlink()
    (ws.root / ".agent").mkdir()
    (ws.root / ".agent" / "settings.json").write_text("{}\n")
    assert reach("grep -rn KEY .", ws) == shellreach.Reach()
    assert reach("rg --hidden KEY", ws) == shellreach.Reach()
