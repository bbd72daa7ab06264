"""The ACP agent: one `Run` per editor session, prompts through the same loop the REPL uses."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import importlib
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, update_agent_message_text
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    ClientCapabilities,
    CurrentModeUpdate,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
)

from agent import __version__
from agent.app import Run, build
from agent.base.events import TurnEnd
from agent.commands.registry import all_commands, parse
from agent.config.load import Config, ConfigError, Flags, load_config
from agent.config.modes import MODES
from agent.context.mentions import attach
from agent.editor import replay
from agent.editor.asking import EditorAsker
from agent.editor.bridge import EditorBridge
from agent.editor.commands import announce, run_command
from agent.editor.mcp import editor_servers
from agent.editor.prompt import convert
from agent.editor.session import Session
from agent.editor.updates import EditorSink
from agent.session.listing import list_sessions
from agent.tools.session import takes_images
from agent.ui.startup import configure

log = logging.getLogger("agent.editor")
MODE_TEXT = {
    "default": ("Ask", "Ask before edits and commands that are not allowed by a rule"),
    "acceptEdits": ("Accept edits", "Edit files in the project without asking"),
    "plan": ("Plan", "Read-only: investigate, then propose a plan"),
    "dontAsk": ("Don't ask", "Deny what is not allowed by a rule, never ask"),
    "bypassPermissions": ("Bypass", "Allow everything except deny rules and protected paths"),
}


def stop_reason(end: TurnEnd | None, finish_reason: str) -> str:
    """The ACP stop reason of a turn's end."""
    if end is None or end.subtype == "success":
        if finish_reason == "content_filter":
            return "refusal"
        return "max_tokens" if end is not None and end.truncated else "end_turn"
    return {"error_max_turns": "max_turn_requests", "error_interrupted": "cancelled"}.get(
        end.subtype, "end_turn"
    )


class EditorAgent:
    """What `agent --acp` serves (the acp package's Agent interface)."""

    def __init__(self, flags: Flags, env: dict[str, str]) -> None:
        self.flags, self.env = flags, env
        self.conn: Any = None
        self.client = ClientCapabilities()
        self.sessions: dict[str, Session] = {}
        self.warm: asyncio.Future[Any] | None = None

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **_: Any,
    ) -> InitializeResponse:
        self.client = client_capabilities or ClientCapabilities()
        try:  # the settings alone: no start-up side effects before a session is opened
            images = takes_images(load_config(self.flags, dict(self.env), Path.cwd()))
        except ConfigError:
            images = False  # said at session/new, where the editor shows it
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=images, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            agent_info=Implementation(name="agent", title="agent", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **_: Any) -> AuthenticateResponse:
        return AuthenticateResponse()  # the API key comes from the environment or settings

    def _config(self, cwd: str, mcp_servers: list[Any] | None) -> Config:
        extra, skipped = editor_servers(mcp_servers or [])
        flags = replace(self.flags, mcp_servers=extra) if extra else self.flags
        try:
            cfg = configure(flags, dict(self.env), Path(cwd))
        except ConfigError as e:
            raise RequestError.invalid_params({"message": str(e)}) from None
        for w in [*cfg.warnings, *skipped]:
            log.warning("%s", w)
        return cfg

    async def _open(self, cfg: Config, resume_id: str | None = None) -> Session:
        sink = EditorSink(self.conn, "", cfg.cwd)
        ask = EditorAsker(self.conn, sink.flush)
        bridge = EditorBridge(self.conn, self.client, sink.send)
        run = await asyncio.to_thread(build, cfg, sink, ask, resume_id)
        sink.session_id = ask.session_id = bridge.session_id = run.session_id
        sink.tools = run.agent.tools
        if bridge.can_read or bridge.can_write or bridge.terminals:
            run.agent.ctx.editor = bridge  # the tools use the editor's buffers and terminals
        commands = await asyncio.to_thread(
            all_commands, cfg.root, trusted=cfg.trust, skills=run.skills
        )
        session = Session(run, sink, commands)
        self.sessions[run.session_id] = session
        await run.start()
        # the client's SDK (~0.3 s to import) loads while the user types, as in the REPL
        self.warm = asyncio.ensure_future(asyncio.to_thread(importlib.import_module, "openai"))
        return session

    def _modes(self, run: Run) -> SessionModeState:
        modes = [
            SessionMode(id=m, name=MODE_TEXT[m][0], description=MODE_TEXT[m][1]) for m in MODES
        ]
        return SessionModeState(current_mode_id=run.gate.mode, available_modes=modes)

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> NewSessionResponse:
        session = await self._open(self._config(cwd, mcp_servers))
        announce(session, later=True)
        return NewSessionResponse(session_id=session.run.session_id, modes=self._modes(session.run))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> LoadSessionResponse:
        cfg = self._config(cwd, mcp_servers)
        if not any(s.id == session_id for s in list_sessions(cfg.root)):
            raise RequestError.resource_not_found(session_id)
        session = await self._open(cfg, resume_id=session_id)
        for update in replay.updates(session.run.agent.messages[1:], session.run.agent.tools):
            session.sink.send(update)
        await session.sink.flush()
        announce(session, later=True)
        return LoadSessionResponse(modes=self._modes(session.run))

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **_: Any
    ) -> ListSessionsResponse:
        cfg = self._config(cwd or str(Path.cwd()), None)
        found = await asyncio.to_thread(list_sessions, cfg.root)
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=s.id,
                    cwd=s.cwd or str(cfg.cwd),
                    title=s.first_prompt[:80] or None,
                    updated_at=datetime.datetime.fromtimestamp(
                        s.mtime, datetime.timezone.utc
                    ).isoformat(),
                )
                for s in found
                if s.started
            ]
        )

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> None:
        session = self._session(session_id)
        if mode_id not in MODES:
            raise RequestError.invalid_params({"message": f"unknown mode {mode_id!r}"})
        session.run.set_mode(mode_id)
        session.sink.send(
            CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode_id)
        )

    def _session(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"message": f"no session {session_id!r}"})
        return session

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        session = self._session(session_id)
        if session.task is not None and not session.task.done():
            raise RequestError.invalid_request({"message": "a prompt is already running"})
        run = session.run
        text, images, problems = convert(prompt, run.cfg.cwd)
        for problem in problems:
            session.sink.send(update_agent_message_text(f"[{problem}]\n\n"))
        session.cancelled, session.sink.finish_reason = False, ""
        session.task = asyncio.ensure_future(self._work(session, text, images))
        try:
            end = await session.task
        except asyncio.CancelledError:
            if not session.cancelled:
                raise  # the connection itself is closing
            end = None
        finally:
            await session.sink.flush()
        if session.cancelled:
            return PromptResponse(stop_reason="cancelled")
        if end is not None and end.subtype == "error_during_execution":
            raise RequestError.internal_error({"message": end.error or "the turn failed"})
        return PromptResponse(stop_reason=stop_reason(end, session.sink.finish_reason))  # type: ignore[arg-type]

    async def _work(self, session: Session, text: str, images: list[Any]) -> TurnEnd | None:
        """One prompt: a slash command (its printed output sent as the answer), or a turn."""
        announce(session)  # commands that arrived since (an MCP server's prompts)
        run = session.run
        if parse(text) is None:
            return await run.turn(attach(text, run.cfg.cwd), images)
        return await run_command(session, text, images)

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None and session.task is not None and not session.task.done():
            session.cancelled = True
            session.task.cancel()

    async def close(self) -> None:
        """End every session (SessionEnd hooks, MCP servers, background work)."""
        for session in list(self.sessions.values()):
            with contextlib.suppress(Exception):
                await session.run.end("exit")
            await session.sink.close()
        self.sessions.clear()
