"""The built-in tools, one subpackage per family, and the flat registry they join.

The families (files, patch, search, code, shell, web, tasks) stand apart: none imports another;
what two of them need lives below them in `shared/` (an import-linter contract in pyproject.toml
holds both). Adding a tool = writing one `Tool` record (agent.base.record) in its family and
listing it in `builtin_tools()`; the record declares what the layers around it need (its
kind, what its calls act on, other names, an edit preview). Tools that belong to a feature
(project actions, subagents) live in that feature's package and join the same registry when the
app assembles a session.

May import: code (tree-sitter tags), sandbox, permissions (paths, secrets), base, git, config.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.base.record import Tool, ToolContext
from agent.config.providers import accepts_images
from agent.tools.shared.stamps import FileStamps

if TYPE_CHECKING:
    from agent.base.events import Sink
    from agent.config.load import Config


def builtin_tools(apply_patch: bool = False) -> tuple[Tool, ...]:
    """The built-in tools, in the fixed order the model sees them (stable for prompt caching);
    `apply_patch` adds the patch tool after the file tools (for models trained on it, or when
    the `tools.applyPatch` setting asks)."""
    # deferred: ~25 ms of tool modules: only when a registry is built
    from agent.tools.code import tools as code
    from agent.tools.files import read as files
    from agent.tools.search import grep as search
    from agent.tools.shell import bash as shell
    from agent.tools.tasks import plan, todo
    from agent.tools.web import tools as web

    patch: tuple[Tool, ...] = ()
    if apply_patch:
        from agent.tools.patch.tool import APPLY_PATCH

        patch = (APPLY_PATCH,)
    return (
        *files.TOOLS, *patch, *search.TOOLS, *code.TOOLS, *shell.TOOLS, *web.TOOLS, *todo.TOOLS,
        *plan.TOOLS,
    )  # fmt: skip


def registry(tools: tuple[Tool, ...]) -> dict[str, Tool]:
    """A flat name → tool dict; MCP and action tools are added to the same dict."""
    return {t.name: t for t in tools}


def stop_background() -> None:
    """Kill the processes bash started with run_in_background (if any were started)."""
    import sys

    bg = sys.modules.get("agent.tools.shell.background")  # never loaded = nothing to stop
    if bg is not None:
        bg.shutdown()


def session_context(cfg: Config, session_id: str, sink: Sink, result_room: int) -> ToolContext:
    """What the session's tools may use (the folders added to the workspace, web settings,
    stale-read record, whether the model takes images); the app adds the sandbox, planning
    and the editor."""
    # deferred: ~13 ms: the gate has loaded it by the time a session is built; importing any tool
    # module (completion, the ACP) must not pay for it
    from agent.permissions.decide import workspace_of

    web = cfg.options.web  # local docs servers, intranet hosts
    return ToolContext(
        cwd=cfg.cwd,
        added_dirs=tuple(map(str, workspace_of(cfg.cwd, cfg.permissions).extra)),
        session_id=session_id,
        sink=sink,
        allowed_hosts=web.allowed_hosts,
        allow_private_hosts=web.allow_private_hosts,
        web_search=cfg.options.web_search,
        result_room=result_room,
        files=FileStamps(),  # stale-read protection for the file tools
        images=takes_images(cfg),
    )


def takes_images(cfg: Config) -> bool:
    """Whether read_file and prompts send images: `tools.images`, else the model's known
    capability (agent.config.providers)."""
    return accepts_images(cfg.model) if cfg.options.images is None else cfg.options.images
