"""`/actions` and `/run <id> key=value …` (SPEC §11, §12): the user's side of project actions.

`listing` and `run_for_user` are plain functions any UI can use; importing this module registers
the two commands (agent.commands loads it when present). A user run gets the same checks as a
model run (params, cwd, deny list), honours `neverAllow` rules, asks before an action marked
`requiresConfirm` (no terminal = not run), streams its output line by line, shares the queue
with model runs and is audited with `trigger: "user"`.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import shlex
import time
from collections.abc import Awaitable, Callable

from agent.actions.registry import FILE, TRUST_HINT, Action, ActionError, Invocation
from agent.actions.tool import NAME as ACTION_TOOL
from agent.actions.tool import ActionRunner
from agent.commands.registry import Ctx, command
from agent.permissions.request import AskRequest
from agent.permissions.rules import action_match

Show = Callable[[str, bool], None]  # (one line of output, from stderr?)
Confirm = Callable[[Invocation], Awaitable[bool]]
UNTAGGED = "(untagged)"


def listing(runner: ActionRunner | None) -> list[str]:
    """The actions grouped by tag (an action with several tags shows under each)."""
    if runner is None or not runner.actions:
        return [f"no project actions: declare them in {FILE} (see docs/project-actions.md)"]
    groups: dict[str, list[Action]] = {}
    for a in sorted(runner.actions.values(), key=lambda a: a.id):
        for tag in a.tags or (UNTAGGED,):
            groups.setdefault(tag, []).append(a)
    lines: list[str] = []
    for tag in sorted(groups, key=lambda t: (t == UNTAGGED, t)):
        lines.append(f"{tag}:")
        for a in groups[tag]:
            notes = ["asks first"] if a.requires_confirm else []
            notes += [] if a.id in runner.exposed else ["not offered to the model"]
            extra = f"  [{', '.join(notes)}]" if notes else ""
            title = f" — {a.name}" if a.name != a.id else ""
            lines.append(f"  {a.id}{title}{extra}")
            lines.append(f"      {' '.join(a.description.split())[:160]}")
            if a.params:
                lines.append(f"      params: {a.signature()}")
    lines.append("run one with /run <id> key=value …")
    return lines


def parse_run(text: str) -> tuple[str, dict[str, str]]:
    """`smoke level=2 "msg=a b"` → ("smoke", {"level": "2", "msg": "a b"})."""
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise ActionError(f"cannot parse the arguments: {e}") from None
    if not words:
        raise ActionError("usage: /run <id> key=value …")
    params: dict[str, str] = {}
    for word in words[1:]:
        key, eq, value = word.partition("=")
        if not eq or not key:
            raise ActionError(f"expected key=value, got {word!r}")
        params[key] = value
    return words[0], params


class Lines:
    """Turns output chunks into whole decoded lines for `show`."""

    def __init__(self, show: Show) -> None:
        self.show = show
        self.decoders = {fd: codecs.getincrementaldecoder("utf-8")("replace") for fd in (1, 2)}
        self.partial = {1: "", 2: ""}

    def feed(self, fd: int, data: bytes) -> None:
        text = self.partial[fd] + self.decoders[fd].decode(data)
        *done, self.partial[fd] = text.split("\n")
        for line in done:
            self._show(line.rstrip("\r"), fd == 2)

    def _show(self, line: str, err: bool) -> None:
        with contextlib.suppress(Exception):  # a display problem must not break the capture
            self.show(line, err)

    def flush(self) -> None:
        for fd in (1, 2):
            rest = self.partial[fd] + self.decoders[fd].decode(b"", final=True)
            if rest:
                self._show(rest, fd == 2)
            self.partial[fd] = ""


async def run_for_user(
    runner: ActionRunner | None,
    text: str,
    show: Show,
    confirm: Confirm | None = None,
    deny_rule: Callable[[str], str] | None = None,
) -> int | None:
    """Run `/run` arguments; returns the exit code, or None when nothing ran."""
    if runner is None or not runner.actions:
        show(listing(runner)[0], True)
        return None
    try:
        action_id, params = parse_run(text)
        run = runner.prepare(action_id, params)
    except ActionError as e:
        show(f"/run: {e}", True)
        return None
    rule = deny_rule(action_id) if deny_rule else ""
    if rule or (run.action.requires_confirm and not (confirm and await confirm(run))):
        why = f"denied by rule {rule!r}" if rule else "not confirmed"
        runner.record_user_run(run, None, why)
        show(f"{action_id}: not run ({why})", True)
        return None
    show(f"▶ {action_id}: {run.shown(runner.workspace)}", False)
    lines, t0 = Lines(show), time.monotonic()
    try:
        outcome = await runner.run(run, on_data=lines.feed)
    except asyncio.CancelledError:  # Esc / Ctrl-C: the process group is already killed
        runner.record_user_run(run, None, "interrupted by the user", time.monotonic() - t0)
        raise
    lines.flush()
    runner.record_user_run(run, outcome)
    note = " — timed out, the process group was killed" if outcome.timed_out else ""
    show(f"■ {action_id} · exit {outcome.code} · {outcome.seconds:.1f}s{note}", outcome.code != 0)
    if outcome.problem:
        show(outcome.problem, True)
    return outcome.code


def _runner(ctx: Ctx) -> ActionRunner | None:
    runner = getattr(ctx.run, "actions", None)
    if runner is not None:
        runner.audit.session_id = ctx.run.session_id  # /resume may have switched sessions
    return runner


def _not_trusted(ctx: Ctx) -> bool:
    if (ctx.cfg.root / FILE).is_file() and not ctx.cfg.trusted:
        ctx.say(f"this project's actions are not loaded: it is not trusted ({TRUST_HINT})")
        return True
    return False


def _deny_rule(ctx: Ctx) -> Callable[[str], str]:

    def rule(action_id: str) -> str:
        rules = ctx.run.gate.live_rules().for_tool("deny", ACTION_TOOL)
        hit = next((r for r in rules if r.spec is None or action_match(r, action_id)), None)
        return hit.text if hit else ""

    return rule


def _confirm(ctx: Ctx, runner: ActionRunner) -> Confirm:
    async def ask(run: Invocation) -> bool:

        asker = ctx.run.gate.asker
        if asker is None:
            return False
        args = {"action_id": run.action.id, "params": run.params}
        why = f"action {run.action.id!r} requires confirmation from a person on every run"
        req = AskRequest(ACTION_TOOL, args, why, run.shown(runner.workspace), choices=("y", "n"))
        answer = await asker(req)
        return getattr(answer, "choice", "n") == "y"

    return ask


@command("actions")
async def actions_cmd(ctx: Ctx, args: str) -> None:
    """List the project's actions (.agent/actions.json), grouped by tag."""
    if _not_trusted(ctx):
        return
    for line in listing(_runner(ctx)):
        ctx.say(line)


@command("run", usage="<id> [key=value …]")
async def run_cmd(ctx: Ctx, args: str) -> None:
    """Run a project action: /run <id> key=value … (output streams here)."""
    if _not_trusted(ctx):
        return
    runner = _runner(ctx)
    display = ctx.display if hasattr(ctx.display, "line") else None

    def show(line: str, err: bool) -> None:
        if display is not None:
            display.line(line, "dim" if err else "")
        else:
            ctx.say(line, "dim" if err else None)

    confirm = _confirm(ctx, runner) if runner is not None else None
    await run_for_user(runner, args, show, confirm, _deny_rule(ctx))
