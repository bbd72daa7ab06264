"""/lint and /test: the `checks` commands run by hand (agent.hooks.checks)."""

from __future__ import annotations

from agent.commands.registry import Ctx, command


async def _run(ctx: Ctx, name: str) -> None:
    checks = ctx.agent.checks
    if checks is None or not (checks.settings.lint if name == "lint" else checks.settings.test):
        key = "checks.lint" if name == "lint" else "checks.test"
        example = '"ruff check {files}"' if name == "lint" else '"pytest -x -q"'
        ctx.say(f"no {name} command: set {key} in settings, e.g. {example}", "yellow")
        return
    files = checks.files(checks.session)  # the files this session changed ("." when none)
    outcome = await checks.run(name, files)
    if outcome is None:
        return
    ctx.say(outcome.report(), None if outcome.ok else "red")


@command("lint")
async def lint_cmd(ctx: Ctx, args: str) -> None:
    """Run checks.lint on the files this session changed (the whole project when none)."""
    await _run(ctx, "lint")


@command("test")
async def test_cmd(ctx: Ctx, args: str) -> None:
    """Run checks.test."""
    await _run(ctx, "test")
