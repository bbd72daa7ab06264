"""Permission facts for a bash command: parse it, then judge each simple command on its own.

A command is allowed only when it parses, has no escape hatch (shellrisk.escape), every simple
command is allowed by a rule or is a built-in read-only command whose paths stay inside the
workspace, and its redirections write nowhere outside the workspace. Deny and ask rules are
matched generously instead: through wrappers (`sudo curl`, `env X=1 curl`, `xargs curl`), by
the program's base name (`/usr/bin/curl`), inside substitutions and inside `bash -c '…'` /
`eval '…'` strings; a word only known at run time is a possible match ("maybe" → ask).
"""

from __future__ import annotations

import re
from pathlib import Path

from agent.permissions.facts import Facts
from agent.permissions.later import first_runs_later
from agent.permissions.paths import Workspace, check, names_protected, secret_name
from agent.permissions.rules import Rule, RuleSet, words_match
from agent.permissions.shell import risk as risk
from agent.permissions.shell.git import git_config_read, git_repo_hazard, without_git_options
from agent.permissions.shell.parse import Command, Parsed, Redirect, Word, parse
from agent.permissions.shell.places import (
    FILE_WRITERS,
    HARMLESS_TARGETS,
    expand,
    inside,
    runs_later_args,
)
from agent.permissions.shell.reach import recursive_read
from agent.permissions.shell.suggest import prefix_suggestion

_HOME_PWD = re.compile(r"\$\{?(HOME|PWD)\}?")
PEEL = risk.WRAPPERS - {"eval", "source", ".", "trap", "alias", "fc", "let"}
MAX_DEPTH = 3


def command_facts(
    rs: RuleSet, tool: str, command: str, ws: Workspace, base: Path | None = None
) -> Facts:
    """What decide needs to know about one shell command given to `tool` (see the module
    docstring); its rules are that tool's; relative paths start at `base` (the root)."""
    f = Facts(target=command)
    p = parse(command)
    _rule_scan(f, rs, tool, p)
    if not p.parsed:
        f.problem = p.problems[0]
        return f
    problems = list(p.problems)
    bases = [base or ws.root]
    writes = _redirects(f, p.redirects, ws, bases, problems)
    judged: list[tuple[str, bool]] = []
    for cmd in p.commands:
        j = None if cmd.nested else _judge(f, rs, tool, cmd, ws, bases, problems)
        judged += [j] if j is not None else []
    if problems:
        f.problem, f.suggest = problems[0], []
        return f
    f.read_only = not writes and all(ro for _, ro in judged)
    if all(rule or ro for rule, ro in judged) and not f.read_only:
        f.allow = next((rule for rule, _ in judged if rule), "")
    f.suggest = list(dict.fromkeys(f.suggest))
    return f


def _judge(
    f: Facts,
    rs: RuleSet,
    tool: str,
    cmd: Command,
    ws: Workspace,
    bases: list[Path],
    problems: list[str],
) -> tuple[str, bool] | None:
    """(allow rule, built-in read-only) for one simple command; None when it runs nothing."""
    names_no_file = risk.opens_nothing(cmd)
    cmd = expand(cmd, bases)
    if not names_no_file:  # `echo ~/.ssh/id_rsa` prints a static name, it opens nothing
        f.protected = f.protected or _secret_args(cmd, ws, bases) or git_config_read(cmd)
    name = risk.name_of(cmd)
    esc = risk.escape(cmd)  # `sed -i`: a reading command made to write
    if esc and _script_reads_only(f, rs, tool, cmd, ws, bases[-1]):
        return "", True
    writer = (name or "").rsplit("/", 1)[-1] in FILE_WRITERS and (esc or not risk.read_only(cmd))
    if writer:  # it writes what it names: never what runs later, unasked
        f.protected = f.protected or runs_later_args(cmd, ws, bases)
    if esc:
        problems.append(esc)
        return None
    if not cmd.argv:
        return None
    rule = _allow_rule(rs, tool, cmd)
    ro = risk.read_only(cmd) and (names_no_file or inside(cmd, ws, bases))
    reach = recursive_read(cmd, ws, bases)
    f.protected = f.protected or reach.secret
    hazard = git_repo_hazard(cmd, bases)  # "" at once for anything but git
    f.repo_code = f.repo_code or hazard  # never run unasked, not even in the sandbox
    if hazard and risk.read_only(cmd):  # no rule covers it, as with `git -c core.pager=`
        problems.append(hazard)
        return None
    if reach.unsure and ro:
        ro, f.why = False, f.why or reach.unsure
    if name in ("cd", "pushd", "popd"):  # later relative paths may start from there
        where = cmd.argv[1].value if len(cmd.argv) > 1 else "~"
        if where is None or name == "popd" or where.startswith(("+", "-")):
            problems.append(f"{name} to a directory known only at run time")
            return None
        # bash's cd folds `l/..` lexically, git and the kernel follow `l` first: both count
        bases += [Path(p) for p in check(where or "~", ws, bases[-1]).paths]
    if not (rule or ro):
        f.suggest.append(f"{tool}({prefix_suggestion(cmd)}:*)")
        unruled = "is not allowed by a rule" if rs.for_tool("allow", tool) else "is not read-only"
        outside = risk.read_only(cmd)
        f.why = f.why or f"{name} {'reaches outside the workspace' if outside else unruled}"
    return rule, ro


def _script_reads_only(
    f: Facts, rs: RuleSet, tool: str, cmd: Command, ws: Workspace, base: Path
) -> bool:
    """`bash -lc S` (`zsh -lc`, `sh -c`, as Codex takes them) whose script S only reads, judged
    as S itself from where it would start; what S reaches that always asks asks here too."""
    script = risk.shell_script(cmd)
    if script is None:
        return False
    inner = command_facts(rs, tool, script, ws, base)
    f.protected = f.protected or inner.protected
    f.repo_code = f.repo_code or inner.repo_code
    return inner.read_only and not inner.problem and not inner.protected


def _rule_scan(f: Facts, rs: RuleSet, tool: str, p: Parsed) -> None:
    """Deny and ask rules, matched generously (see the module docstring)."""
    deny, maybe_deny = _scan(rs.for_tool("deny", tool), p, 0)
    ask, maybe_ask = _scan(rs.for_tool("ask", tool), p, 0)
    if deny:
        f.deny = deny
    elif maybe_deny:
        f.deny_reason = f"the command might match deny rule {maybe_deny!r} when it runs"
    f.ask = ask or maybe_ask or f.ask
    if f.deny:
        f.deny_reason = f"denied by rule {f.deny!r}"


def _scan(rules: list[Rule], p: Parsed, depth: int) -> tuple[str, str]:
    if not rules:
        return "", ""
    bare = next((r.text for r in rules if not r.words), "")
    if bare:
        return bare, ""
    maybe = "" if p.parsed else rules[0].text
    for cmd in p.commands:
        argv = [w.value for w in cmd.argv]
        if argv and argv[0] is None:
            maybe = maybe or rules[0].text
        for variant in _variants(argv):
            for r in rules:
                m = words_match(r, variant, for_deny=True)
                if m == "yes":
                    return r.text, ""
                maybe = maybe or (r.text if m == "maybe" else "")
        inner = _inner_script(argv)
        if inner is None:
            continue
        if not inner or depth >= MAX_DEPTH:
            maybe = maybe or rules[0].text
            continue
        hit, m2 = _scan(rules, parse(inner), depth + 1)
        if hit:
            return hit, ""
        maybe = maybe or m2
    return "", maybe


def _variants(argv: list[str | None]) -> list[list[str | None]]:
    """argv itself, and when it starts with a wrapper, every tail that may be the real command;
    for git, also the command without git's own options (`git -C . push` is `git push`)."""
    out = [argv]
    if argv and argv[0] is not None and argv[0].rsplit("/", 1)[-1] in PEEL:
        for i in range(1, len(argv)):
            word = argv[i]
            if word is None or not word.startswith("-"):
                out.append(argv[i:])
    for variant in list(out):
        bare = without_git_options(variant)
        if bare is not None:
            out.append(bare)
    return out


def _inner_script(argv: list[str | None]) -> str | None:
    """The command string run by `bash -c S`, `eval S…` (None: not such a command)."""
    if not argv or argv[0] is None:
        return None
    base = argv[0].rsplit("/", 1)[-1]
    if base == "eval":
        return " ".join(a or "" for a in argv[1:]) if None not in argv[1:] else ""
    if base in risk.SHELLS:
        for i, a in enumerate(argv[1:], 1):
            if a and a.startswith("-") and not a.startswith("--") and "c" in a:
                nxt = argv[i + 1] if i + 1 < len(argv) else ""
                return nxt or ""
    return None


def _allow_rule(rs: RuleSet, tool: str, cmd: Command) -> str:
    argv = [w.value for w in cmd.argv]
    for r in rs.command_allow(tool, argv[0] or ""):
        if words_match(r, argv, for_deny=False) == "yes":
            return r.text
    return ""


def _secret_args(cmd: Command, ws: Workspace, bases: list[Path]) -> str:
    for raw in risk.path_args(cmd):
        if "\n" in raw:
            continue
        for base in bases:
            why = check(raw, ws, base).secret
            if why:
                return why
    for w in cmd.argv[1:]:
        why = _run_time_secret(w, ws, bases[-1])
        if why:
            return why
    return ""


def _run_time_secret(w: Word, ws: Workspace, base: Path) -> str:
    """Why a word known only at run time may name a protected path (`$HOME/.ssh/id_rsa`,
    `${PWD}/.env`): a protected path always asks, so it cannot hide behind a variable."""
    if w.value is not None or not w.raw:
        return ""
    text = w.raw.replace('"', "").replace("'", "")
    known = _HOME_PWD.sub(lambda m: str(ws.home if m.group(1) == "HOME" else base), text)
    if not any(c in known for c in "$`{*?["):
        why = check(known, ws, base).secret  # only $HOME / $PWD in it: the path is known
        if why:
            return why
    if names_protected(text) or any(secret_name(part) for part in text.split("/")):
        return f"{w.raw} may name a protected path when it runs"
    return ""


def _redirects(
    f: Facts, redirects: list[Redirect], ws: Workspace, bases: list[Path], problems: list[str]
) -> bool:
    """Check redirection targets; True when one writes a file (not read-only any more)."""
    writes = False
    for r in redirects:
        v = r.target.value
        if r.fd_dup or v in HARMLESS_TARGETS:
            continue
        if v is None or r.target.glob:
            problems.append(f"redirection {r.op} to a file decided at run time")
            f.protected = f.protected or _run_time_secret(r.target, ws, bases[-1])
            continue
        for base in bases:
            verdict = check(v, ws, base)
            f.protected = f.protected or verdict.secret
            if r.writes and not f.protected:
                f.protected = first_runs_later(verdict.paths, ws.dirs)
            if r.writes and not verdict.inside:
                problems.append(f"redirection {r.op} {v} writes outside the workspace")
            writes = writes or r.writes or not verdict.inside
    return writes
