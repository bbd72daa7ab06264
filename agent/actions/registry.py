"""Project actions (SPEC §11): load `.agent/actions.json`, and turn a request into a command line.

An action is a fixed command a project declares once ("refresh config", "run smoke tests") so
that neither the model nor a person has to guess the command line. Loading checks each action
statically (actions_schema.py) and skips a bad one with a warning naming it and the field.
Actions are a repository's commands: they load only when the user trusts the project, and not
at all inside a running action (its environment carries MARKER), so an action cannot start
another. Before each run `prepare` checks again: params (actions_params.py), placeholders, a
cwd that exists inside the workspace (real paths, whole components), the deny list on the real
argv (`rm -rf ${target}` with target "/"; actions_danger.py). Params become separate argv
items; nothing passes through a shell unless the action's author wrote one.

The workspace is the working tree the session works in (`workspace_for`): the main checkout,
or the git worktree made by `agent --worktree` or a /batch unit (`<repo>/.agent/worktrees/<name>`)
holding the session's cwd — `${workspaceRoot}` and the default cwd are that worktree, while the
actions themselves, trust and the audit log stay the main checkout's.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.actions.danger import denied
from agent.actions.deny import code_spots, make_assignments
from agent.actions.params import ActionError, Param, arg_text, check_params
from agent.actions.schema import ROOT, fill, placeholders, problems
from agent.config.trust import TRUST_HINT, UNTRUSTED_SHORT, Trust, admits, not_applied

MARKER = "AGENT_ACTION_RUNNING"  # in an action's environment: the id of the running action
FILE = Path(".agent") / "actions.json"
DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True)
class Action:
    id: str
    name: str
    description: str
    command: str
    args: tuple[str, ...] = ()
    cwd: str = "${workspaceRoot}"
    timeout: float = DEFAULT_TIMEOUT
    tags: tuple[str, ...] = ()
    params: tuple[Param, ...] = ()
    requires_confirm: bool = False
    allow_parallel: bool = False

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Action:
        """An action from its (already checked) JSON object."""
        params = tuple(
            Param(
                p["name"],
                p["type"],
                p.get("description", ""),
                bool(p.get("required", False)),
                tuple(p.get("enum", ())),
                p.get("default"),
            )
            for p in raw.get("params", [])
        )
        return cls(
            id=raw["id"],
            name=raw.get("name", raw["id"]),
            description=raw["description"],
            command=raw["command"],
            args=tuple(raw.get("args", ())),
            cwd=raw.get("cwd", "${workspaceRoot}"),
            timeout=float(raw.get("timeout", DEFAULT_TIMEOUT)),
            tags=tuple(raw.get("tags", ())),
            params=params,
            requires_confirm=bool(raw.get("requiresConfirm", False)),
            allow_parallel=bool(raw.get("allowParallel", False)),
        )

    def signature(self) -> str:
        return "; ".join(p.summary() for p in self.params) or "no params"


@dataclass(frozen=True)
class Loaded:
    """The actions that passed the checks, and one warning per problem."""

    actions: tuple[Action, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Invocation:
    """One checked run: the exact argv, the real cwd and the params it was given."""

    action: Action
    argv: tuple[str, ...]
    cwd: Path
    params: dict[str, Any] = field(default_factory=dict)

    def shown(self, root: Path) -> str:
        """`python scripts/smoke.py --level 2 (in tests/)` — what the user is asked about."""
        try:
            where = self.cwd.relative_to(Path(os.path.realpath(root))).as_posix()
        except ValueError:
            where = str(self.cwd)
        return f"{shlex.join(self.argv)} (in {where if where != '.' else 'the workspace root'})"


def load_actions(root: Path, trusted: bool | Trust) -> Loaded:
    """The project's actions; none (with one warning) when untrusted or inside an action run."""
    path = root / FILE
    try:
        st = path.stat()
    except OSError:
        return Loaded()
    if os.environ.get(MARKER):
        return Loaded(warnings=(f"{path}: actions are off inside an action run",))
    if not admits(trusted, FILE):
        why = f"project actions not loaded ({not_applied(trusted, UNTRUSTED_SHORT)}; {TRUST_HINT})"
        return Loaded(warnings=(f"{path}: {why}",))
    return _load(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime_ns: int, size: int) -> Loaded:
    """Parse and check the file (cached per version: config and build both ask)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig") or "{}")
    except OSError as e:
        return Loaded(warnings=(f"{path}: cannot read: {e.strerror}",))
    except json.JSONDecodeError as e:
        return Loaded(warnings=(f"{path}: invalid JSON at line {e.lineno}, column {e.colno}",))
    items = data.get("actions", []) if isinstance(data, dict) else None
    if not isinstance(items, list):
        return Loaded(warnings=(f'{path}: expected {{"actions": [ … ]}}; no actions loaded',))
    try:
        return _check_all(path, items)
    except ImportError:
        return Loaded(warnings=(f"{path}: the jsonschema package is missing; no actions loaded",))


def _check_all(path: str, items: list[Any]) -> Loaded:
    actions: list[Action] = []
    warnings: list[str] = []
    for i, raw in enumerate(items):
        label = raw.get("id") if isinstance(raw, dict) else None
        found = problems(raw)
        if not found and any(a.id == raw["id"] for a in actions):
            found = ["field 'id': an earlier action has the same id"]
        if found:
            name = repr(label) if isinstance(label, str) else f"#{i + 1}"
            warnings.append(f"{path}: action {name} skipped: {'; '.join(found)}")
        else:
            actions.append(Action.from_json(raw))
    return Loaded(tuple(actions), tuple(warnings))


def exposed(actions: tuple[Action, ...], tags: tuple[str, ...] | None) -> tuple[Action, ...]:
    """The actions offered to the model: `actions.exposeTags` in settings limits them by tag."""
    if tags is None:
        return actions
    wanted = set(tags)
    return tuple(a for a in actions if wanted & set(a.tags))


def workspace_for(cwd: Path, root: Path) -> Path:
    """The working tree a session in `cwd` works in: the innermost worktree made by the agent
    (`.agent/worktrees/<name>` with a `.git` file) holding `cwd` inside the project `root`,
    else `root` itself (settings.project_root maps such a worktree back to the main checkout)."""
    real, top = Path(os.path.realpath(cwd)), Path(os.path.realpath(root))
    if real != top and top not in real.parents:
        return root
    for d in (real, *real.parents):
        if d == top:
            break
        in_worktrees = d.parent.name == "worktrees" and d.parent.parent.name == ".agent"
        if in_worktrees and (d / ".git").is_file():
            return d
    return root


def prepare(action: Action, given: Any, root: Path) -> Invocation:
    """Check `given` params and build the exact command line for the workspace `root`;
    ActionError says what is wrong."""
    values = check_params(action, given)
    text = {ROOT: str(root), **{k: arg_text(v) for k, v in values.items()}}
    raws = [action.command]
    argv = [fill(action.command, text)]
    for arg in action.args:
        if any(n not in text for n in placeholders(arg)):
            # An optional param without a value drops just the argument that uses it: whether
            # `-x` before `${target}` is a flag or takes that value cannot be told from here,
            # so an option that takes it is written as one argument, `--level=${level}`.
            continue
        filled = fill(arg, text)
        _no_option(action, arg, filled, values)
        raws.append(arg)
        argv.append(filled)
    for i in make_assignments(argv):  # `make ${target}` with target="CC=$(shell …)"
        if set(placeholders(raws[i])) - {ROOT}:
            why = "a VAR=value assignment (a shell runs it in recipes); pass a value without '='"
            raise ActionError(f"make would read {argv[i]!r} as {why}")
    blank = dict.fromkeys(placeholders(action.cwd), "")  # an optional param left out, "" here
    cwd = _cwd(fill(action.cwd, {**blank, **text}), root)
    # the real argv: `rm -rf ${target}` with "/", `rm -rf ${workspaceRoot}/${dir}` with ".."
    why = denied(argv, str(cwd), code_spots(argv), workspace=str(root))
    if why:
        raise ActionError(f"the command line {shlex.join(argv)!r} is refused: {why}")
    return Invocation(action, tuple(argv), cwd, values)


def _no_option(action: Action, arg: str, filled: str, values: dict[str, Any]) -> None:
    """A string param that makes an argument start with '-' is refused (option injection)."""
    if not filled.startswith("-") or arg.startswith("-"):
        return
    m = re.match(r"\$\{([^{}]*)\}", arg)  # the author's text never starts with '-' here
    p = next((p for p in action.params if m and p.name == m.group(1)), None)
    if p is None or p.type != "string" or values[p.name] in p.enum:
        return  # numbers (-5) and the author's own enum values are fine
    raise ActionError(
        f"param {p.name!r} starts with '-' and would be read as an option by "
        f"{os.path.basename(action.command)}; pass a value that does not start with '-'"
    )


def _cwd(raw: str, root: Path) -> Path:
    """The real working directory; it must exist inside the workspace."""
    path = Path(raw) if os.path.isabs(raw) else root / raw
    real = Path(os.path.realpath(path))
    base = Path(os.path.realpath(root))
    if real != base and base not in real.parents:  # whole components, symlinks resolved
        raise ActionError(f"cwd {path} is outside the workspace {root}")
    if not real.is_dir():
        raise ActionError(f"cwd {path} does not exist or is not a directory")
    return real
