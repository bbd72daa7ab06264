"""`agent --input-format stream-json --output-format stream-json`: a long-lived session driven
by a program over stdio, as the Claude Agent SDKs drive their CLI.

stdout belongs to the protocol (a copy of it; anything else written to fd 1 goes to stderr).
Lines in are user messages (one turn each, in order) and control messages; each turn's events
go out as stream-json, closed by its `result`. Control requests are handled while a turn runs
(`interrupt` stops it). The session ends at the end of stdin, once the queued turns are done.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import sys
import time
from argparse import Namespace
from typing import IO, TYPE_CHECKING, Any

from agent.base.events import TurnEnd
from agent.base.record import Image
from agent.base.visible import visible
from agent.config.load import ConfigError, flags_from
from agent.mcp import transports
from agent.sdk import control
from agent.sdk.bridge import ProgramServers
from agent.sdk.channel import Channel, Json, messages, stdin_reader
from agent.ui.oneshot import result_event, result_line
from agent.ui.oneshot_script import Script
from agent.ui.process import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from agent.ui.render_json import StreamJsonRenderer
from agent.ui.startup import configure

if TYPE_CHECKING:  # annotations only
    from agent.app import Run

# What a turn that stopped early is called in the SDKs' result types.
SUBTYPES = {"error_interrupted": "error_during_execution", "error_budget": "error_max_budget_usd"}


def serve(args: Namespace) -> int:
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # children and stray prints: stderr
    sys.stdout = sys.stderr
    try:
        return asyncio.run(_main(args, out))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


async def _main(args: Namespace, out: IO[str]) -> int:
    return await Session(args, out).main()


class Session:
    """One program's session: its turns, its control requests, its servers."""

    def __init__(self, args: Namespace, out: IO[str]) -> None:
        self.args, self.channel = args, Channel(out)
        self.inbox: asyncio.Queue[Json | None] = asyncio.Queue()
        self.current: asyncio.Future[TurnEnd] | None = None
        self.stopped = False  # the current turn was interrupted by the program
        self.run: Run | None = None
        self.handling: set[asyncio.Future[None]] = set()  # control requests being handled
        loop = asyncio.get_running_loop()
        self.first: asyncio.Future[Json | None] = loop.create_future()  # initialize, or None
        self.opened: asyncio.Future[Run] = loop.create_future()  # the session, once built

    async def main(self) -> int:
        reader = asyncio.ensure_future(self._read())
        try:
            run = await self._open(await self.first)
        except ConfigError as e:
            print(f"agent: {visible(str(e))}", file=sys.stderr)
            self.channel.write(result_line("error_during_execution", "", error=str(e)))
            reader.cancel()
            return EXIT_USAGE
        self.run = run
        self.opened.set_result(run)
        try:
            await run.start()
            if run.mcp is not None:  # the first turn has them, the program's own ones too
                await asyncio.to_thread(run.mcp.wait)
            self.renderer.start(run.init_event())
            await self._turns(run)
        finally:
            reader.cancel()
            await self._close(run)
        return EXIT_OK

    async def _open(self, init: Json | None) -> Run:
        """The session, built once the program said how (`initialize`: its system prompt and
        its own MCP servers) — or without that, when a user message or the end came first."""
        # deferred: ~220 ms (openai, the whole session): loaded with this mode only
        from agent.app import build
        from agent.session.resume import chosen

        cfg = configure(control.flags_of(flags_from(self.args), init or {}))
        for w in cfg.warnings:
            print(f"agent: warning: {visible(w)}", file=sys.stderr)
        resume_id = chosen(self.args, cfg.root, cfg.cwd)
        transports.BRIDGES.append(ProgramServers(self.channel, asyncio.get_running_loop()))
        asks = getattr(self.args, "permission_prompt_tool", None) == "stdio"
        asker = control.ProgramAsker(self.channel, self.interrupt) if asks else None
        partial = bool(getattr(self.args, "include_partial_messages", False))
        self.renderer = StreamJsonRenderer(self.channel.out, partial)
        return build(cfg, self.renderer, asker, resume_id=resume_id)

    async def _read(self) -> None:
        """Route what the program sends until stdin ends."""
        async for message in messages(stdin_reader()):
            kind = message.get("type")
            if not self.first.done():  # the session is built from what comes first
                asked = message.get("request") if kind == "control_request" else None
                ok = isinstance(asked, dict) and asked.get("subtype") == "initialize"
                self.first.set_result(asked if ok else None)
            if kind == "user":
                await self.inbox.put(message)
            elif kind == "control_request":
                task = asyncio.ensure_future(self._control(message))
                self.handling.add(task)  # kept until done (a task nobody holds may be lost)
                task.add_done_callback(self.handling.discard)
            elif kind == "control_response":
                body = message.get("response")
                self.channel.answered(body if isinstance(body, dict) else {})
        self.channel.end()
        if not self.first.done():
            self.first.set_result(None)
        await self.inbox.put(None)

    async def _control(self, message: Json) -> None:
        rid = str(message.get("request_id", ""))
        body = message.get("request")
        body = body if isinstance(body, dict) else {}
        kind = body.get("subtype")
        try:
            run = await self.opened  # a request that came while the session was being built
        except asyncio.CancelledError:
            return
        try:
            if kind == "initialize":
                answer = control.initialized(run, body, self.channel)
            elif kind == "interrupt":
                self.interrupt()
                answer = {}
            elif kind == "set_permission_mode":
                answer = control.set_mode(run, body)
            elif kind == "set_model":
                answer = control.set_model(run, body)
                self.renderer.model = run.agent.llm.model  # what its messages say
            elif kind == "mcp_status":
                answer = control.mcp_status(run)
            else:
                self.channel.reply(rid, error=f"agent does not support the {kind!r} request")
                return
        except ValueError as e:
            self.channel.reply(rid, error=str(e))
            return
        self.channel.reply(rid, answer)

    def interrupt(self) -> None:
        """Stop the running turn (if any); the conversation stays valid."""
        if self.current is not None and not self.current.done():
            self.stopped = True
            self.current.cancel()

    async def _turns(self, run: Run) -> None:
        while (message := await self.inbox.get()) is not None:
            prompt, images = content_of(message.get("message"))
            t0 = time.monotonic()
            script = Script.of(self.args, run.cfg)  # a schema's answer is checked each turn
            work = self._turn(run, script, prompt, images)
            self.current, self.stopped = asyncio.ensure_future(work), False
            try:
                end = await self.current
            except asyncio.CancelledError:
                if not self.stopped:
                    raise
                end = TurnEnd("error_interrupted", "", run.agent.totals.requests, "interrupted")
            result = {**result_event(run, end, time.monotonic() - t0), **script.result_fields(run)}
            result["subtype"] = SUBTYPES.get(end.subtype, end.subtype)
            self.renderer.finish(result)

    @staticmethod
    async def _turn(run: Run, script: Script, prompt: str, images: list[Image]) -> TurnEnd:
        return await script.settle(run, await run.turn(prompt, images))

    async def _close(self, run: Run) -> None:
        with contextlib.suppress(Exception):  # the program is gone: nothing waits for an error
            await run.end("exit")
        transports.BRIDGES.clear()


def content_of(message: Any) -> tuple[str, list[Image]]:
    """A user message's text and images: a string, or blocks of text, images (base64) and
    tool results (their text)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content, []
    texts: list[str] = []
    images: list[Image] = []
    for n, block in enumerate(content if isinstance(content, list) else []):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "image":
            src = block.get("source") or {}
            if src.get("type") == "base64" and isinstance(src.get("data"), str):
                data = base64.b64decode(src["data"], validate=False)
                images.append(Image(str(src.get("media_type") or "image/png"), data, f"image {n}"))
            else:  # by URL or a file id: not fetched unasked; the model is told it was there
                texts.append(f"[an image was sent as {src.get('type')!r}, which is not attached]")
        elif kind == "tool_result":
            inner = block.get("content")
            texts.append(inner if isinstance(inner, str) else content_of({"content": inner})[0])
    return "\n\n".join(texts), images
