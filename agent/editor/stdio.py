"""`agent --acp`: the ACP agent on stdin/stdout. The protocol gets stdout to itself: anything
else written there (a stray print, a child process) lands on stderr instead."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from argparse import Namespace
from typing import Any, cast

from acp import run_agent
from acp.core import DEFAULT_STDIO_BUFFER_LIMIT_BYTES
from acp.stdio import stdio_streams

from agent.config.load import flags_from
from agent.editor.server import EditorAgent


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
    reader, writer = await stdio_streams(limit=DEFAULT_STDIO_BUFFER_LIMIT_BYTES)
    sys.stdout = sys.stderr  # …and Python's own prints go to stderr from now on
    agent = EditorAgent(flags_from(args), dict(os.environ))
    try:
        await run_agent(cast(Any, agent), writer, reader)  # it serves what ACP asks of it
    finally:
        await agent.close()
