"""run_action: the model's one tool for project actions, and the runner `/run` shares with it.

Runs are queued: at most MAX_RUNNING at once (a semaphore), one at a time per action unless it
says `allowParallel` (a lock per action). Each run is a process group without a shell (bash's
helpers in shell.py); a timeout kills the group and reports exit 124. The child environment
carries MARKER, so an agent started by an action offers no actions, and the tool refuses while
an action runs in this process. The model sees the output capped (head plus the last
TAIL_KEEP characters). Model runs are audited by the dispatch Audit layer; user runs by
`record_user_run`, with `trigger` telling them apart. An action runs in the caller's working
tree (`agent --worktree`, a /batch unit's `ToolContext.cwd`: actions.workspace_for).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import time
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.actions import judge  # noqa: F401  (registers how run_action calls are judged)
from agent.actions.registry import (
    MARKER,
    Action,
    ActionError,
    Invocation,
    exposed,
    load_actions,
    prepare,
    workspace_for,
)
from agent.base.args import ArgError, Args, arg
from agent.base.record import Call, Target, Tool, ToolContext, ToolResult, error
from agent.config.view import Settings
from agent.permissions.audit import Audit
from agent.sandbox.runtime import Sandbox
from agent.tools.shell.bash import OnData, execute_argv
from agent.tools.shell.output import child_env

if TYPE_CHECKING:
    from agent.base.events import Sink
    from agent.config.load import Config

MAX_RUNNING = 2
OUTPUT_CAP = 6_000  # characters of stdout the model sees (stderr: half); head + tail kept
TAIL_KEEP = 200
_current: ContextVar[str] = ContextVar("agent_running_action", default="")

NAME = "run_action"  # the model's one tool for project actions


def inside_action() -> str:
    """The id of the action this code runs inside ("" if none), in this process or a parent."""
    return _current.get() or os.environ.get(MARKER, "")


def clip(text: str, limit: int) -> str:
    """The first part and the last TAIL_KEEP characters of `text`, with a marker between."""
    if len(text) <= limit:
        return text
    head = max(limit - TAIL_KEEP, 0)
    cut = len(text) - head - TAIL_KEEP
    return (
        f"{text[:head]}\n[... {cut} characters cut; the last {TAIL_KEEP} follow ...]\n"
        + (text[-TAIL_KEEP:])
    )


@dataclass(frozen=True)
class Outcome:
    """What one run did."""

    run: Invocation
    code: int  # 124 timed out, 126/127 could not start, 128+N killed by signal N
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    problem: str = ""

    def display(self) -> str:
        return f"run_action {self.run.action.id} · exit {self.code} · {self.seconds:.1f}s"

    def for_model(self) -> str:
        parts = [f"action {self.run.action.id} · exit {self.code} · {self.seconds:.1f} s"]
        if self.stdout.strip():
            parts.append("[stdout]\n" + clip(self.stdout.rstrip("\n"), OUTPUT_CAP))
        if self.stderr.strip():
            parts.append("[stderr]\n" + clip(self.stderr.rstrip("\n"), OUTPUT_CAP // 2))
        if self.problem:
            parts.append(f"[{self.problem}]")
        elif self.timed_out:
            parts.append(
                f"[exit 124: the action timed out after {self.run.action.timeout:g} s and its "
                "process group was killed. Action timed out — do not retry, report it.]"
            )
        elif not self.stdout.strip() and not self.stderr.strip():
            parts.append("(no output)")
        return "\n".join(parts)


async def execute(
    run: Invocation, on_data: OnData | None = None, box: Sandbox | None = None
) -> Outcome:
    """Start the argv (in the session's sandbox `box`) in its own process group; kill the group
    on timeout."""
    env = {**child_env(), MARKER: run.action.id}
    t0 = time.monotonic()
    argv = list(run.argv)
    try:
        code, proto, _ = await execute_argv(
            box.wrap(argv, run.cwd) if box is not None else argv,
            str(run.cwd),
            run.action.timeout,
            env,
            on_data,
        )
    except OSError as e:
        why = f"cannot start {run.argv[0]}: {e.strerror or e}"
        code = 127 if isinstance(e, FileNotFoundError) else 126
        return Outcome(run, code, "", "", time.monotonic() - t0, problem=why)
    out, err = proto.streams[1].text()[0], proto.streams[2].text()[0]
    seconds = time.monotonic() - t0
    if code is None:
        return Outcome(run, 124, out, err, seconds, timed_out=True)
    return Outcome(run, 128 - code if code < 0 else code, out, err, seconds)


class ActionRunner:
    """The loaded actions of one session, their queue, and the audit of user runs."""

    def __init__(
        self,
        actions: tuple[Action, ...],
        root: Path,
        settings: dict[str, Any] | None = None,
        session_id: str = "",
        sink: Sink | None = None,
        workspace: Path | None = None,
    ) -> None:
        self.actions = {a.id: a for a in actions}
        tags = Settings(settings or {}).expose_tags
        self.exposed = {a.id: a for a in exposed(actions, tags)}
        self.root = root  # the project: its audit log
        self.workspace = workspace or root  # the session's working tree: where actions run
        self.audit = Audit(root, session_id, sink)
        self._slots: asyncio.Semaphore | None = None
        self._locks: dict[str, asyncio.Lock] = {}
        self._user_ids = itertools.count(1)
        self.sandbox: Sandbox | None = None  # the session's (agent.app sets it)

    def prepare(
        self, action_id: str, params: Any, *, model: bool = False, workspace: Path | None = None
    ) -> Invocation:
        """A checked run of one action in `workspace` (default: the session's working tree);
        ActionError when the id or the params are wrong."""
        pool = self.exposed if model else self.actions
        action = pool.get(action_id)
        if action is None:
            known = ", ".join(sorted(pool)) or "none"
            raise ActionError(f"unknown action {action_id!r}; available: {known}")
        return prepare(action, params, workspace or self.workspace)

    def workspace_of(self, cwd: Path | None) -> Path:
        """A caller's working tree: its worktree under the project, else the session's."""
        if cwd is None:
            return self.workspace
        found = workspace_for(cwd, self.root)
        return self.workspace if found == self.root else found

    async def run(self, run: Invocation, on_data: OnData | None = None) -> Outcome:
        """Wait for the action's turn and a free slot, then run it."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(MAX_RUNNING)
        a = run.action
        lock = contextlib.nullcontext() if a.allow_parallel else self._lock(a.id)
        async with lock, self._slots:
            token = _current.set(a.id)
            try:
                return await execute(run, on_data, self.sandbox)
            finally:
                _current.reset(token)

    def _lock(self, action_id: str) -> asyncio.Lock:
        return self._locks.setdefault(action_id, asyncio.Lock())

    def record_user_run(
        self, run: Invocation, outcome: Outcome | None, reason: str = "", seconds: float = -1
    ) -> None:
        """Audit a `/run`: its outcome; None = declined, or interrupted after `seconds`."""
        ran = outcome is not None or seconds >= 0
        args = {"action_id": run.action.id, "params": run.params}
        call = Call(f"user-{next(self._user_ids)}", NAME, args, source="user", trigger="user")
        call.decision, call.reason = ("allow" if ran else "deny"), reason
        if outcome is not None:
            result = ToolResult(outcome.for_model(), outcome.code != 0, outcome.display())
            self.audit.record(call, result, outcome.seconds)
        elif ran:
            self.audit.record(call, None, seconds)  # status "interrupted"
        else:
            self.audit.record(call, ToolResult(reason, is_error=True), 0.0)

    def tool(self) -> ActionTool:
        """The run_action tool offering the exposed actions."""
        return ActionTool(
            name=NAME,
            description=describe(tuple(self.exposed.values())),
            parameters=ActionArgs.schema(action_id=sorted(self.exposed)),
            run=self._tool_run,
            kind="exec",
            target=Target("action", "action_id"),
            runner=self,
        )

    async def _tool_run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        running = inside_action()
        if running:
            return error(
                f"run_action is refused inside an action run ({running!r} is running): "
                "an action cannot start another action",
                can_retry=False,
            )
        try:
            a = ActionArgs.parse(args)
            run = self.prepare(
                a.action_id, a.params, model=True, workspace=self.workspace_of(ctx.cwd)
            )
        except ArgError as e:
            return e.result()
        except ActionError as e:
            return error(str(e), can_retry=True, hint="fix the action_id or params and call again")
        outcome = await self.run(run)
        return ToolResult(outcome.for_model(), outcome.code != 0, outcome.display())


@dataclass(frozen=True)
class ActionTool(Tool):
    """run_action, carrying its runner so the permission gate can see `requiresConfirm`."""

    runner: ActionRunner | None = field(default=None, compare=False, hash=False, repr=False)


def describe(actions: tuple[Action, ...]) -> str:
    """The tool description: what it is for, then one line per action (sorted by id)."""
    lines = [
        "Run one of this project's declared actions (.agent/actions.json): fixed, reviewed "
        "commands. Prefer an action over typing the same command with bash. `params` is an "
        "object of the action's params; each value becomes one argument, never shell text. "
        "If an action times out (exit 124), do not retry: report it.",
        "Actions:",
    ]
    for a in sorted(actions, key=lambda a: a.id):
        about = " ".join(a.description.split())
        about = about if len(about) <= 400 else about[:399] + "…"
        params = f" Params: {a.signature()}." if a.params else ""
        lines.append(f"- {a.id}: {about}{params}")
    return "\n".join(lines)


class ActionArgs(Args):
    action_id: str = arg(doc="The action's id", given=True)  # the exposed ids, sorted
    params: Mapping[str, Any] | None = arg(
        None, 'The action\'s params by name, e.g. {"level": 2}; {} for none'
    )


def project_actions(
    cfg: Config, session_id: str = "", sink: Sink | None = None
) -> ActionRunner | None:
    """The session's runner, or None when the project declares no usable actions."""
    loaded = load_actions(cfg.root, cfg.trust)
    if not loaded.actions:
        return None
    ws = workspace_for(cfg.cwd, cfg.root)  # `agent --worktree`: the worktree, not the main one
    return ActionRunner(loaded.actions, cfg.root, cfg.settings, session_id, sink, ws)
