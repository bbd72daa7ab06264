"""`python -m bench.against REV [N]`: start-up of this tree against git revision REV, measured
in the same run, interleaved (noise hits both alike): `agent --version`, a one-shot hello
against the scripted fake server, and the REPL's first prompt in a pseudo-terminal. REV is
checked out into a temporary worktree and run from there (PYTHONPATH); the budget of a change
that should not touch start-up is +5 ms on each.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench.common import Table, agent_env, fake_server, run_child, stat
from bench.repl import first_prompt

PY = sys.executable
HERE = Path(__file__).resolve().parent.parent
BUDGET = 0.005


def _tree(rev: str, where: Path) -> Path:
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(where), rev],
        cwd=HERE,
        check=True,
        capture_output=True,
    )
    return where


def _env(base: dict[str, str], tree: Path) -> dict[str, str]:
    return {**base, "PYTHONPATH": str(tree)}


def _cpu(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    """CPU seconds (user + system) of one child: steadier than wall time on a busy machine,
    and what a change to the agent's own code moves."""
    proc = subprocess.Popen(
        cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd} failed")
    return usage.ru_utime + usage.ru_stime


def _pair(
    table: Table, name: str, n: int, measure: Callable[[Path], float], old: Path, rev: str
) -> None:
    measure(old), measure(HERE)  # warm: bytecode compiled, files in the page cache
    mine, theirs = [], []
    for _ in range(n):  # interleaved
        theirs.append(measure(old))
        mine.append(measure(HERE))
    now, then = stat(mine), stat(theirs)
    delta = now.median - then.median
    table.add(name, now.fmt(), f"{rev} {then.fmt()}", "+5 ms", delta <= BUDGET)
    table.add(f"{name}: change", f"{delta * 1000:+.1f} ms", "", "+5 ms", delta <= BUDGET)


def main(rev: str, n: int) -> Table:
    table = Table()
    with tempfile.TemporaryDirectory() as tmp, fake_server("--echo") as url:
        tmp_path = Path(tmp)
        old = _tree(rev, tmp_path / "old")
        try:
            home, proj = tmp_path / "home", tmp_path / "proj"
            home.mkdir()
            proj.mkdir()
            (proj / "README.md").write_text("# demo\n" + "line\n" * 200)
            env = {**agent_env(url, home), "TERM": "xterm-256color"}
            check = [PY, "-c", "import agent, sys; sys.stdout.write(agent.__file__)"]
            for tree in (old, HERE):  # as installed: bytecode compiled (pip does it)
                subprocess.run([PY, "-m", "compileall", "-q", str(tree / "agent")], check=True)
            for tree in (old, HERE):  # each run imports its own tree (cwd: not a checkout)
                found = subprocess.run(
                    check, env=_env(env, tree), cwd=proj, capture_output=True, text=True
                )
                assert found.stdout.startswith(str(tree)), (tree, found.stdout)

            def version(tree: Path) -> float:
                argv = [PY, "-m", "agent", "--version"]
                return run_child(argv, env=_env(env, tree), cwd=proj)[0]

            def oneshot(tree: Path) -> float:
                return run_child([PY, "-m", "agent", "hello"], env=_env(env, tree), cwd=proj)[0]

            def oneshot_cpu(tree: Path) -> float:
                return _cpu([PY, "-m", "agent", "hello"], _env(env, tree), proj)

            def repl(tree: Path) -> float:
                return first_prompt(["-m", "agent"], _env(env, tree), proj)

            _pair(table, "agent --version", n, version, old, rev)
            _pair(table, "one-shot hello", n, oneshot, old, rev)
            _pair(table, "one-shot hello, CPU time", n, oneshot_cpu, old, rev)
            _pair(table, "REPL first prompt", n, repl, old, rev)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=HERE)
    return table


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python -m bench.against REV [N]")
    print(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 15).markdown())
