"""`agent --acp`: the ACP agent on stdin/stdout. The protocol gets stdout to itself: anything
else written there (a stray print, a child process) lands on stderr instead. What the editor
sends goes through agent.editor.wire first: a malformed line gets a JSON-RPC error and the
session goes on (the acp package's own reader ended it on a line of `[]`, `null` or `"text"`)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from argparse import Namespace
from typing import Any, cast

from acp import run_agent
from acp.stdio import stdio_streams

from agent.config.load import flags_from
from agent.editor.server import EditorAgent
from agent.editor.wire import STEP, Lines, check

log = logging.getLogger("agent.editor")


class GuardedStdio:
    """The acp package's message transport (send, receive, close) over stdin and stdout."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.lines = Lines(lambda: reader.read(STEP))
        self.writer = writer
        self.lock = asyncio.Lock()  # one message at a time on stdout

    async def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        async with self.lock:
            self.writer.write(data)
            await self.writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        """The next well-formed message (None: the editor closed stdin)."""
        while True:
            line = await self.lines.next()
            if line is None:
                return None
            checked = check(line)
            if checked.error is not None:
                log.warning("%s", checked.error["error"]["message"])
                try:
                    await self.send(checked.error)
                except (OSError, RuntimeError):  # the editor is gone: so is the session
                    return None
            elif checked.message is not None:
                return checked.message

    async def close(self) -> None:
        return None  # stdout is the process's: it closes at exit


def main(args: Namespace) -> int:
    level = logging.INFO if args.verbose else logging.WARNING
    logging.basicConfig(stream=sys.stderr, level=level, format="agent: %(message)s")
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "w")  # the protocol's own copy of stdout
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # fd 1 (children, C code) → stderr
    sys.stdout = channel  # acp opens its writer on sys.stdout…
    try:
        asyncio.run(_serve(args, channel))
    except KeyboardInterrupt:
        return 130
    return 0


async def _serve(args: Namespace, channel: object) -> None:
    reader, writer = await stdio_streams()
    sys.stdout = sys.stderr  # …and Python's own prints go to stderr from now on
    agent = EditorAgent(flags_from(args), dict(os.environ))
    try:  # it serves what ACP asks of it, over the guarded transport
        await run_agent(cast(Any, agent), GuardedStdio(reader, writer))
    finally:
        await agent.close()
