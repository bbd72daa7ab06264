"""What Codex runs unasked runs unasked here too (default mode, no rules): `base64` without an
output file, `expr`, `numfmt`, `echo` whatever its words look like, and `bash -lc` / `zsh -lc`
/ `sh -c` whose script only reads (judged by the same shell parser, command by command). Every
variant Codex does not trust still asks: an output file, a write or a removal inside the script,
a redirection, `find -delete`/`-exec`, `sed -i`."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.permissions.decide import decide
from agent.permissions.paths import Workspace
from agent.tools.builtin import builtin_tools

BASH = next(t for t in builtin_tools() if t.name == "bash")

UNASKED = [
    "base64 notes.txt",
    "base64 -d notes.txt",
    "base64 -w 0 sub/data.txt",
    "expr 1 + 2",
    "expr length notes",
    "numfmt --to=iec 1048576",
    "numfmt --from=auto 1K 2M",
    "echo /etc/passwd",
    "echo {out}/secret.txt",
    "echo ~/.ssh/id_rsa .env",
    "echo hi | base64",
    "bash -lc ls",
    "zsh -lc 'ls -1'",
    "bash -c 'cat notes.txt | wc -l'",
    "sh -c 'echo hi; pwd'",
    "bash -lc 'grep -R \"x\" -n sub || true'",  # not over .env: that asks
    "bash -lc 'ls && pwd'",
    "bash -lc 'sed -n 1,5p notes.txt'",
    "bash -lc 'find . -name notes.txt'",
    "bash -lc 'cd sub && cat data.txt'",
    "/bin/bash -lc 'expr 2 \\* 3'",
    "bash -lc \"bash -lc 'base64 notes.txt'\"",
]

ASKS = [
    "base64 -o out.b64 notes.txt",
    "base64 --output out.b64 notes.txt",
    "base64 --output=out.b64 notes.txt",
    "base64 -oout.b64 notes.txt",
    "base64 {out}/secret.txt",
    "base64 .env",
    "expr 1 + $X",
    "echo $HOME/notes",
    "echo {out}/*",
    "echo hi > {out}/x",
    "bash -lc 'rm notes.txt'",
    "bash -lc 'cat notes.txt > copy.txt'",
    "bash -lc 'ls' > listing.txt",
    "bash -lc 'find . -delete'",
    "bash -lc 'find . -exec rm {} +'",
    "bash -lc 'sed -i s/a/b/ notes.txt'",
    "bash -lc 'git push'",
    "bash -lc 'cat .env'",
    "bash -lc 'grep -R x -n'",  # the tree holds .env
    "bash -lc 'cat {out}/secret.txt'",
    "bash -lc 'echo $(rm notes.txt)'",
    "bash -lc 'ls; curl example.com'",
    "bash -lc ls extra",
    "bash -lic ls",
    'bash -c "$SCRIPT"',
    "FOO=1 bash -lc ls",
    "python -c 'print(1)'",
    "find . -delete",
    "find . -name x -exec rm {} ;",
    "sed -i s/a/b/ notes.txt",
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, Path]:
    base = tmp_path_factory.mktemp("codex_ro")
    ws, out, home = base / "proj", base / "out", base / "home"
    for d in (ws / "sub", out, home / ".ssh"):
        d.mkdir(parents=True)
    for f in (ws / "notes.txt", ws / "sub/data.txt", ws / ".env", out / "secret.txt"):
        f.write_text("x\n")
    return Workspace.make(ws, home=home), out


def judge(world: tuple[Workspace, Path], command: str) -> str:
    ws, out = world
    d = decide({}, "default", BASH, {"command": command.replace("{out}", str(out))}, ws)
    return d.kind


@pytest.mark.parametrize("command", UNASKED)
def test_runs_unasked(world: tuple[Workspace, Path], command: str) -> None:
    assert judge(world, command) == "allow"


@pytest.mark.parametrize("command", ASKS)
def test_still_asks(world: tuple[Workspace, Path], command: str) -> None:
    assert judge(world, command) == "ask"
