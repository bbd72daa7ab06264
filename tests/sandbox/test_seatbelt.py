"""The Seatbelt profile, read as the kernel would: sandbox-exec cannot run here, so the tests parse
the generated SBPL and decide writes with Seatbelt's rule (the last matching rule wins, nothing
matching is denied) over real project trees built by `make_policy`."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from agent.sandbox import seatbelt
from agent.sandbox.policy import Policy, Reach, make_policy
from agent.sandbox.seatbelt import SANDBOX_EXEC, profile, sbpl_string, seatbelt_argv

# One rule with one path filter: (allow|deny OPS (literal|subpath "escaped"))
RULE = re.compile(r'^\((allow|deny) ([a-z*\- ]+) \((literal|subpath) "((?:[^"\\]|\\.)*)"\)\)$')


@pytest.fixture(autouse=True)
def _no_user_temp(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same profile on every machine: no per-user macOS temp unless a test adds one."""
    monkeypatch.setattr(seatbelt, "darwin_user_temp_dir", lambda: None)


def project(root: Path, *, agent: bool = True, hooks: bool = True) -> Path:
    """A repository with .git/config, optionally .git/hooks and .agent/worktrees, and a .env."""
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    if hooks:
        (root / ".git" / "hooks").mkdir()
    if agent:
        (root / ".agent" / "worktrees").mkdir(parents=True)
    (root / ".env").write_text("KEY=1\n")
    (root / "src").mkdir()
    return root


def rules(text: str) -> list[tuple[int, str, set[str], str, str]]:
    """(line index, action, operations, match, unescaped path) of each single-path rule."""
    out = []
    for i, line in enumerate(text.splitlines()):
        m = RULE.match(line)
        if m:
            path = re.sub(r"\\(.)", r"\1", m.group(4))
            out.append((i, m.group(1), set(m.group(2).split()), m.group(3), path))
    return out


def matches(match: str, rule_path: str, path: str) -> bool:
    if match == "literal":
        return path == rule_path
    return path == rule_path or path.startswith(rule_path.rstrip("/") + "/")


def may_write(text: str, path: str) -> bool:
    """Seatbelt's decision for a write to `path`: the last matching rule, else deny."""
    allowed = False
    for _, action, ops, match, rule_path in rules(text):
        if "file-write*" in ops and matches(match, rule_path, path):
            allowed = action == "allow"
    return allowed


def real(p: Path) -> str:
    return os.path.realpath(p)


def test_base_denies_by_default_and_reads_everywhere(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    text = profile(make_policy("workspace-write", [root]), str(tmp_path / "tmp"))
    lines = text.splitlines()
    assert lines[:2] == ["(version 1)", "(deny default)"]
    assert lines.count("(allow file-read*)") == 1
    assert not [line for line in lines if line.startswith("(deny file-read")]
    for needed in ("(allow process-exec)", "(allow process-fork)", "(allow sysctl-read)"):
        assert needed in lines
    assert "(allow signal (target same-sandbox))" in lines
    # only the writes the rules below name, and the command's own ptys, are ever allowed
    assert "(allow file-write*)" not in text and "(allow default)" not in text
    loose = [ln for ln in lines if "file-write" in ln and not RULE.match(ln)]
    assert loose and all("/dev/ptmx" in ln or "com.apple.sandbox.pty" in ln for ln in loose)


def test_writes_allowed_exactly_for_roots_temp_and_devices(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    extra = tmp_path / "extra"
    extra.mkdir()
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    link = tmp_path / "tmp-link"
    link.symlink_to(tmpdir)
    text = profile(make_policy("workspace-write", [root], extra=(extra,)), str(link))
    allowed = {(m, p) for _, a, ops, m, p in rules(text) if a == "allow" and "file-write*" in ops}
    temps = {("subpath", real(tmpdir)), ("subpath", "/private/tmp")}
    devices = {("literal", "/dev/null"), ("literal", "/dev/tty"), ("subpath", "/dev/fd")}
    devices.add(("literal", "/dev/ptmx"))  # the command's own ptys (openpty)
    workspace = {("subpath", real(root)), ("subpath", real(extra))}
    reopen = {("subpath", real(root / ".agent" / "worktrees"))}
    assert allowed == workspace | temps | devices | reopen
    assert ("subpath", str(link)) not in allowed  # the link's target, as the kernel sees it
    assert may_write(text, real(root / "src" / "main.py"))
    assert may_write(text, real(extra / "out.bin"))
    assert may_write(text, real(tmpdir / "scratch"))
    assert not may_write(text, str(tmp_path / "elsewhere"))
    assert not may_write(text, "/etc/hosts")


def test_each_protected_path_is_denied_after_every_allow(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    policy = make_policy("workspace-write", [root])
    text = profile(policy, str(tmp_path / "tmp"))
    parsed = rules(text)
    directory, file = {"literal", "subpath"}, {"literal"}
    expected = {
        real(root / ".git"): directory,  # the whole of it: hooks, config, index, objects
        real(root / ".agent"): directory,
        real(root / ".env"): file,
    }
    assert set(policy.read_only) == set(expected)
    allow_root = max(i for i, a, _, _, p in parsed if a == "allow" and p == real(root))
    for path, kinds in expected.items():
        found = [(i, ops, m) for i, a, ops, m, p in parsed if a == "deny" and p == path]
        assert {m for _, _, m in found} == kinds and len(found) == len(kinds), path
        assert all(i > allow_root and "file-write*" in ops for i, ops, _ in found)
        assert not may_write(text, path)
    assert not may_write(text, real(root / ".git" / "hooks" / "pre-commit"))
    assert not may_write(text, real(root / ".agent" / "settings.json"))
    assert not may_write(text, real(root / ".git" / "index"))
    assert not may_write(text, real(root / ".mcp.json"))  # missing, denied all the same
    assert may_write(text, real(root / ".env.example"))  # not a protected .env* file


def test_missing_protected_dirs_cannot_be_created(tmp_path: Path) -> None:
    root = project(tmp_path / "p", agent=False, hooks=False)
    policy = make_policy("workspace-write", [root])
    text = profile(policy, str(tmp_path / "tmp"))
    folders = {".agent", ".claude", ".vscode", ".idea"}
    files = {".mcp.json", ".envrc", ".gitmodules", ".gitattributes"}
    assert set(policy.missing) == {real(root / n) for n in folders}
    assert set(policy.absent) == {real(root / n) for n in files}  # Seatbelt denies them too
    for guard in (*policy.missing, *policy.absent):
        denied = {m for _, a, _, m, p in rules(text) if a == "deny" and p == guard}
        assert denied == {"literal", "subpath"}
        assert not may_write(text, guard)  # mkdir
        assert not may_write(text, guard + "/post-checkout")


def test_directories_holding_protected_paths_cannot_be_moved(tmp_path: Path) -> None:
    """`mv .git elsewhere`, edit, move back: the rename itself is refused (the root too)."""
    root = project(tmp_path / "p")
    text = profile(make_policy("workspace-write", [root]), str(tmp_path / "tmp"))
    assert not may_write(text, real(root))
    assert not may_write(text, real(root / ".git"))
    assert not may_write(text, real(root / ".git" / "config"))
    assert may_write(text, real(root / ".gitignore"))
    assert may_write(text, real(root / "src"))


def test_reopen_comes_after_the_denies_it_overrides(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    policy = make_policy("workspace-write", [root])
    worktrees = real(root / ".agent" / "worktrees")
    assert policy.reopen == (worktrees,)
    text = profile(policy, str(tmp_path / "tmp"))
    parsed = rules(text)
    deny_agent = [i for i, a, _, _, p in parsed if a == "deny" and p == real(root / ".agent")]
    allow_reopen = [i for i, a, _, m, p in parsed if a == "allow" and p == worktrees]
    assert len(deny_agent) == 2 and len(allow_reopen) == 1  # .agent: literal and subpath
    assert allow_reopen[0] > max(deny_agent)
    assert may_write(text, worktrees + "/wt/src/a.py")
    assert not may_write(text, real(root / ".agent" / "config.json"))


def test_protected_paths_of_a_worktree_stay_protected_below_reopen(tmp_path: Path) -> None:
    """Working in a worktree under .agent/worktrees: its own .env and .agent stay read-only."""
    root = project(tmp_path / "p")
    worktree = root / ".agent" / "worktrees" / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text("gitdir: ../../../.git/worktrees/wt\n")
    (worktree / ".env").write_text("KEY=2\n")
    text = profile(make_policy("workspace-write", [root, worktree]), str(tmp_path / "tmp"))
    assert may_write(text, real(worktree / "src" / "b.py"))
    assert not may_write(text, real(worktree / ".env"))
    assert not may_write(text, real(worktree / ".agent" / "x"))
    assert not may_write(text, real(worktree))


def test_network_rule_only_when_allowed(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    tmp = str(tmp_path / "tmp")
    on = profile(make_policy("workspace-write", [root], network=True), tmp).splitlines()
    off = profile(make_policy("workspace-write", [root], network=False), tmp).splitlines()
    assert on.count("(allow network*)") == 1 and "(allow system-socket)" in on
    assert not [ln for ln in off if ln.startswith(("(allow network*", "(allow system-socket)"))]
    # without network: outbound to the system log only; with unixSockets, also to sockets
    # under a path a command may write anyway
    outbound = [ln for ln in off if ln.startswith("(allow network-outbound")]
    assert outbound and all(RULE.match(ln) for ln in outbound)
    targets = {p for _, a, ops, _, p in rules("\n".join(off)) if "network-outbound" in ops}
    assert targets == {"/private/var/run/syslog"}
    assert "(allow system-socket (socket-domain AF_UNIX))" in off
    sockets = Reach(unix_sockets=True)
    unix = profile(make_policy("workspace-write", [root], reach=sockets), tmp)
    targets = {p for _, a, ops, _, p in rules(unix) if "network-outbound" in ops}
    assert targets == {"/private/var/run/syslog", real(root), real(Path(tmp)), "/private/tmp"}
    # with network: no unix socket but the name resolver's and the log's, unless unixSockets
    assert "(deny network-outbound (remote unix-socket))" in on
    net_unix = profile(make_policy("workspace-write", [root], True, reach=sockets), tmp)
    assert "(deny network-outbound (remote unix-socket))" not in net_unix


def test_hidden_paths_cannot_be_read_and_skills_can(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    secrets, skills = tmp_path / "home" / ".agent", tmp_path / "home" / ".agent" / "skills"
    skills.mkdir(parents=True)
    key = tmp_path / "home" / "key.pem"
    key.write_text("k")
    reach = Reach(hidden=(real(secrets), real(key)), shown=(real(skills),))
    text = profile(make_policy("workspace-write", [root], reach=reach), str(tmp_path / "tmp"))
    lines = text.splitlines()
    deny_dir = f"(deny file-read* (subpath {sbpl_string(real(secrets))}))"
    deny_file = f"(deny file-read* (literal {sbpl_string(real(key))}))"
    shown = f"(allow file-read* (subpath {sbpl_string(real(skills))}))"
    assert deny_dir in lines and deny_file in lines
    assert lines.index(shown) > lines.index(deny_dir)  # the last match decides


def test_read_only_mode_writes_only_temp_and_devices(tmp_path: Path) -> None:
    tmpdir = tmp_path / "tmp"
    root = project(tmpdir / "p")  # a project inside the temp dir stays read-only too
    policy = make_policy("read-only", [root])
    text = profile(policy, str(tmpdir))
    allowed = {p for _, a, ops, _, p in rules(text) if a == "allow" and "file-write*" in ops}
    assert real(root) not in allowed
    devices = {"/dev/null", "/dev/tty", "/dev/fd", "/dev/ptmx"}
    assert allowed == {real(tmpdir), "/private/tmp"} | devices
    assert not may_write(text, real(root / "src" / "a.py"))
    assert not may_write(text, real(root))
    assert may_write(text, real(tmpdir / "scratch"))


def test_paths_are_escaped_string_literals(tmp_path: Path) -> None:
    root = tmp_path / 'we"ird\\dir'
    root.mkdir()
    (root / ".env").write_text("A=1\n")
    text = profile(make_policy("workspace-write", [root]), str(tmp_path / "tmp"))
    escaped = real(root).replace("\\", "\\\\").replace('"', '\\"')
    assert f'(allow file-write* network-bind (subpath "{escaped}"))' in text
    assert f'"{real(root)}"' not in text  # never the raw text
    assert sbpl_string('/a"b\\c') == '"/a\\"b\\\\c"'
    assert any(p == real(root / ".env") for _, a, _, _, p in rules(text) if a == "deny")
    assert not may_write(text, real(root / ".env"))
    assert may_write(text, real(root / "ok.txt"))


def test_unsafe_paths_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "line\nbreak"
    root.mkdir()
    with pytest.raises(ValueError, match="line break"):
        profile(make_policy("workspace-write", [root]), str(tmp_path / "tmp"))
    with pytest.raises(ValueError, match="line break"):
        profile(make_policy("workspace-write", [tmp_path]), str(tmp_path / "t\nmp"))
    for bad, why in (("/a\0b", "NUL"), ("/a\rb", "line break"), ("relative/path", "absolute")):
        with pytest.raises(ValueError, match=why):
            sbpl_string(bad)


def test_off_has_no_profile(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="off"):
        profile(Policy(), str(tmp_path))
    with pytest.raises(ValueError, match="off"):
        profile(make_policy("off", [tmp_path]), str(tmp_path))


def test_argv_shape(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    policy = make_policy("workspace-write", [root])
    tmp = str(tmp_path / "tmp")
    argv = seatbelt_argv(policy, ["bash", "-c", "echo hi"], tmp)
    assert argv == [SANDBOX_EXEC, "-p", profile(policy, tmp), "bash", "-c", "echo hi"]
    assert SANDBOX_EXEC == "/usr/bin/sandbox-exec"
    with pytest.raises(ValueError, match="no command"):
        seatbelt_argv(policy, [], tmp)
    with pytest.raises(ValueError, match="start with '-'"):  # sandbox-exec's own option
        seatbelt_argv(policy, ["-n", "x"], tmp)


def forms(text: str) -> list[str]:
    """The top-level forms' heads; asserts balanced parentheses outside strings and comments."""
    depth, heads, i = 0, [], 0
    while i < len(text):
        c = text[i]
        if c == ";":
            i = text.index("\n", i)
        elif c == '"' or text.startswith('#"', i):
            i = text.index('"', i) + 1
            while text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "(":
            if depth == 0:
                heads.append(re.match(r"\(([a-z]+)", text[i:]).group(1))  # type: ignore[union-attr]
            depth += 1
        elif c == ")":
            depth -= 1
            assert depth >= 0, f"unbalanced at {i}"
        i += 1
    assert depth == 0
    return heads


@pytest.mark.parametrize("mode", ["read-only", "workspace-write"])
@pytest.mark.parametrize("network", [False, True])
def test_structure_and_every_path_quoted(tmp_path: Path, mode: str, network: bool) -> None:
    root = project(tmp_path / 'p "q" \\ (x)', hooks=False)
    policy = make_policy(mode, [root], network=network)
    tmp = str(tmp_path / "tmp")
    text = profile(policy, tmp)
    heads = forms(text)
    assert heads[:2] == ["version", "deny"] and set(heads) <= {"version", "allow", "deny"}
    paths = [*policy.writable, *policy.read_only, *policy.missing, *policy.reopen]
    for path in [*paths, real(Path(tmp)), "/private/tmp"]:
        assert sbpl_string(path) in text, path
    assert len(rules(text)) == sum(1 for ln in text.splitlines() if RULE.match(ln))


def test_per_user_temp_dir_is_writable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seatbelt, "darwin_user_temp_dir", lambda: "/private/var/folders/ab/x/T")
    text = profile(make_policy("read-only", [tmp_path]), str(tmp_path / "tmp"))
    assert may_write(text, "/private/var/folders/ab/x/T/tmp.1")
    assert not may_write(text, "/private/var/folders/ab/x/C/cache")  # not all of /var/folders


def test_darwin_user_temp_dir_asks_confstr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()
    asked: list[object] = []

    def confstr(name: str | int) -> str:
        asked.append(name)
        if isinstance(name, str):
            raise ValueError("unrecognized configuration name")
        return "/var/folders/ab/x/T/"

    monkeypatch.setattr(seatbelt.sys, "platform", "darwin")
    monkeypatch.setattr(seatbelt.os, "confstr", confstr)
    assert seatbelt.darwin_user_temp_dir() == os.path.realpath("/var/folders/ab/x/T")
    assert asked == ["CS_DARWIN_USER_TEMP_DIR", 65537]
    monkeypatch.setattr(seatbelt.sys, "platform", "linux")
    assert seatbelt.darwin_user_temp_dir() is None
