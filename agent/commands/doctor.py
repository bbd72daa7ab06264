"""/doctor: set-up problems, each with what to do — the key, the endpoint (a quick GET of the
server's `/models` through the session's own client), the model among those served, settings
files and start-up warnings, the programs the configuration needs (ripgrep, git, bubblewrap),
MCP servers that failed, trust pending, a state directory that cannot be written."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from agent.app import Run
from agent.base.words import plural
from agent.commands.registry import Ctx, command
from agent.commands.status import key_line, pending, shown
from agent.config import settings as st
from agent.config.settings import ConfigError
from agent.config.statedir import state_home
from agent.tools.shared.walk import find_rg

TIMEOUT = 5.0  # seconds for the GET of /models: a hung server is a finding, not a wait
Finding = tuple[str, str]  # (the problem, what to do)
URL_SOURCES = "--base-url, AGENT_BASE_URL or baseUrl"


async def served_models(run: Run) -> tuple[list[str] | None, Finding | None]:
    """The model ids the server lists (None: it lists none), or what is wrong with reaching it.
    Through the session's client: its base URL, key, headers and proxy settings."""
    import openai

    cfg = run.cfg
    url = f"{cfg.base_url.rstrip('/')}/models"
    client = run.agent.llm.client().with_options(timeout=TIMEOUT, max_retries=0)
    try:
        page = await client.models.list()
    except openai.AuthenticationError as e:
        why = f"the server refused the API key ({key_line(cfg)}): {e.status_code}"
        return None, (why, "check the key, or set the right one in the variable named")
    except openai.PermissionDeniedError as e:
        return None, (f"{url} answered {e.status_code} (forbidden)", "check the key's rights")
    except openai.NotFoundError:
        return None, _not_found(url)
    except openai.APIStatusError as e:
        return None, (f"{url} answered {e.status_code}", f"check the base URL ({URL_SOURCES})")
    except openai.APIConnectionError as e:
        why = f"cannot reach {cfg.base_url}: {e.__cause__ or e}"
        return None, (why, f"is the server running? check the base URL ({URL_SOURCES})")
    ids = [str(m.id) for m in getattr(page, "data", None) or [] if getattr(m, "id", None)]
    return ids or None, None


def _not_found(url: str) -> Finding:
    why = f"{url} was not found (404): the base URL may be wrong"
    return why, f"most servers' base URL ends in /v1 ({URL_SOURCES})"


async def endpoint_findings(run: Run) -> list[Finding]:
    """The key, the endpoint and the model."""
    cfg, model = run.cfg, run.agent.llm.model
    if cfg.provider.needs_key and not cfg.api_key:
        return [("no API key", f"set {cfg.provider.api_key_env or 'AGENT_API_KEY'}")]
    ids, problem = await served_models(run)
    if problem is not None:
        return [problem]
    if ids and model not in ids:
        listed = ", ".join(ids[:8]) + (" …" if len(ids) > 8 else "")
        why = f"model {model} is not among the models the server serves ({listed})"
        return [(why, "/model NAME, --model or AGENT_MODEL picks one it serves")]
    return []


def settings_findings(run: Run) -> list[Finding]:
    """Settings files that do not parse now, and the warnings of start-up."""
    cfg, out = run.cfg, []
    user = st.user_dir()
    files = [user / "settings.json", cfg.root / ".agent/settings.json"]
    files.append(cfg.root / ".agent/settings.local.json")
    for path in dict.fromkeys(files):
        try:
            st.read_settings(path)
        except ConfigError as e:
            out.append((str(e), "fix the file: the next session will not start until it parses"))
    for path in dict.fromkeys((user / "hooks.json", cfg.root / ".agent/hooks.json")):
        try:
            st.read_hooks(path)
        except ConfigError as e:
            out.append((str(e), "fix the file: the next session will not start until it parses"))
    for warning in cfg.warnings:
        out.append((f"at start: {warning}", "see the message (it names the file and the fix)"))
    return out


def program_findings(run: Run) -> list[Finding]:
    """ripgrep, git, and the sandbox's bubblewrap where the configuration needs them."""
    out = []
    if find_rg() is None:
        why = "ripgrep (rg) is not installed: grep and glob use a slower built-in search"
        out.append((why, "install ripgrep (apt install ripgrep, brew install ripgrep)"))
    if (run.cfg.root / ".git").exists() and shutil.which("git") is None:
        why = "git is not installed, and this project is a git repository"
        out.append((why, "install git (/diff, /commit and /review need it)"))
    box = run.sandbox().status()
    if box["problem"]:
        why = f"the sandbox ({box['configured']}) is not active: {box['problem']}"
        out.append((why, 'fix that, or set "sandbox": {"mode": "off"} to be asked instead'))
    return out


def mcp_findings(run: Run) -> list[Finding]:
    out = []
    for s in run.mcp.statuses() if run.mcp is not None else []:
        if s["status"] in ("failed", "timeout"):
            why = f"MCP server {s['name']} {s['status']}: {s.get('error') or 'no reason given'}"
            fix = f"/mcp {s['name']} shows its log; fix its entry, then /mcp reconnect {s['name']}"
            out.append((why, fix))
    return out


def trust_findings(run: Run) -> list[Finding]:
    waits = pending(run.cfg)
    if not waits:
        return []
    files = ", ".join(waits[:5]) + (" …" if len(waits) > 5 else "")
    why = f"trust pending: {plural(len(waits), 'project file')} not applied ({files})"
    return [(why, "read them, then /trust (applies from the next session)")]


def _writable(path: Path) -> bool:
    """Whether `path` can be written, or made where it is missing."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path.is_dir() and os.access(path, os.W_OK | os.X_OK)


def state_findings(run: Run) -> list[Finding]:
    home = state_home()
    fix = f"make {shown(home)} writable, or set AGENT_STATE_DIR to a folder you can write"
    if not _writable(home):
        return [(f"the state directory {shown(home)} cannot be written: no sessions kept", fix)]
    error = run.store.error
    return [(error, fix)] if error else []


async def findings(run: Run) -> list[Finding]:
    """Every problem found, in the order a set-up is usually fixed."""
    out = await endpoint_findings(run)
    for check in (settings_findings, program_findings, mcp_findings, trust_findings):
        out += check(run)
    return out + state_findings(run)


@command("doctor")
async def doctor_cmd(ctx: Ctx, args: str) -> None:
    """Check the set-up (key, endpoint, model, settings, programs, MCP servers, trust, state
    directory): each problem with what to do."""
    run = ctx.run
    ctx.say(f"checking {run.cfg.base_url.rstrip('/')}/models …", "dim")
    found = await findings(run)
    if not found:
        ctx.say(
            f"all is well: {run.cfg.base_url} answers for {run.agent.llm.model} (key: "
            f"{key_line(run.cfg)}); the settings parse; no MCP server failed; nothing waits "
            "for trust",
            "green",
        )
        return
    ctx.say(f"{plural(len(found), 'problem')} found:")
    for problem, fix in found:
        ctx.say(f"✗ {problem} → {fix}")
