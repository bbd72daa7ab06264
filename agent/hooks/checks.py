"""Checks after edits (setting `checks`): after a turn whose tools changed files, the lint
command runs on those files (`{files}`), and the test command when `testOnEdit` is on; what
fails goes back to the model as a new message (its first lines, also shown to the user), at
most `maxRounds` times a turn. `/lint` and `/test` run them by hand. They run in the session's
sandbox when there is one, and only from settings the user trusts (an untrusted project's
`checks` are dropped with its hooks).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from agent.base.events import Notice, Sink
from agent.base.record import Call, Next, Tool, ToolContext, ToolResult
from agent.base.words import plural
from agent.config.envfiles import process_env
from agent.config.view import ChecksSettings
from agent.hooks.run import Proc, run_command
from agent.sandbox.runtime import Sandbox

SHOWN_LINES = 60  # of a failing check's output, for the model and the user


@dataclass
class Outcome:
    name: str  # lint | test
    command: str
    proc: Proc

    @property
    def ok(self) -> bool:
        return self.proc.code == 0

    def report(self) -> str:
        """The first lines of what it printed, with how it ended."""
        p = self.proc
        how = "timed out" if p.timed_out else p.error or f"exit {p.code}" if p.code else "passed"
        lines = (p.stdout + p.stderr).strip().splitlines()
        more = f"\n… {len(lines) - SHOWN_LINES} more lines" if len(lines) > SHOWN_LINES else ""
        body = "\n".join(lines[:SHOWN_LINES]) + more
        return f"$ {self.command}  ({how})\n{body}".rstrip()


def _place(cwd: Path, raw: str) -> Path:
    """A path a call names, made absolute (no file system access)."""
    return Path(os.path.normpath(cwd / os.path.expanduser(raw)))


@dataclass
class Checks:
    """A dispatch middleware noting the files edit tools changed, and the checks on them."""

    settings: ChecksSettings
    cwd: Path
    tools: dict[str, Tool]
    sink: Sink
    box: Sandbox | None = None
    changed: set[Path] = field(default_factory=set)  # this turn's, until the checks run
    session: set[Path] = field(default_factory=set)  # every file changed this session

    @property
    def rounds(self) -> int:
        return self.settings.rounds

    async def __call__(self, call: Call, ctx: ToolContext, nxt: Next) -> ToolResult:
        result = await nxt(call, ctx)
        tool = self.tools.get(call.name)
        if tool is not None and tool.kind == "edit" and tool.target and not result.is_error:
            paths = [_place(Path(ctx.cwd), raw) for raw in tool.target.paths(call.args)]
            self.changed.update(paths)
            self.session.update(paths)
        return result

    def files(self, paths: set[Path]) -> list[str]:
        """The paths that still exist, relative to the workspace, sorted."""
        out = []
        for p in sorted(paths):
            if p.is_file():
                out.append(os.path.relpath(p, self.cwd))
        return out

    async def run(self, name: str, files: list[str]) -> Outcome | None:
        """Run the lint (on `files`, or the whole project when none) or the test command."""
        command = self.settings.lint if name == "lint" else self.settings.test
        if not command:
            return None
        if name == "lint":
            listed = " ".join(shlex.quote(f) for f in files) if files else "."
            command = command.replace("{files}", listed)
        env = process_env()
        proc = await run_command(command, b"", self.settings.timeout, self.cwd, env, self.box)
        return Outcome(name, command, proc)

    async def after_turn(self) -> str:
        """Run the checks on this turn's changed files: the message for the model when one
        failed ("" when they passed or nothing changed)."""
        files, self.changed = self.files(self.changed), set()
        if not files:
            return ""
        outcomes = [await self.run("lint", files)]
        if self.settings.test_on_edit:
            outcomes.append(await self.run("test", files))
        failed = [o for o in outcomes if o is not None and not o.ok]
        ran = [o.name for o in outcomes if o is not None]
        if not failed:
            if ran:
                what = plural(len(files), "changed file")
                self.sink.emit(Notice(f"checks passed ({', '.join(ran)}) on {what}"))
            return ""
        reports = "\n\n".join(o.report() for o in failed)
        self.sink.emit(Notice(f"checks failed after your edits:\n{reports}"))
        return (
            f"[checks after the edits: {', '.join(o.name for o in failed)} failed on "
            f"{', '.join(files)}]\n{reports}\n\nFix what they report, then finish."
        )


def for_session(
    settings: ChecksSettings,
    cwd: Path,
    tools: dict[str, Tool],
    sink: Sink,
    box: Sandbox | None,
    trusted: bool,
) -> Checks | None:
    """The session's checks, when a lint or test command is set. In a project not trusted
    they would run its code (a test suite, a linter's plugins): only inside a sandbox."""
    if not settings.lint and not settings.test:
        return None
    boxed = box if box is not None and box.active else None
    if not trusted and boxed is None:
        sink.emit(Notice("checks are off: the project is not trusted and there is no sandbox"))
        return None
    return Checks(settings, cwd, tools, sink, boxed)
