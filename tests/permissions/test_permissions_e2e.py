"""Permissions end to end: one-shot runs with marker files proving nothing ran, the gate's
answers (y/s/d/a/n) with remembered rules, and the interactive prompt on a real terminal."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent
from hostile_git import arm, embed, git, gitdir_through_link, history_submodule, make_repo

from agent.app import PLAN_ON
from agent.base.events import PermissionDenied, Recorder
from agent.base.record import Call, ToolContext, ToolResult
from agent.permissions.gate import Gate
from agent.permissions.request import Answer, AskRequest
from agent.tools.builtin import builtin_tools
from agent.ui.line_repl import parse_answer

AGENT = [sys.executable, "-m", "agent"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    (p / "notes.txt").write_text("hello\n")
    (tmp_path / "outside").mkdir()
    (p / "link_out").symlink_to(tmp_path / "outside", target_is_directory=True)
    return p


def one_shot(env: dict[str, str], cwd: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    r = run_agent(env, cwd, "--output-format", "json", *args)
    return r.returncode, json.loads(r.stdout.splitlines()[-1]), r.stderr


ESCAPES = [
    "touch MARKER && curl http://127.0.0.1:9/",
    "touch MARKER; rm -rf build",
    "touch MARKER | sh",
    "touch MARKER\nnpm install",
    "touch $(echo MARKER)",
    "touch `echo MARKER`",
    "timeout 5 touch MARKER",
    "env touch MARKER",
    "PATH=.:$PATH touch MARKER",
    "bash -c 'touch MARKER'",
    "eval touch MARKER",
    "find . -maxdepth 0 -exec touch MARKER \\;",
    "sed -n 'w MARKER' notes.txt",
    "touch MARKER > ../outside/x",
    "cat notes.txt > link_out/MARKER",
]


@pytest.mark.parametrize("command", ESCAPES)
def test_escape_hatches_never_run(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, command: str
) -> None:
    fake.script(tool_calls([("bash", {"command": command})]), text("ok"))
    code, result, err = one_shot(fake_env, project, "--allowed-tools", "bash(touch:*)", "go")
    assert code == 0, err
    assert not (project / "MARKER").exists()
    assert not (project.parent / "outside" / "MARKER").exists()
    assert not (project.parent / "outside" / "x").exists()
    [denial] = result["permission_denials"]
    assert denial["tool_name"] == "bash"
    assert denial["tool_input"] == {"command": command}
    tool_msg = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")
    assert "permission denied" in tool_msg["content"]


GIT_ATTACKS = [  # (how the repository is armed, the command, what the denial says)
    ("fsmonitor", "git status", ".git/config sets core.fsmonitor"),
    ("fsmonitor", "git -C sub diff --stat", ".git/config sets core.fsmonitor"),
    ("textconv", "git diff", ".git/config sets diff.x.textconv"),
    ("textconv", "git log -p", ".git/config sets diff.x.textconv"),
    ("clean", "git diff --stat", ".git/config sets filter.x.clean"),
    ("submodule", "git status", "sub/.git/config sets core.fsmonitor"),
    ("gpg", "git log --show-signature -1", "--show-signature"),
    ("showsig", "git log -1", ".git/config sets gpg.program"),
    ("post-index-change", "git status", "post-index-change is an executable hook"),
    ("smudge", "git cat-file --filters HEAD:notes.txt", "--filters"),
    ("promisor", "git show HEAD:notes.txt", ".git/config sets protocol.ext.allow"),
    ("help", "git status --help", ".git/config sets man.evil.cmd"),
    ("history", "git show --submodule=diff HEAD~1", "--submodule"),
    ("plain", "git grep --open-files-in='touch ../MARKER' one", "--open-files-in"),
    ("include", "git status", "evil.conf sets core.fsmonitor"),
    ("gitdir", "git status", "x.git/config sets core.fsmonitor"),
]


@pytest.mark.parametrize(("kind", "command", "said"), GIT_ATTACKS)
def test_a_repositorys_own_commands_never_run_through_reading_git(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path, kind: str, command: str, said: str
) -> None:
    """An unpacked archive's .git names a command git runs on `git status`, `git log`…, or the
    command asks git to run one: the auto-allowed (and here even rule-allowed) reading command
    asks, so without a terminal it is denied and the command never runs."""
    repo = make_repo(tmp_path / "repo")
    marker = tmp_path / "MARKER"
    sub = embed(repo, "sub")
    _arm(repo, sub, kind, command, marker)
    fake.script(tool_calls([("bash", {"command": command})]), text("ok"))
    rules = "bash(git status:*),bash(git diff:*),bash(git log:*),bash(git -C sub diff:*)"
    rules += ",bash(git show:*),bash(git cat-file:*),bash(git grep:*)"
    code, result, err = one_shot(fake_env, repo, "--allowed-tools", rules, "go")
    assert code == 0, err
    assert not marker.exists()
    [denial] = result["permission_denials"]
    assert denial["tool_input"] == {"command": command}
    tool_msg = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")
    assert "permission denied" in tool_msg["content"]
    assert said in tool_msg["content"]
    subprocess.run(shlex.split(command), cwd=repo, capture_output=True)
    assert marker.exists()  # the same command run as it stands does run the repository's


def _arm(repo: Path, sub: Path, kind: str, command: str, marker: Path) -> None:
    if kind == "submodule" or "-C sub" in command:
        arm(sub, "fsmonitor", marker)
    elif kind == "showsig":
        arm(repo, "gpg", marker)
        git(repo, "config", "log.showSignature", "true")
    elif kind == "history":
        history_submodule(repo, marker)
    elif kind == "smudge":  # a smudge filter alone, which `git status` never runs
        arm(repo, kind, marker)
        git(repo, "config", "--unset", "filter.x.clean")
    elif kind == "gitdir":
        gitdir_through_link(repo)
        arm(repo, "fsmonitor", marker)
    elif kind != "plain":
        arm(repo, kind, marker)


def test_the_marker_does_appear_when_allowed(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(tool_calls([("bash", {"command": "touch MARKER"})]), text("ok"))
    code, result, err = one_shot(fake_env, project, "--allowed-tools", "bash(touch:*)", "go")
    assert code == 0, err
    assert (project / "MARKER").exists()
    assert result["permission_denials"] == []


def test_secret_reads_are_denied_without_a_terminal(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    ssh = Path(fake_env["HOME"]) / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text("PRIVATE-KEY-MATERIAL\n")
    (project / ".env").write_text("API_TOKEN=sekrit\n")
    fake.script(
        tool_calls(
            [
                ("read_file", {"path": "~/.ssh/id_rsa"}),
                ("read_file", {"path": ".env"}),
                ("bash", {"command": "cat ~/.ssh/id_rsa"}),
                ("grep", {"pattern": "TOKEN", "path": ".env"}),
                ("bash", {"command": "grep -rn TOKEN ."}),
                ("grep", {"pattern": "TOKEN", "output_mode": "content"}),
            ]
        ),
        text("ok"),
    )
    code, result, err = one_shot(fake_env, project, "--permission-mode", "bypassPermissions", "go")
    assert code == 0, err
    assert len(result["permission_denials"]) == 5
    sent = json.dumps(fake.requests[1]["messages"])
    assert "PRIVATE-KEY-MATERIAL" not in sent
    assert "sekrit" not in sent
    results = [m["content"] for m in fake.requests[1]["messages"] if m["role"] == "tool"]
    assert "grep would read .env" in results[4]
    assert "protected files need a person's approval: run interactively" in results[4]
    assert "may hold secrets are not shown: .env" in results[5]


def test_writes_through_a_symlinked_dir_are_denied(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(
        tool_calls([("write_file", {"path": "link_out/MARKER", "content": "x"})]), text("ok")
    )
    code, result, err = one_shot(fake_env, project, "--permission-mode", "acceptEdits", "go")
    assert code == 0, err
    assert not (project.parent / "outside" / "MARKER").exists()
    assert result["permission_denials"][0]["tool_name"] == "write_file"


def test_plan_mode_tells_the_model_and_denies_writes(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(tool_calls([("write_file", {"path": "x.txt", "content": "x"})]), text("plan"))
    code, result, err = one_shot(fake_env, project, "--permission-mode", "plan", "add x.txt")
    assert code == 0, err
    first = fake.requests[0]["messages"][-1]["content"]
    assert first.endswith(f"{PLAN_ON}\n\nadd x.txt")
    assert [d["tool_name"] for d in result["permission_denials"]] == ["write_file"]
    assert not (project / "x.txt").exists()


def test_never_allow_beats_bypass(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    fake.script(tool_calls([("bash", {"command": "/usr/bin/touch MARKER"})]), text("ok"))
    code, result, err = one_shot(
        fake_env,
        project,
        "--permission-mode",
        "bypassPermissions",
        "--disallowed-tools",
        "bash(touch:*)",
        "go",
    )
    assert code == 0, err
    assert not (project / "MARKER").exists()
    assert result["permission_denials"]


# --- the gate's answers -------------------------------------------------------------------


async def _run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ToolResult("ran")


# The real records (permissions read what a tool is from its record), with a run that only says
TOOLS = {t.name: replace(t, run=_run) for t in builtin_tools() if t.kind in ("exec", "edit")}


class Script:
    """An asker that answers from a list and records what it was shown."""

    def __init__(self, *answers: Answer) -> None:
        self.answers, self.seen = list(answers), []  # type: ignore[var-annotated]
        self.active = self.peak = 0

    async def __call__(self, req: AskRequest) -> Answer:
        self.seen.append(req)
        self.active += 1
        self.peak = max(self.peak, self.active)
        await asyncio.sleep(0.01)
        self.active -= 1
        return self.answers.pop(0)


async def ask_through(gate: Gate, name: str, args: dict[str, Any]) -> ToolResult:
    async def nxt(call: Call, ctx: ToolContext) -> ToolResult:
        return ToolResult("ran")

    return await gate(Call("c", name, args), ToolContext(cwd=gate.ws.root), nxt)


async def test_yes_once_then_asked_again(tmp_path: Path) -> None:
    asker = Script(Answer("y"), Answer("n", "not twice"))
    gate = Gate(TOOLS, {}, "default", Recorder(), asker, workspace=tmp_path)
    assert (await ask_through(gate, "bash", {"command": "make"})).output == "ran"
    denied = await ask_through(gate, "bash", {"command": "make"})
    assert denied.is_error
    assert "not twice" in denied.output
    assert asker.seen[0].target == "make"
    assert asker.seen[0].choices == ("y", "s", "a", "n")


async def test_session_answer_covers_the_prefix(tmp_path: Path) -> None:
    asker = Script(Answer("s"), Answer("n"))
    gate = Gate(TOOLS, {}, "default", Recorder(), asker, workspace=tmp_path)
    await ask_through(gate, "bash", {"command": "npm test -- a"})
    assert (await ask_through(gate, "bash", {"command": "npm test -- b"})).output == "ran"
    assert (await ask_through(gate, "bash", {"command": "npm publish"})).is_error
    assert len(asker.seen) == 2
    assert not (tmp_path / ".agent").exists()


async def test_a_remembered_directory_means_the_same_from_any_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    proj = tmp_path / "proj"
    (proj / "pkg").mkdir(parents=True)
    (proj / "other").mkdir()
    in_pkg = Gate(
        TOOLS, {}, "default", Recorder(), Script(Answer("d")), workspace=proj / "pkg", root=proj
    )
    assert (
        await ask_through(in_pkg, "write_file", {"path": "a.py", "content": ""})
    ).output == "ran"
    local = json.loads((proj / ".agent" / "settings.local.json").read_text())
    assert local["permissions"]["alwaysAllow"] == [
        "write_file(pkg/**)",
        "edit_file(pkg/**)",
        "notebook_edit(pkg/**)",
    ]
    # the next session starts at the project root: the rule still means pkg/, nothing else
    from agent.config.load import load_settings

    settings, _ = load_settings(proj, trusted=False)
    at_root = Gate(TOOLS, settings["permissions"], "default", Recorder(), workspace=proj, root=proj)
    write = {"content": ""}
    assert (await ask_through(at_root, "write_file", {**write, "path": "pkg/b.py"})).output == "ran"
    assert (await ask_through(at_root, "write_file", {**write, "path": "other/x.py"})).is_error
    assert (await ask_through(in_pkg, "write_file", {**write, "path": "c.py"})).output == "ran"


async def test_always_answer_is_saved_atomically(tmp_path: Path) -> None:
    (tmp_path / ".agent").mkdir()
    local = tmp_path / ".agent" / "settings.local.json"
    local.write_text(json.dumps({"model": "m", "permissions": {"alwaysAllow": ["bash(ls)"]}}))
    asker = Script(Answer("a"))
    gate = Gate(TOOLS, {}, "default", Recorder(), asker, workspace=tmp_path)
    await ask_through(gate, "bash", {"command": "npm test && cargo build --release"})
    data = json.loads(local.read_text())
    assert data["model"] == "m"
    assert data["permissions"]["alwaysAllow"] == [
        "bash(ls)",
        "bash(npm test:*)",
        "bash(cargo build:*)",
    ]
    assert not [p for p in (tmp_path / ".agent").iterdir() if p.name.endswith(".tmp")]
    assert (await ask_through(gate, "bash", {"command": "cargo build"})).output == "ran"


async def test_directory_answer_and_the_diff(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\ny = 2\n")
    asker = Script(Answer("d"))
    rec = Recorder()
    gate = Gate(TOOLS, {}, "default", rec, asker, workspace=tmp_path)
    args = {"path": "src/a.py", "old_string": "y = 2", "new_string": "y = 3"}
    assert (await ask_through(gate, "edit_file", args)).output == "ran"
    req = asker.seen[0]
    assert req.target == str(tmp_path / "src" / "a.py")
    assert req.choices == ("y", "s", "d", "n")
    assert "-y = 2" in req.diff
    assert "+y = 3" in req.diff
    saved = json.loads((tmp_path / ".agent" / "settings.local.json").read_text())
    assert saved["permissions"]["alwaysAllow"] == [
        "write_file(src/**)",
        "edit_file(src/**)",
        "notebook_edit(src/**)",  # every file-editing tool
    ]
    assert (tmp_path / ".agent" / ".gitignore").exists()  # the agent created .agent/
    preview = TOOLS["edit_file"].preview
    assert preview is not None
    empty_old = {"path": "src/a.py", "old_string": "", "new_string": "x"}
    refused = preview(empty_old, tmp_path)
    assert refused is not None and refused.note == (
        "(old_string is empty but a.py is not; the edit will fail)"
    )  # never a diff of a change the tool will refuse
    made = preview({**empty_old, "path": "src/new.py"}, tmp_path)
    assert made is not None and "+x" in made.diff
    assert (await ask_through(gate, "write_file", {"path": "src/b.py"})).output == "ran"
    assert len(asker.seen) == 1


async def test_protected_paths_offer_only_once(tmp_path: Path) -> None:
    asker = Script(Answer("a"))  # not offered: treated as no
    gate = Gate(TOOLS, {}, "default", Recorder(), asker, workspace=tmp_path)
    res = await ask_through(gate, "write_file", {"path": ".git/config", "content": "x"})
    assert res.is_error
    assert asker.seen[0].choices == ("y", "n")


async def test_prompts_do_not_overlap(tmp_path: Path) -> None:
    asker = Script(Answer("y"), Answer("y"), Answer("y"))
    gate = Gate(TOOLS, {}, "default", Recorder(), asker, workspace=tmp_path)
    await asyncio.gather(*(ask_through(gate, "bash", {"command": f"make t{i}"}) for i in range(3)))
    assert asker.peak == 1


async def test_no_terminal_denial_says_how_to_allow(tmp_path: Path) -> None:
    rec = Recorder()
    gate = Gate(TOOLS, {}, "default", rec, workspace=tmp_path)
    res = await ask_through(gate, "bash", {"command": "npm test"})
    assert "--allowed-tools 'bash(npm test:*)'" in res.output
    assert [type(e) for e in rec.events] == [PermissionDenied]
    quoted = await ask_through(gate, "bash", {"command": "python3 -c 'print(1)'"})
    sentence = quoted.output.split("allow it with ", 1)[1].split("\n")[0]  # "--allowed-tools X)"
    words = shlex.split(sentence)  # as a shell reads the pasted flag
    assert words[:2] == ["--allowed-tools", "bash(python3 -c 'print(1)':*))"]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("y\n", ("y", "")),
        ("s", ("s", "")),
        ("d", ("d", "")),
        ("a", ("n", "a")),
        ("", ("n", "")),
        ("n use the Makefile", ("n", "use the Makefile")),
        ("stop that", ("n", "stop that")),
        ("YES", ("y", "")),
    ],
)
def test_parse_answer(line: str, expected: tuple[str, str]) -> None:
    assert parse_answer(line, ("y", "s", "d", "n")) == expected


# --- the interactive prompt on a real terminal ----------------------------------------------


def test_interactive_prompt_shows_the_diff_and_remembers(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    from pty_term import Term

    (project / ".agent").mkdir()
    (project / ".agent" / "settings.json").write_text(json.dumps({"model": "fake-model"}))
    fake.script(
        tool_calls([("write_file", {"path": "docs/guide.md", "content": "# Guide\n"})]),
        text("written"),
    )
    term = Term(fake_env, project)
    try:
        term.wait_for("Trust this project")
        term.type("y")
        term.wait_for("shift-tab", where="bottom")
        term.type("write the guide")
        shown = term.wait_for("Allow?")
        assert "permission: write_file" in shown
        assert "+# Guide" in shown
        assert "[d] remember dir" in shown
        term.answer("d")
        term.wait_for("written")
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.close()
    assert (project / "docs" / "guide.md").read_text() == "# Guide\n"
    local = json.loads((project / ".agent" / "settings.local.json").read_text())
    assert "write_file(docs/**)" in local["permissions"]["alwaysAllow"]
    trusted = json.loads((Path(fake_env["HOME"]) / ".agent" / "trusted.json").read_text())
    assert str(project) in trusted["projects"] or os.path.realpath(project) in trusted["projects"]


async def test_rule_table_names_the_source_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".agent").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    (home / ".agent" / "settings.json").write_text(
        json.dumps({"permissions": {"neverAllow": ["bash(curl:*)"]}})
    )
    (tmp_path / ".agent").mkdir()
    local = tmp_path / ".agent" / "settings.local.json"
    local.write_text(json.dumps({"permissions": {"alwaysAllow": ["bash(make:*)"]}}))
    rules = {"neverAllow": ["bash(curl:*)"], "alwaysAllow": ["bash(make:*)", "glob"]}
    gate = Gate(TOOLS, rules, "default", Recorder(), Script(Answer("s")), workspace=tmp_path)
    await ask_through(gate, "bash", {"command": "cargo test"})
    got = {(o.list, o.rule): o.source for o in gate.table()}
    assert got == {
        ("neverAllow", "bash(curl:*)"): str(home / ".agent" / "settings.json"),
        ("alwaysAllow", "bash(make:*)"): str(local),
        ("alwaysAllow", "glob"): "command line",
        ("alwaysAllow", "bash(cargo test:*)"): "session",
    }


def test_remembered_rules_apply_in_an_untrusted_project_but_a_shipped_file_does_not(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.config import trust
    from agent.permissions.asking import remember

    monkeypatch.setenv("HOME", fake_env["HOME"])  # remember() records its write for this user
    local = remember(project, ["bash(touch marker:*)"])
    assert trust.is_own(local)
    fake.script(tool_calls([("bash", {"command": "touch marker"})]), text("ok"))
    code, result, err = one_shot(fake_env, project, "go")
    assert code == 0, err
    assert (project / "marker").exists() and not result["permission_denials"]
    assert "not trusted" not in err
    # The same file edited by someone else (or shipped with the repository) is not the user's.
    (project / "marker").unlink()
    local.write_text(local.read_text().replace("touch marker", "touch marker "))
    fake.script(tool_calls([("bash", {"command": "touch marker"})]), text("ok"))
    code, result, err = one_shot(fake_env, project, "go")
    assert not (project / "marker").exists() and result["permission_denials"]
    assert "project not trusted" in err


def test_a_linked_settings_local_json_never_borrows_another_projects_trust(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.config import trust
    from agent.permissions.asking import remember

    monkeypatch.setenv("HOME", fake_env["HOME"])
    mine = tmp_path / "mine"
    mine.mkdir()
    local = remember(mine, ["bash(touch marker:*)"])  # the user's own answers, in their project
    assert trust.is_own(local)
    for how in ("file", "dir"):
        evil = tmp_path / f"evil-{how}"
        evil.mkdir()
        if how == "file":
            (evil / ".agent").mkdir()
            (evil / ".agent" / "settings.local.json").symlink_to(local)
        else:
            (evil / ".agent").symlink_to(mine / ".agent", target_is_directory=True)
        assert not trust.is_own(evil / ".agent" / "settings.local.json")
        fake.script(tool_calls([("bash", {"command": "touch marker"})]), text("ok"))
        code, result, err = one_shot(fake_env, evil, "go")
        assert code == 0, err
        assert not (evil / "marker").exists() and result["permission_denials"], how
        assert "project not trusted" in err
    assert trust.is_own(local)


def test_a_mistyped_rule_is_named_not_silently_dropped(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path
) -> None:
    (project / ".agent").mkdir(exist_ok=True)
    settings = project / ".agent" / "settings.json"
    settings.write_text(json.dumps({"permissions": {"neverAllow": ["bash(rm:*", "bash(curl:*)"]}}))
    fake.script(text("ok"))
    code, _result, err = one_shot(fake_env, project, "--trust-project", "hi")
    assert code == 0, err
    assert f"{settings}: permissions.neverAllow[0] 'bash(rm:*' is not a rule" in err
    assert "neverAllow[1]" not in err


def _suggested(denial: str) -> list[str]:
    """The flags a no-terminal denial suggests, as a shell reads the pasted text."""
    assert "acceptEdits" not in denial  # it never allows a write outside the workspace
    sentence = denial.split("allow it with ", 1)[1].split("\n")[0]
    return shlex.split(sentence.removesuffix(")"))


@pytest.mark.parametrize(
    ("cwd", "path", "tool"),
    [
        ("proj", "../outside/new.txt", "write_file"),
        ("proj", "../outside/old.txt", "edit_file"),
        ("home", "notes.txt", "write_file"),  # the project is ~ itself
        ("home/proj", "../top.txt", "edit_file"),  # a file right in ~
    ],
)
def test_the_suggested_flag_really_allows_the_denied_write(
    fake: FakeOpenAI, fake_env: dict[str, str], project: Path, cwd: str, path: str, tool: str
) -> None:
    from agent.permissions.paths import Workspace
    from agent.permissions.rules import parse_rule, path_match

    home = Path(fake_env["HOME"])
    where = project.parent / cwd
    where.mkdir(parents=True, exist_ok=True)
    target = where / path
    target.write_text("hello\n")
    args: dict[str, Any] = {"path": path, "content": "bye\n"}
    if tool == "edit_file":
        args = {"path": path, "old_string": "hello", "new_string": "bye"}
    read = tool_calls([("read_file", {"path": path})])  # an existing file is read before a change
    fake.script(
        tool_calls([(tool, args)]), text("no"), read, tool_calls([(tool, args)]), text("ok")
    )
    code, result, err = one_shot(fake_env, where, "go")
    assert code == 0, err
    assert len(result["permission_denials"]) == 1 and target.read_text() == "hello\n"
    denial = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")["content"]
    flags = _suggested(denial)
    assert flags[0] == "--allowed-tools" and flags[1].startswith(f"{tool}(")
    rule = parse_rule(flags[1], Workspace.make(where, home=home))
    for other in (home / "other.txt", home / "deep" / "x.txt"):  # never all of ~
        assert not path_match(rule, other), rule.text
    reads = f"read_file({target.resolve()})"  # the read an edit of an existing file needs
    code, result, err = one_shot(fake_env, where, *flags, "--allowed-tools", reads, "go")
    assert code == 0, err
    assert result["permission_denials"] == []
    assert target.read_text() == "bye\n"
