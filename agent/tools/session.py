"""A session's tool context: what its tools may use, from the Config."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.base.record import ToolContext
from agent.config.providers import accepts_images
from agent.permissions.decide import workspace_of
from agent.tools.shared.stamps import FileStamps

if TYPE_CHECKING:
    from agent.base.events import Sink
    from agent.config.load import Config


def session_context(cfg: Config, session_id: str, sink: Sink, result_room: int) -> ToolContext:
    """What the session's tools may use (the folders added to the workspace, web settings,
    stale-read record, whether the model takes images); the app adds the sandbox, planning
    and the editor."""
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
