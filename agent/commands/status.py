"""/status: what this session runs with — the version, model, endpoint and provider, where the
API key came from (the variable and the place, never the key), the permission and sandbox
modes, trust, MCP servers, the session, its folders and the settings files read."""

from __future__ import annotations

from pathlib import Path

from agent import __version__
from agent.app import Run
from agent.base.words import plural
from agent.commands.mcp import server_lines
from agent.commands.registry import Ctx, command
from agent.config import trust
from agent.config.load import Config

WIDTH = 12  # of the labels


def shown(path: Path | str, root: Path | None = None) -> str:
    """A path as the user reads it: below `root` (the project) relative to it, their home as ~."""
    text = str(path)
    if root is not None and text.startswith(f"{root}/"):
        return text[len(str(root)) + 1 :]
    home = str(Path.home())
    return "~" + text[len(home) :] if text == home or text.startswith(home + "/") else text


def key_line(cfg: Config) -> str:
    """Which variable the key came from and where (never the key)."""
    variable, place = cfg.key_from
    if variable:
        return f"{variable} from {shown(place) if place.startswith('/') else place}"
    if not cfg.provider.needs_key:
        return f"none sent (provider {cfg.provider.name} needs no key)"
    return f"none found (set {cfg.options.api_key_env or cfg.provider.api_key_env})"


def pending(cfg: Config) -> tuple[str, ...]:
    """The project's files that wait for the user's trust (not applied in this session)."""
    return trust.waiting(cfg.root, cfg.trust)


def trust_line(cfg: Config) -> str:
    """Trusted or not, and what waits for it."""
    if trust.at_home(cfg.root, Path.home()):
        return "your home directory (its files are your own)"
    waits = pending(cfg)
    files = ", ".join(waits[:5]) + (" …" if len(waits) > 5 else "")
    if cfg.trusted:
        if not waits:
            return "trusted"
        return f"trusted; pending: {plural(len(waits), 'file')} changed since ({files}): /trust"
    if trust.is_trusted(cfg.root):
        return "trusted from the next session (trusted since this one began)"
    if trust.declined(cfg.root):
        return "not trusted (you said no; /trust changes it)"
    if not waits:
        return "not trusted (the project brings no settings, hooks or servers of its own)"
    return f"not trusted; pending: {files} not applied until you /trust it"


def sandbox_line(run: Run) -> str:
    st = run.sandbox().status()
    if st["problem"]:
        return f"{st['configured']} asked for, not active: {st['problem']}"
    if st["mode"] == "off":
        return "off (commands run unconfined; --sandbox or the sandbox setting)"
    return f"{st['mode']}, active (network {'on' if st['network'] else 'off'})"


def mcp_lines(run: Run) -> tuple[str, list[str]]:
    """A summary of the MCP servers and one line per server."""
    if run.cfg.no_mcp:
        return "off (--no-mcp)", []
    if run.mcp is None or not run.mcp.statuses():
        return "no servers", []
    states = [s["status"] for s in run.mcp.statuses()]
    up = states.count("connected")
    failed = sum(s in ("failed", "timeout") for s in states)
    waiting = len(states) - up - failed
    summary = f"{plural(len(states), 'server')}: {up} connected, {failed} failed"
    return summary + (f", {waiting} connecting" if waiting else ""), server_lines(run.mcp)


def status_rows(run: Run, mcp: str) -> list[tuple[str, str]]:
    """(label, value) rows of /status (`mcp`: the servers' summary)."""
    cfg, llm = run.cfg, run.agent.llm
    rows = [
        ("version", f"agent {__version__}"),
        ("model", llm.model),
        ("provider", cfg.provider.name),
        ("endpoint", cfg.base_url),
        ("API key", key_line(cfg)),
        ("permissions", f"{run.gate.mode} mode"),
        ("sandbox", sandbox_line(run)),
        ("trust", trust_line(cfg)),
        ("MCP", mcp),
        ("session", run.session_id),
        ("project", shown(cfg.root)),
        ("cwd", shown(cfg.cwd)),
    ]
    if run.gate.ws.extra:
        rows.append(("added dirs", ", ".join(shown(d) for d in run.gate.ws.extra)))
    files = [shown(path, cfg.root) for path, _ in cfg.sources]
    rows.append(("settings", ", ".join(files) or "no settings files (defaults)"))
    return rows


@command("status")
async def status_cmd(ctx: Ctx, args: str) -> None:
    """Show the version, model, endpoint, where the API key came from, the permission and
    sandbox modes, trust, MCP servers, the session and the settings files read."""
    summary, servers = mcp_lines(ctx.run)
    for label, value in status_rows(ctx.run, summary):
        ctx.say(f"{label:<{WIDTH}} {value}")
        if label == "MCP":
            for line in servers:
                ctx.say(f"{'':<{WIDTH}}   {line}")
