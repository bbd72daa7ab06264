"""Project actions in process: static and dynamic checks, argv substitution, timeouts, the queue,
audit records, permissions and re-entrancy. Every action runs a real process."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agent.actions import tool as tool_actions
from agent.actions.judge import action_facts
from agent.actions.registry import MARKER, ActionError, load_actions, workspace_for
from agent.actions.tool import ActionRunner, inside_action
from agent.base.events import Recorder
from agent.base.record import Call, ToolContext, ToolResult
from agent.config.statedir import project_state
from agent.core.dispatch import compose
from agent.permissions.audit import Audit
from agent.permissions.decide import decide, workspace_of
from agent.permissions.gate import Gate
from agent.permissions.rules import Vocabulary, compile_rules

PY = sys.executable
ARGV_SCRIPT = (
    "import json, os, sys\nprint(json.dumps({'argv': sys.argv[1:], 'cwd': os.getcwd()}))\n"
)
# Logs when it ran. It first waits (20 s at most) until `together` runs of it have started, so
# runs that may overlap do, however late a busy machine starts the second.
SLOW_SCRIPT = """import glob, os, sys, time
log, seconds, together = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
t0 = time.time()
open(f"{log}.{os.getpid()}.started", "w").close()
deadline = time.monotonic() + 20
while len(glob.glob(log + ".*.started")) < together and time.monotonic() < deadline:
    time.sleep(0.02)
time.sleep(seconds)
with open(log, "a") as fh:
    fh.write(f"{t0} {time.time()}\\n")
"""
GRANDCHILD_SCRIPT = """import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
open(sys.argv[1], "w").write(str(child.pid))
time.sleep(120)
"""


def act(id: str, **kw: Any) -> dict[str, Any]:
    return {"id": id, "description": f"{id} action", "command": PY, **kw}


ECHO = act(
    "echo",
    args=["argv.py", "${msg}", "--n=${n}"],
    params=[
        {"name": "msg", "type": "string", "required": True},
        {"name": "n", "type": "integer", "default": 3},
    ],
    tags=["dev"],
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / ".agent").mkdir(parents=True)
    (p / "argv.py").write_text(ARGV_SCRIPT)
    (p / "slow.py").write_text(SLOW_SCRIPT)
    (p / "grandchild.py").write_text(GRANDCHILD_SCRIPT)
    return p


def write(root: Path, *actions: Any) -> None:
    (root / ".agent" / "actions.json").write_text(json.dumps({"actions": list(actions)}))


def runner(root: Path, *actions: Any, settings: dict[str, Any] | None = None) -> ActionRunner:
    write(root, *actions)
    loaded = load_actions(root, trusted=True)
    assert not loaded.warnings, loaded.warnings
    return ActionRunner(loaded.actions, root, settings, "sess")


async def argv_of(r: ActionRunner, action_id: str, params: dict[str, Any]) -> dict[str, Any]:
    outcome = await r.run(r.prepare(action_id, params, model=True))
    assert outcome.code == 0, outcome.for_model()
    return json.loads(outcome.stdout)


# ---------- loading and static validation ----------


def test_a_valid_action_loads_with_defaults(root: Path) -> None:
    write(root, ECHO, {"id": "min", "description": "d", "command": "true"})
    loaded = load_actions(root, trusted=True)
    assert loaded.warnings == ()
    echo, minimal = loaded.actions
    assert (echo.id, echo.tags, [p.name for p in echo.params]) == ("echo", ("dev",), ["msg", "n"])
    assert (minimal.name, minimal.timeout, minimal.cwd) == ("min", 60.0, "${workspaceRoot}")
    assert (minimal.args, minimal.requires_confirm, minimal.allow_parallel) == ((), False, False)


def param(name: str, kind: str = "string", **kw: Any) -> dict[str, Any]:
    return {"name": name, "type": kind, **kw}


def shell(script: str, *params: dict[str, Any]) -> dict[str, Any]:
    return {**act("x", params=list(params)), "command": "bash", "args": ["-c", script]}


BAD = [
    ("float-param", act("x", params=[param("a", "float")]), "params[0].type"),
    ("no-command", {"id": "x", "description": "d"}, "'command': is required"),
    ("timeout-high", act("x", timeout=301), "'timeout'"),
    ("timeout-zero", act("x", timeout=0), "'timeout'"),
    ("undefined", act("x", args=["${nope}"]), "args[0]': placeholder ${nope}"),
    ("unset-in-cwd", act("x", cwd="${d}", params=[param("d")]), "'cwd'"),
    ("param-program", {**act("x", params=[param("p")]), "command": "${p}"}, "'command'"),
    ("rm-rf", {**act("x"), "command": "rm", "args": ["-rf", "/"]}, "rm -rf"),
    ("rm-in-shell", shell("cd b && rm -fr ~/"), "rm -rf"),
    ("mkfs", {**act("x"), "command": "mkfs.ext4", "args": ["/dev/sdb1"]}, "mkfs"),
    ("dd", {**act("x"), "command": "dd", "args": ["if=a.img", "of=/dev/sda"]}, "dd to a device"),
    ("fork-bomb", shell(":(){ :|:& };:"), "fork bomb"),
    ("param-in-shell-code", shell("echo ${m}", param("m")), "args[1]': a param is spliced"),
    ("param-in-python", act("x", args=["-c", "print('${m}')"], params=[param("m")]), "args[1]"),
    ("typo-field", {**act("x"), "timout": 5}, "'timout': is not a known field"),
    ("bad-id", act("Not A Slug"), "not a slug"),
    ("default-type", act("x", params=[param("n", "integer", default="two")]), "default"),
    ("default-enum", act("x", params=[param("n", enum=["a"], default="b")]), "enum"),
    ("reserved", act("x", params=[param("workspaceRoot")]), "params[0].name"),
]


@pytest.mark.parametrize(("case", "bad", "field"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_action_is_skipped_with_a_warning_naming_it(
    root: Path, case: str, bad: dict[str, Any], field: str
) -> None:
    write(root, bad, ECHO)
    loaded = load_actions(root, trusted=True)
    assert [a.id for a in loaded.actions] == ["echo"]
    assert len(loaded.warnings) == 1
    warning = loaded.warnings[0]
    name = repr(bad["id"]) if "id" in bad else "#1"
    assert f"action {name} skipped" in warning
    assert field in warning


async def test_safe_shell_use_is_allowed(root: Path) -> None:
    ok = [
        {**act("a", params=[{"name": "m", "type": "string"}]), "command": "bash",
         "args": ["-c", 'printf "%s|%s|%s" "$1" "$HOME" "$${HOME}"', "_", "${m}"]},
        {**act("b"), "command": "rm", "args": ["-rf", "build/", "/tmp/x", "./"]},
        act("c", args=["argv.py", "-c", "${m}"], params=[{"name": "m", "type": "string"}]),
    ]  # fmt: skip
    write(root, *ok)
    loaded = load_actions(root, trusted=True)
    assert [a.id for a in loaded.actions] == ["a", "b", "c"]
    r = ActionRunner(loaded.actions, root)
    outcome = await r.run(r.prepare("a", {"m": "v"}))
    assert outcome.stdout == f"v|{os.environ.get('HOME', '')}|{os.environ.get('HOME', '')}"


def test_duplicates_non_objects_and_broken_files(root: Path) -> None:
    write(root, ECHO, ECHO, "not an object")
    loaded = load_actions(root, trusted=True)
    assert [a.id for a in loaded.actions] == ["echo"]
    assert "'echo' skipped: field 'id': an earlier action" in loaded.warnings[0]
    assert "action #3 skipped" in loaded.warnings[1]
    (root / ".agent" / "actions.json").write_text('{"actions": [\n  oops]}')
    (broken,) = load_actions(root, trusted=True).warnings
    assert "invalid JSON at line 2" in broken
    (root / ".agent" / "actions.json").write_text("[]")
    assert "expected" in load_actions(root, trusted=True).warnings[0]


def test_untrusted_or_nested_loads_nothing(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(root, ECHO)
    loaded = load_actions(root, trusted=False)
    assert loaded.actions == ()
    assert "not trusted" in loaded.warnings[0]
    monkeypatch.setenv(MARKER, "other")
    loaded = load_actions(root, trusted=True)
    assert loaded.actions == ()
    assert "inside an action run" in loaded.warnings[0]
    assert load_actions(root.parent, trusted=True) == load_actions(root.parent, False)  # no file


# ---------- dynamic validation and substitution ----------

HOSTILE = [
    "; rm -rf /tmp/nothing; touch PWNED",
    "$(touch PWNED)",
    "`touch PWNED`",
    "a b  c",
    "line1\nline2; touch PWNED",
    "' \" \\ | & > PWNED",
    "${workspaceRoot}",
    "*",
    "~",
    " x ",
]


async def test_hostile_values_stay_single_literal_arguments(root: Path) -> None:
    r = runner(root, ECHO)
    for value in HOSTILE:
        out = await argv_of(r, "echo", {"msg": value})
        assert out["argv"] == [value, "--n=3"]
    out = await argv_of(r, "echo", {"msg": "x", "n": "7"})
    assert out["argv"] == ["x", "--n=7"]
    assert not (root / "PWNED").exists()
    with pytest.raises(ActionError, match="NUL"):
        r.prepare("echo", {"msg": "a\x00b"})


async def test_shell_actions_receive_params_as_positional_args(root: Path) -> None:
    shell = {
        **act("sh", params=[{"name": "m", "type": "string"}]),
        "command": "bash",
        "args": ["-c", 'printf "%s" "$1"', "_", "${m}"],
    }
    r = runner(root, shell)
    outcome = await r.run(r.prepare("sh", {"m": "$(touch PWNED); `id`"}))
    assert outcome.stdout == "$(touch PWNED); `id`"
    assert not (root / "PWNED").exists()


async def test_option_injection_is_refused(root: Path) -> None:
    flag = act(
        "f",
        args=["argv.py", "${ref}", "--to=${to}", "${mode}", "${n}", "${pre}x"],
        params=[
            {"name": "ref", "type": "string", "required": True},
            {"name": "to", "type": "string"},
            {"name": "mode", "type": "string", "enum": ["--fast", "--slow"], "default": "--fast"},
            {"name": "n", "type": "integer"},
            {"name": "pre", "type": "string"},
        ],
    )
    r = runner(root, flag)
    with pytest.raises(ActionError, match="starts with '-'"):
        r.prepare("f", {"ref": "--output=/etc/passwd"})
    with pytest.raises(ActionError, match="starts with '-'"):
        r.prepare("f", {"ref": "-"})
    out = await argv_of(r, "f", {"ref": "main", "to": "-x y", "mode": "--slow"})
    assert out["argv"] == ["main", "--to=-x y", "--slow"]
    assert (await argv_of(r, "f", {"ref": "main"}))["argv"] == ["main", "--fast"]  # unset: dropped
    assert (await argv_of(r, "f", {"ref": "m", "n": -5}))["argv"] == ["m", "--fast", "-5"]
    with pytest.raises(ActionError, match="'pre' starts with '-'"):
        r.prepare("f", {"ref": "main", "pre": "--exec="})


def test_param_types_enums_and_names(root: Path) -> None:
    typed = act(
        "t",
        args=["argv.py", "${i}", "${x}", "${b}", "${e}"],
        params=[
            {"name": "i", "type": "integer", "required": True},
            {"name": "x", "type": "number", "default": 1.5},
            {"name": "b", "type": "boolean", "default": False},
            {"name": "e", "type": "string", "enum": ["dev", "prod"], "default": "dev"},
        ],
    )
    r = runner(root, typed)
    assert r.prepare("t", {"i": "5", "b": "yes"}).argv[2:] == ("5", "1.5", "true", "dev")
    assert r.prepare("t", {"i": 2.0, "x": "2.25"}).params == {
        "i": 2,
        "x": 2.25,
        "b": False,
        "e": "dev",
    }
    bad = [
        ({}, "needs param i"),
        ({"i": "abc"}, "must be a integer"),
        ({"i": 1.5}, "must be a integer"),
        ({"i": True}, "must be a integer"),
        ({"i": 1, "b": "maybe"}, "must be a boolean"),
        ({"i": 1, "e": "staging"}, "must be one of dev, prod"),
        ({"i": 1, "zzz": 1}, "has no param 'zzz'"),
    ]
    for params, message in bad:
        with pytest.raises(ActionError, match=message):
            r.prepare("t", params)
    with pytest.raises(ActionError, match="params must be an object"):
        r.prepare("t", ["i", 1])
    with pytest.raises(ActionError, match="unknown action 'nope'; available: t"):
        r.prepare("nope", {})


async def test_cwd_must_exist_inside_the_workspace(root: Path, tmp_path: Path) -> None:
    (root / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "proj2").mkdir()
    (root / "escape").symlink_to(tmp_path, target_is_directory=True)
    where = act(
        "w",
        args=[str(root / "argv.py")],
        cwd="${workspaceRoot}/${dir}",
        params=[{"name": "dir", "type": "string", "required": True}],
    )
    r = runner(root, where)
    out = await argv_of(r, "w", {"dir": "pkg/sub"})
    assert out["cwd"] == str((root / "pkg" / "sub").resolve())
    for value, message in [
        ("../..", "outside the workspace"),
        ("../proj2", "outside the workspace"),
        ("escape", "outside the workspace"),
        ("missing", "does not exist"),
        ("argv.py", "not a directory"),
    ]:
        with pytest.raises(ActionError, match=message):
            r.prepare("w", {"dir": value})


def test_deny_list_is_checked_again_after_substitution(root: Path) -> None:
    clean = {
        **act("clean", params=[{"name": "target", "type": "string", "required": True}]),
        "command": "rm",
        "args": ["-rf", "${target}"],
    }
    r = runner(root, clean)
    with pytest.raises(ActionError, match=r"refused: rm -rf"):
        r.prepare("clean", {"target": "/"})
    assert r.prepare("clean", {"target": "build"}).argv == ("rm", "-rf", "build")


# ---------- params as code behind wrappers; the deny list on argv, not on text ----------


def cmd(id: str, command: str, *args: str) -> dict[str, Any]:
    return {**act(id, params=[param("msg"), param("target")]), "command": command, "args": [*args]}


SPLICED = [  # each of these loaded before and ran `$(touch PWNED)` for msg="$(touch PWNED)"
    ("timeout", "10", "bash", "-c", "echo ${msg}"),
    ("stdbuf", "-oL", "bash", "-c", "echo ${msg}"),
    ("/usr/bin/env", "-S", "bash -c 'echo ${msg}'"),
    ("env", "-S", "bash -c", "echo ${msg}"),
    ("git", "-c", "alias.x=!echo ${msg}", "x"),
    ("xargs", "-0", "sh", "-c", "echo ${msg}"),
    ("uv", "run", "python", "-c", "print('${msg}')"),
    ("npx", "node", "-e", "console.log('${msg}')"),
    ("nice", "-n", "5", "bash", "-c", "${msg}"),
    ("ionice", "-c", "3", "sh", "-c", "${msg}"),
    ("chrt", "-f", "1", "zsh", "-c", "${msg}"),
    ("taskset", "-c", "0", "dash", "-c", "${msg}"),
    ("setsid", "/bin/sh", "-ec", "${msg}"),
    ("flock", "lock", "-c", "echo ${msg}"),
    ("watch", "-n", "1", "echo", "${msg}"),
    ("script", "-qc", "echo ${msg}", "/dev/null"),
    ("su", "-c", "echo ${msg}"),
    ("ssh", "host", "echo", "${msg}"),
    ("ssh", "-o", "ProxyCommand=${msg}", "host"),
    ("docker", "exec", "box", "sh", "-c", "echo ${msg}"),
    ("make", "docs", "TITLE=${msg}"),
    ("find", ".", "-exec", "sh", "-c", "echo ${msg}", ";"),
    ("parallel", "echo", "${msg}", ":::", "a"),
    (PY, "-cprint('${msg}')"),
    ("bash", "-xc", "echo ${msg}"),
    ("perl", "-M${msg}", "-e1"),
    ("ruby", "-e", "puts '${msg}'"),
    ("awk", "--source=${msg}"),
    ("sed", "-n", "${msg}", "file"),
    ("rsync", "-ave", "ssh ${msg}", "a", "b"),
    ("git", "rebase", "-x", "${msg}", "main"),
    ("tar", "--to-command=${msg}", "-xf", "a.tar"),
]


def label(argv: tuple[str, ...]) -> str:
    return " ".join([os.path.basename(argv[0]), *argv[1:3]])


@pytest.mark.parametrize("argv", SPLICED, ids=label)
def test_a_param_spliced_into_code_is_refused_behind_any_wrapper(
    root: Path, argv: tuple[str, ...]
) -> None:
    write(root, cmd("x", *argv), ECHO)
    loaded = load_actions(root, trusted=True)
    assert [a.id for a in loaded.actions] == ["echo"]
    (warning,) = loaded.warnings
    i = next(i for i, a in enumerate(argv[1:]) if "${msg}" in a)
    assert f"action 'x' skipped: field 'args[{i}]': a param is spliced into code (" in warning
    assert "pass ${msg} as a separate argument instead (e.g. bash -c 'echo \"$1\"' _ ${msg})" in (
        warning
    )


@pytest.mark.parametrize(
    "argv",
    [
        ("timeout", "10", "${msg}"),
        ("env", "A=1", "${msg}"),
        ("xargs", "-n", "1", "${msg}"),
        ("find", ".", "-exec", "${msg}", "{}", ";"),
        ("sudo", "-u", "me", "${msg}"),
    ],
    ids=lambda a: a[0],
)
def test_a_param_may_not_choose_the_program_a_wrapper_runs(
    root: Path, argv: tuple[str, ...]
) -> None:
    write(root, cmd("x", *argv))
    (warning,) = load_actions(root, trusted=True).warnings
    assert "a param (${msg}) may not choose the program" in warning


def test_params_as_data_still_load(root: Path) -> None:
    ok = [
        ("bash", "-c", 'make docs "$1"', "_", "${target}"),
        ("timeout", "10", "bash", "-c", 'echo "$1"', "_", "${msg}"),
        ("env", "-S", "bash -c 'echo \"$1\"' _", "${msg}"),
        ("git", "commit", "-m", "${msg}"),
        ("git", "commit", "-m", "halt"),
        ("git", "commit", "-m", "docs: never run rm -rf / here"),
        ("git", "-c", "user.name=${msg}", "cherry-pick", "-x", "${target}"),
        ("grep", "-rn", "awk", "${target}"),
        ("grep", "-r", "halt", "${target}"),
        (PY, "argv.py", "-c", "${msg}"),
        (PY, "-m", "pytest", "-k", "${msg}", "-p", "no:cacheprovider"),
        ("make", "-C", "${target}", "docs"),
        ("ssh", "-p", "22", "${target}", "uptime"),
        ("env", "NAME=${msg}", PY, "argv.py"),
        ("awk", "-v", "x=${msg}", "{print x}", "${target}"),
        ("sed", "-e", "s/a/b/", "${target}"),
        ("nice", "-n", "5", "pytest", "${target}"),
        ("timeout", "${msg}", "pytest"),
        ("rsync", "-av", "${target}", "dest/"),
    ]
    write(root, *(cmd(f"a{i}", *argv) for i, argv in enumerate(ok)))
    loaded = load_actions(root, trusted=True)
    assert loaded.warnings == ()
    assert len(loaded.actions) == len(ok)


async def test_wrappers_pass_params_to_a_script_as_plain_arguments(root: Path) -> None:
    script = ["bash", "-c", 'printf "%s" "$1"', "_", "${msg}"]
    wrapped = [
        cmd("timeout", "timeout", "10", *script),
        cmd("stdbuf", "stdbuf", "-oL", *script),
        cmd("nice", "nice", "-n", "5", *script),
        cmd("setsid", "setsid", *script),
        cmd("flock", "flock", "lock", *script),
        cmd("env", "/usr/bin/env", "-S", 'bash -c \'printf "%s" "$1"\' _', "${msg}"),
    ]
    r = runner(root, *wrapped)
    for action in wrapped:
        outcome = await r.run(r.prepare(action["id"], {"msg": "$(touch PWNED); `touch PWNED`"}))
        assert (outcome.code, outcome.stdout) == (0, "$(touch PWNED); `touch PWNED`"), action
    assert not (root / "PWNED").exists()


STATIC_DENIED = [
    (("sudo", "rm", "-rf", "/"), "rm -rf"),
    (("timeout", "5", "rm", "-fr", "/home"), "rm -rf"),
    (("rm", "-r", "--", "~"), "rm -rf"),
    (("env", "-S", "rm -rf /"), "rm -rf"),
    (("ssh", "host", "rm", "-rf", "/"), "rm -rf"),
    (("bash", "-c", 'rm -rf "$1"', "_", "/"), "rm -rf"),
    (("chmod", "-R", "777", "/"), "chmod/chown -R"),
    (("nice", "shutdown", "now"), "shutting the machine down"),
    (("systemctl", "reboot"), "shutting the machine down"),
    (("bash", "-c", "make && halt"), "shutting the machine down"),
    (("find", ".", "-exec", "mkfs.ext4", "{}", ";"), "mkfs"),
    (("xargs", "dd", "if=x", "of=/dev/nvme0n1"), "dd to a device"),
]


@pytest.mark.parametrize(("argv", "why"), STATIC_DENIED, ids=[label(a) for a, _ in STATIC_DENIED])
def test_the_deny_list_looks_at_programs_behind_wrappers(
    root: Path, argv: tuple[str, ...], why: str
) -> None:
    write(root, cmd("x", *argv))
    (warning,) = load_actions(root, trusted=True).warnings
    assert why in warning
    assert "is on the deny list" in warning


async def test_text_inside_one_argument_is_not_a_command(root: Path) -> None:
    r = runner(root, ECHO)
    texts = [
        "halt",
        "shutdown -h now",
        "docs: never run rm -rf / here",
        "rm -rf ~",
        "mkfs.ext4 /dev/sda1",
        "dd if=a of=/dev/sda",
        ":(){ :|:& };:",
    ]
    for value in texts:  # each was refused as a command before, though no shell sees it
        assert (await argv_of(r, "echo", {"msg": value}))["argv"] == [value, "--n=3"]


async def test_commit_messages_that_read_like_commands(root: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=0"]
    commit = cmd("commit", *git, "commit", "--allow-empty", "-q", "-m", "${msg}")
    log = cmd("log", "git", "log", "--format=%s")
    r = runner(root, cmd("init", "git", "init", "-q"), commit, log)
    assert (await r.run(r.prepare("init", {}))).code == 0
    for msg in ("halt", "docs: never run rm -rf / here"):
        outcome = await r.run(r.prepare("commit", {"msg": msg}))
        assert outcome.code == 0, outcome.for_model()
    outcome = await r.run(r.prepare("log", {}))
    assert outcome.stdout.splitlines() == ["docs: never run rm -rf / here", "halt"]


async def test_rm_of_root_home_or_a_top_level_directory_is_refused_at_run_time(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "keep").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    (root / "h").symlink_to(home, target_is_directory=True)
    clean = [
        cmd("rm", "rm", "-rf", "${target}"),
        cmd("timeout", "timeout", "10", "rm", "-r", "--", "${target}"),
        cmd("script", "bash", "-c", 'rm -rf -- "$1"', "_", "${target}"),
    ]
    r = runner(root, *clean)
    hostile = ["/", "//", "/.", "/*", "/root", "/home", "/usr", "/tmp", str(home), f"{home}/"]
    hostile += [str(tmp_path), "~", "~/", "$HOME", "../" * 20, "h", "h/"]
    for action in clean:
        for target in hostile:
            with pytest.raises(ActionError, match=r"refused: rm -rf of /"):
                r.prepare(action["id"], {"target": target})
    assert (home / "keep").is_dir()
    for action in clean:
        (root / "build" / "sub").mkdir(parents=True)
        outcome = await r.run(r.prepare(action["id"], {"target": "build"}))
        assert outcome.code == 0, outcome.for_model()
        assert not (root / "build").exists()


async def test_a_param_may_not_become_a_make_variable(root: Path) -> None:
    (root / "Makefile").write_text("TITLE = docs\ndocs:\n\t@echo built $(TITLE)\n")
    r = runner(root, cmd("mk", "make", "-s", "${target}"))
    outcome = await r.run(r.prepare("mk", {"target": "docs"}))
    assert (outcome.code, outcome.stdout) == (0, "built docs\n")
    for value in ("TITLE=$(shell touch PWNED)", "SHELL=/bin/false"):
        with pytest.raises(ActionError, match=r"make would read .* as a VAR=value assignment"):
            r.prepare("mk", {"target": value})
    assert not (root / "PWNED").exists()


# ---------- execution ----------


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its reaper is dead too
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


async def test_timeout_kills_the_group_with_the_grandchild(root: Path) -> None:
    r = runner(root, act("hang", args=["grandchild.py", "pid.txt"], timeout=1))
    t0 = time.monotonic()
    outcome = await r.run(r.prepare("hang", {}))
    assert time.monotonic() - t0 < 45  # not the 120 s of the hang
    assert outcome.code == 124
    assert outcome.timed_out
    text = outcome.for_model()
    assert "exit 124" in text
    assert "timed out — do not retry, report it" in text
    pid = int((root / "pid.txt").read_text())
    for _ in range(400):  # killed, it is gone at once (a busy machine: in a moment)
        if not alive(pid):
            break
        await asyncio.sleep(0.05)
    assert not alive(pid)


async def test_exit_codes_output_cap_and_missing_programs(root: Path) -> None:
    big = "import sys; print('a' * 50000 + 'THE-END'); sys.stderr.write('oops'); sys.exit(3)"
    r = runner(
        root,
        act("big", args=["-c", big]),
        {"id": "ghost", "description": "d", "command": "no-such-program-here"},
    )
    outcome = await r.run(r.prepare("big", {}))
    text = outcome.for_model()
    assert outcome.code == 3
    assert text.startswith("action big · exit 3")
    assert "characters cut; the last 200 follow" in text
    tail = ("a" * 50000 + "THE-END")[-200:]
    assert f"the last 200 follow ...]\n{tail}\n[stderr]" in text
    assert "[stderr]\noops" in text
    assert len(text) < tool_actions.OUTPUT_CAP + 600
    ghost = await r.run(r.prepare("ghost", {}))
    assert ghost.code == 127
    assert "cannot start no-such-program-here" in ghost.for_model()


def spans(log: Path) -> list[tuple[float, float]]:
    return [
        (float(a), float(b)) for a, b in (line.split() for line in log.read_text().splitlines())
    ]


def most_at_once(intervals: list[tuple[float, float]]) -> int:
    return max(sum(1 for a, b in intervals if a <= t < b) for t, _ in intervals)


async def test_at_most_two_actions_run_at_once(root: Path) -> None:
    log = root / "times.log"
    slow = [act(f"s{i}", args=["slow.py", str(log), "1.0", "2"]) for i in range(3)]
    r = runner(root, *slow)
    outcomes = await asyncio.gather(*(r.run(r.prepare(f"s{i}", {})) for i in range(3)))
    assert [o.code for o in outcomes] == [0, 0, 0]
    times = sorted(spans(log))
    assert len(times) == 3
    assert most_at_once(times) == 2  # two together, the third queued until one finished
    assert times[2][0] >= min(times[0][1], times[1][1]) - 0.05


async def test_one_action_runs_serially_unless_it_allows_parallel(root: Path) -> None:
    serial_log, parallel_log = root / "serial.log", root / "parallel.log"
    r = runner(
        root,
        act("serial", args=["slow.py", str(serial_log), "0.6", "1"]),
        act("par", args=["slow.py", str(parallel_log), "0.6", "2"], allowParallel=True),
    )
    await asyncio.gather(*(r.run(r.prepare("serial", {})) for _ in range(2)))
    await asyncio.gather(*(r.run(r.prepare("par", {})) for _ in range(2)))
    assert most_at_once(spans(serial_log)) == 1
    assert most_at_once(spans(parallel_log)) == 2


# ---------- the tool, re-entrancy, permissions, audit ----------


async def test_tool_description_is_sorted_and_filtered_by_expose_tags(root: Path) -> None:
    acts = [act("zeta", tags=["build"]), act("alpha", tags=["docs"]), ECHO]
    r = runner(root, *acts)
    tool = r.tool()
    assert tool.name == "run_action"
    assert not tool.read_only
    lines = tool.description.splitlines()
    assert [ln.split(":")[0] for ln in lines if ln.startswith("- ")] == [
        "- alpha",
        "- echo",
        "- zeta",
    ]
    assert "msg (string, required); n (integer, default 3)" in tool.description
    assert tool.parameters["properties"]["action_id"]["enum"] == ["alpha", "echo", "zeta"]
    assert r.tool().schema() == tool.schema()  # byte-stable
    settings = {"actions": {"exposeTags": ["docs", "dev"]}}
    limited = ActionRunner(tuple(r.actions.values()), root, settings)
    assert sorted(limited.exposed) == ["alpha", "echo"]
    result = await limited.tool().run({"action_id": "zeta"}, ToolContext(cwd=root))
    assert result.is_error
    assert "unknown action 'zeta'" in result.output


async def test_no_action_can_start_another(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nested = act(
        "nested",
        args=[
            "-c",
            "import json, os, pathlib\nfrom agent.actions.registry import load_actions\n"
            "l = load_actions(pathlib.Path(os.getcwd()), True)\n"
            f"print(json.dumps([os.environ['{MARKER}'], len(l.actions), l.warnings[0]]))",
        ],
    )
    r = runner(root, nested, ECHO)
    outcome = await r.run(r.prepare("nested", {}))
    marker, count, warning = json.loads(outcome.stdout)
    assert (marker, count) == ("nested", 0)
    assert "inside an action run" in warning
    tool = r.tool()
    token = tool_actions._current.set("nested")  # as if called while an action runs here
    try:
        assert inside_action() == "nested"
        refused = await tool.run(
            {"action_id": "echo", "params": {"msg": "x"}}, ToolContext(cwd=root)
        )
    finally:
        tool_actions._current.reset(token)
    assert refused.is_error
    assert "cannot start another action" in refused.output
    monkeypatch.setenv(MARKER, "parent")
    refused = await tool.run({"action_id": "echo", "params": {"msg": "x"}}, ToolContext(cwd=root))
    assert "refused inside an action run ('parent'" in refused.output


def test_permission_rules_and_requires_confirm(root: Path) -> None:
    r = runner(root, ECHO, act("deploy", requiresConfirm=True))
    tool = r.tool()
    echo = {"action_id": "echo", "params": {"msg": "hi"}}
    deploy = {"action_id": "deploy", "params": {}}

    def kind(rules: dict[str, Any], mode: str, args: dict[str, Any]) -> str:
        return decide(rules, mode, tool, args, root).kind

    assert kind({}, "default", echo) == "ask"
    assert kind({}, "dontAsk", echo) == "deny"
    assert kind({}, "plan", echo) == "deny"
    assert kind({"alwaysAllow": ["run_action(echo)"]}, "dontAsk", echo) == "allow"
    assert kind({"alwaysAllow": ["run_action(ec*)"]}, "dontAsk", echo) == "allow"
    assert kind({"alwaysAllow": ["run_action(other)"]}, "dontAsk", echo) == "deny"
    assert kind({"alwaysAllow": ["run_action"]}, "dontAsk", echo) == "allow"
    both = {"alwaysAllow": ["run_action(echo)"], "neverAllow": ["run_action(echo)"]}
    assert kind(both, "bypassPermissions", echo) == "deny"
    assert kind({"alwaysAllow": ["run_action(deploy)"]}, "default", deploy) == "ask"
    assert kind({}, "bypassPermissions", deploy) == "ask"
    asked = decide({"alwaysAllow": ["run_action"]}, "default", tool, deploy, root)
    assert asked.reason == "action 'deploy' requires confirmation from a person on every run"
    d = decide({}, "default", tool, echo, root)
    assert d.reason == "project actions run commands"


async def test_model_runs_are_audited_and_gated(root: Path) -> None:
    r = runner(root, ECHO, act("deploy", requiresConfirm=True))
    tools = {"run_action": r.tool()}
    rec = Recorder()
    gate = Gate(tools, {"alwaysAllow": ["run_action"]}, "default", rec, workspace=root)

    async def execute(call: Call, ctx: ToolContext) -> ToolResult:
        return await tools[call.name].run(call.args, ctx)

    pipeline = compose(execute, Audit(root, "sess", rec), gate)
    ctx = ToolContext(cwd=root)
    ok = await pipeline(
        Call("c1", "run_action", {"action_id": "echo", "params": {"msg": "$(id)"}}), ctx
    )
    assert '"argv": ["$(id)", "--n=3"]' in ok.output
    assert ok.display is not None
    assert ok.display.startswith("run_action echo · exit 0")
    denied = await pipeline(Call("c2", "run_action", {"action_id": "deploy"}), ctx)
    assert denied.is_error
    assert "confirmation" in denied.output
    first, second = [
        json.loads(x) for x in (project_state(root) / "audit.jsonl").read_text().splitlines()
    ]
    assert (first["tool"], first["trigger"], first["decision"], first["exit_code"]) == (
        "run_action", "model", "allow", 0,
    )  # fmt: skip
    assert first["args"] == {"action_id": "echo", "params": {"msg": "$(id)"}}
    assert isinstance(first["duration_ms"], int)
    assert (second["decision"], second["trigger"]) == ("deny", "model")


async def test_user_runs_are_audited_with_their_trigger(root: Path) -> None:
    r = runner(root, ECHO)
    run = r.prepare("echo", {"msg": "hello"})
    outcome = await r.run(run)
    r.record_user_run(run, outcome)
    r.record_user_run(run, None, "the user declined")
    ran, declined = [
        json.loads(x) for x in (project_state(root) / "audit.jsonl").read_text().splitlines()
    ]
    assert (ran["trigger"], ran["source"], ran["exit_code"], ran["status"]) == (
        "user",
        "user",
        0,
        "ok",
    )
    assert ran["args"] == {"action_id": "echo", "params": {"msg": "hello", "n": 3}}
    assert ran["duration_ms"] >= 0
    assert ran["session"] == "sess"
    assert (declined["decision"], declined["reason"]) == ("deny", "the user declined")


def test_an_optional_param_without_a_value_drops_only_its_argument(root: Path) -> None:
    opt = act(
        "o",
        args=["argv.py", "-x", "${target}", "--tag=${tag}", "--k", "${k}=${j}", "last"],
        params=[
            {"name": "target", "type": "string"},
            {"name": "tag", "type": "string"},
            {"name": "k", "type": "string"},
            {"name": "j", "type": "string"},
        ],
    )
    r = runner(root, opt)
    # `-x` is a flag of its own (pytest -x): it stays; `--tag=${tag}` goes as one argument
    assert r.prepare("o", {}).argv[1:] == ("argv.py", "-x", "--k", "last")
    assert r.prepare("o", {"k": "a"}).argv[1:] == ("argv.py", "-x", "--k", "last")
    full = {"target": "t", "tag": "g", "k": "a", "j": "b"}
    assert r.prepare("o", full).argv[1:] == (
        "argv.py", "-x", "t", "--tag=g", "--k", "a=b", "last",
    )  # fmt: skip


# ---------- empty params, the workspace root, find/rsync, programs behind subcommands ----------

WIPE = {
    **act("wipe", params=[param("target", required=True)]),
    "command": "rm",
    "args": ["-rf", "${workspaceRoot}/${target}"],
}


async def test_a_required_param_may_not_be_empty_and_an_optional_one_is_left_out(
    root: Path,
) -> None:
    opt = act(
        "o",
        args=["argv.py", "--tag=${tag}", "${level}", "x"],
        params=[param("tag"), param("level", default="low")],
    )
    r = runner(root, WIPE, opt, ECHO)
    (root / "build").mkdir()
    for blank in ("", "   ", "\t\n"):
        with pytest.raises(ActionError, match="param 'target' of action 'wipe' is required and "):
            r.prepare("wipe", {"target": blank})
        with pytest.raises(ActionError, match="may not be empty"):
            r.prepare("echo", {"msg": blank})
        out = await argv_of(r, "o", {"tag": blank, "level": blank})
        assert out["argv"] == ["low", "x"]  # the blank tag is left out, level takes its default
    result = await r.tool().run(
        {"action_id": "wipe", "params": {"target": ""}}, ToolContext(cwd=root)
    )
    assert result.is_error
    assert "param 'target' of action 'wipe' is required and may not be empty" in result.output
    assert (root / "argv.py").is_file()
    assert (root / "build").is_dir()


def realpath(path: Path) -> str:
    return os.path.realpath(path)


async def test_the_workspace_root_and_its_parents_are_never_deleted(
    root: Path, tmp_path: Path
) -> None:
    (tmp_path / "link").symlink_to(root, target_is_directory=True)
    real = realpath(root)
    r = runner(
        root,
        WIPE,
        cmd("rm", "rm", "-rf", "${target}"),
        cmd("chmod", "chmod", "-R", "000", "${target}"),
        cmd("script", "bash", "-c", 'rm -rf -- "$1"', "_", "${target}"),
    )
    for target in (".", "./", "..", "../", "./.", "/", "//", "build/..", "../proj"):
        with pytest.raises(ActionError, match=r"refused: rm -rf of .*the workspace root"):
            r.prepare("wipe", {"target": target})
    targets = [str(root), f"{root}/", real, f"{real}/", str(tmp_path / "link"), str(tmp_path)]
    targets += [f"{tmp_path}/link/", str(root.parent), ".", "./", ".."]
    for action in ("rm", "chmod", "script"):
        for target in targets:
            with pytest.raises(ActionError, match=r"refused: (rm -rf|chmod/chown -R) of /"):
                r.prepare(action, {"target": target})
    assert (root / "argv.py").is_file()
    (root / "build" / "sub").mkdir(parents=True)
    outcome = await r.run(r.prepare("wipe", {"target": "build"}))
    assert outcome.code == 0, outcome.for_model()
    assert not (root / "build").exists()
    assert (root / "argv.py").is_file()


def test_deleting_the_workspace_root_is_refused_at_load(root: Path) -> None:
    bad = [
        cmd("a", "rm", "-rf", "${workspaceRoot}"),
        cmd("b", "rm", "-rf", "${workspaceRoot}/"),
        cmd("c", "rm", "-r", "${workspaceRoot}/.."),
        cmd("d", "find", "${workspaceRoot}", "-delete"),
        cmd("e", "rsync", "-a", "--delete", "empty/", "${workspaceRoot}/"),
    ]
    ok = [cmd("f", "rm", "-rf", "${workspaceRoot}/build")]
    ok.append(cmd("g", "find", "${workspaceRoot}", "-name", "*.pyc", "-delete"))
    write(root, *bad, *ok)
    loaded = load_actions(root, trusted=True)
    assert [a.id for a in loaded.actions] == ["f", "g"]
    assert len(loaded.warnings) == len(bad)
    for action, warning in zip(bad, loaded.warnings, strict=True):
        assert f"action {action['id']!r} skipped: field 'command': " in warning
        assert "the workspace root is on the deny list" in warning


async def test_find_and_rsync_may_not_delete_protected_directories(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    r = runner(
        root,
        cmd("find", "find", "${target}", "-delete"),
        cmd("find-rm", "find", "${target}", "-mindepth", "1", "-exec", "rm", "-rf", "{}", "+"),
        cmd("find-sh", "bash", "-c", 'find "$1" -delete', "_", "${target}"),
        cmd("rsync", "rsync", "-a", "--delete", "empty/", "${target}"),
        cmd("rsync2", "rsync", "-a", "--delete-after", "--exclude", "x", "e/", "${target}/"),
        cmd("rsync-src", "rsync", "-a", "--remove-source-files", "${target}", "dest/"),
        cmd("pyc", "find", ".", "-name", "${msg}", "-delete"),
        cmd("all", "find", ".", "-type", "f", "-delete"),
    )
    hostile = ["/", "//", "/usr", str(home), "~", str(root), f"{root}/", ".", str(tmp_path)]
    for action in ("find", "find-rm", "find-sh", "rsync", "rsync2", "rsync-src"):
        for target in hostile:
            with pytest.raises(ActionError, match=r"refused: (find|rsync) .* over /"):
                r.prepare(action, {"target": target})
    for pattern in ("*", ".*", "?*"):  # matches everything: as good as no filter
        with pytest.raises(ActionError, match=r"refused: find -delete"):
            r.prepare("pyc", {"msg": pattern})
    with pytest.raises(ActionError, match=r"refused: find -delete"):
        r.prepare("all", {})
    for action in ("rsync", "rsync2", "rsync-src"):  # rsync is not installed everywhere
        assert {"build", "build/"} & set(r.prepare(action, {"target": "build"}).argv)
    (root / "build" / "sub").mkdir(parents=True)
    (root / "build" / "sub" / "f.txt").write_text("x")
    (root / "keep.pyc").write_text("x")
    for action in ("find", "find-rm", "find-sh"):
        outcome = await r.run(r.prepare(action, {"target": "build"}))
        assert outcome.code == 0, outcome.for_model()
        assert not (root / "build" / "sub").exists()
        (root / "build" / "sub").mkdir(parents=True)
    outcome = await r.run(r.prepare("pyc", {"msg": "*.pyc"}))
    assert outcome.code == 0, outcome.for_model()
    assert not (root / "keep.pyc").exists()
    assert (root / "argv.py").is_file()


def test_find_and_rsync_of_root_are_refused_at_load(root: Path) -> None:
    bad = [
        cmd("a", "find", "/", "-delete"),
        cmd("b", "sudo", "find", "-L", "/", "-exec", "rm", "-rf", "{}", ";"),
        cmd("c", "rsync", "-a", "--delete", "empty/", "/"),
        cmd("d", "bash", "-c", "find / -name x -delete"),
        cmd("e", "bash", "-c", "rsync -a --delete empty/ ~/"),
    ]
    write(root, *bad)
    loaded = load_actions(root, trusted=True)
    assert loaded.actions == ()
    assert all("is on the deny list" in w for w in loaded.warnings)
    assert len(loaded.warnings) == len(bad)


PICKED = [
    ("uv", "run", "${msg}"),
    ("uv", "run", "--with", "requests", "${msg}", "x"),
    ("uv", "run", "-m", "${msg}"),
    ("uv", "tool", "run", "${msg}"),
    ("uvx", "${msg}"),
    ("uvx", "--from", "${msg}", "tool"),
    ("npx", "--yes", "${msg}"),
    ("npx", "-p", "${msg}", "tool"),
    ("npm", "exec", "--", "${msg}"),
    ("pnpm", "dlx", "${msg}"),
    ("pnpm", "exec", "${msg}"),
    ("yarn", "dlx", "${msg}"),
    ("bunx", "${msg}"),
    ("poetry", "run", "${msg}"),
    ("pipx", "run", "${msg}"),
    ("pipx", "run", "--spec", "${msg}", "tool"),
    ("conda", "run", "-n", "env", "${msg}"),
    ("docker", "exec", "box", "${msg}"),
    ("docker", "exec", "-u", "root", "-it", "box", "${msg}"),
    ("docker", "run", "img", "${msg}"),
    ("docker", "run", "--rm", "-e", "A=1", "-v", "a:/b", "img", "${msg}", "x"),
    ("docker", "run", "${msg}"),
    ("docker", "run", "--entrypoint", "${msg}", "img"),
    ("docker", "--context", "prod", "run", "img", "${msg}"),
    ("docker", "compose", "exec", "web", "${msg}"),
    ("podman", "run", "img", "${msg}"),
    ("kubectl", "exec", "pod", "--", "${msg}"),
    ("kubectl", "exec", "-n", "ns", "pod", "-c", "app", "--", "${msg}", "x"),
    ("nix", "run", "${msg}"),
    ("nix", "develop", "-c", "${msg}"),
    ("nix", "shell", "nixpkgs#hello", "--command", "${msg}"),
    ("mise", "exec", "node@20", "--", "${msg}"),
    ("go", "run", "${msg}"),
    ("timeout", "5", "uv", "run", "${msg}"),
]


@pytest.mark.parametrize("argv", PICKED, ids=lambda a: " ".join(a[:3]))
def test_a_param_may_not_choose_the_program_a_subcommand_runs(
    root: Path, argv: tuple[str, ...]
) -> None:
    write(root, cmd("x", *argv), ECHO)
    loaded = load_actions(root, trusted=True)
    assert [a.id for a in loaded.actions] == ["echo"]
    (warning,) = loaded.warnings
    i = argv.index("${msg}") - 1
    assert f"action 'x' skipped: field 'args[{i}]': a param (${{msg}}) may not choose the " in (
        warning
    )


def test_programs_behind_subcommands_take_params_as_data(root: Path) -> None:
    ok = [
        ("uv", "run", "pytest", "-k", "${msg}", "${target}"),
        ("uv", "run", "--with", "${target}", "pytest"),
        ("uvx", "ruff", "check", "${target}"),
        ("npx", "eslint", "--fix", "${target}"),
        ("pnpm", "exec", "tsc", "-p", "${target}"),
        ("poetry", "run", "pytest", "${target}"),
        ("docker", "exec", "box", "ls", "${target}"),
        ("docker", "run", "--rm", "-e", "MSG=${msg}", "img", "echo", "${msg}"),
        ("kubectl", "exec", "pod", "--", "ls", "${target}"),
        ("nix", "run", "nixpkgs#hello", "--", "--greeting", "${msg}"),
        ("nix", "develop", "-c", "make", "${target}"),
        ("go", "run", ".", "${msg}"),
    ]
    write(root, *(cmd(f"a{i}", *argv) for i, argv in enumerate(ok)))
    loaded = load_actions(root, trusted=True)
    assert loaded.warnings == ()
    assert len(loaded.actions) == len(ok)


def test_nix_shell_run_is_code(root: Path) -> None:
    write(root, cmd("x", "nix-shell", "-p", "hello", "--run", "hello ${msg}"))
    (warning,) = load_actions(root, trusted=True).warnings
    assert "field 'args[3]': a param is spliced into code (nix-shell --run runs it" in warning


def test_the_deny_list_sees_programs_behind_subcommands(root: Path) -> None:
    write(root, cmd("x", "uv", "run", "rm", "-rf", "/"), cmd("y", "npx", "rimraf", "x"))
    loaded = load_actions(root, trusted=True)
    assert [a.id for a in loaded.actions] == ["y"]
    (warning,) = loaded.warnings
    assert "action 'x' skipped: field 'command': rm -rf of /" in warning


# ---------- the working tree: a worktree made by the agent ----------


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


@pytest.fixture
def repo(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    (root / "pkg").mkdir()
    (root / "pkg" / "mod.py").write_text("")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "argv.py", "pkg")
    git(root, "commit", "-q", "-m", "init")
    return root


WHERE = {
    **act("where", params=[param("dir", default=".")]),
    "args": ["${workspaceRoot}/argv.py", "${workspaceRoot}"],
    "cwd": "${workspaceRoot}/${dir}",
}


async def test_actions_run_in_the_callers_worktree(repo: Path) -> None:
    from agent.subagents import worktree

    wt = worktree.create(repo, "wa").path
    (wt / "wt_only.txt").write_text("x")
    fake = repo / ".agent" / "worktrees" / "fake"
    fake.mkdir()  # not a worktree: no .git file
    assert workspace_for(wt / "pkg", repo) == wt
    assert workspace_for(wt, repo) == wt
    assert workspace_for(repo / "pkg", repo) == repo
    assert workspace_for(fake, repo) == repo
    assert workspace_for(repo.parent, repo) == repo
    r = runner(repo, WHERE, WIPE)
    tool = r.tool()
    args = {"action_id": "where", "params": {}}
    for cwd, top in ((wt / "pkg", wt), (wt, wt), (repo / "pkg", repo), (repo, repo)):
        result = await tool.run(args, ToolContext(cwd=cwd))
        assert not result.is_error, result.output
        out = json.loads(result.output.split("[stdout]\n")[1])
        assert out == {"argv": [str(top)], "cwd": str(top.resolve())}
    sub = await tool.run({"action_id": "where", "params": {"dir": "pkg"}}, ToolContext(cwd=wt))
    assert json.loads(sub.output.split("[stdout]\n")[1])["cwd"] == str((wt / "pkg").resolve())
    escape = {"action_id": "where", "params": {"dir": "../../.."}}
    result = await tool.run(escape, ToolContext(cwd=wt))
    assert result.is_error
    assert f"outside the workspace {wt}" in result.output
    for target in ("..", "../..", "../../..", "../../../pkg/.."):  # the main checkout too
        wipe = {"action_id": "wipe", "params": {"target": target}}
        result = await tool.run(wipe, ToolContext(cwd=wt))
        assert result.is_error
        assert "refused: rm -rf of /" in result.output
    assert (wt / "wt_only.txt").is_file()
    assert (repo / "argv.py").is_file()
    rules = compile_rules({}, workspace_of(repo, {}), Vocabulary.of([tool]))
    facts = action_facts(rules, tool, args, wt / "pkg")
    assert facts.target == f"where: {PY} {wt}/argv.py {wt} (in the workspace root)"
    assert action_facts(rules, tool, args).target == (
        f"where: {PY} {repo}/argv.py {repo} (in the workspace root)"
    )
