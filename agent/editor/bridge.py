"""The editor's buffers and terminals, offered to the tools (agent.tools.shared.editor_io) when the
client says it has them: `fs/read_text_file`, `fs/write_text_file`, `terminal/*`."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import threading
import time
from pathlib import Path
from typing import Any

from acp import tool_terminal_ref
from acp.schema import ClientCapabilities, EnvVariable, ToolCallProgress

from agent.base.parts import TerminalRun
from agent.base.record import CALL_ID
from agent.config.providers import model_key_names

log = logging.getLogger("agent.editor")
REPLY_WAIT = 30.0  # seconds a file request may take before the disk is used instead
OUTPUT_LIMIT = 1 << 20  # bytes of a command's output the editor keeps (it drops the start)


class EditorBridge:
    """EditorIO over an ACP connection, for one session."""

    def __init__(self, conn: Any, caps: ClientCapabilities, send: Any) -> None:
        self.conn, self.send, self.session_id = conn, send, ""
        fs = caps.fs
        self.can_read = bool(fs and fs.read_text_file)
        self.can_write = bool(fs and fs.write_text_file)
        self.terminals = bool(caps.terminal)
        self.loop = asyncio.get_running_loop()
        self.thread = threading.get_ident()  # the loop's: requests wait for replies elsewhere
        self.shown: dict[Path, str] = {}  # path -> hash of the buffer read_file last showed

    def _call(self, request: Any) -> Any:
        """Run a request on the loop from a worker thread and wait for its reply; one that
        takes too long is cancelled (a late write must not land over a later one)."""
        if threading.get_ident() == self.thread:
            request.close()
            raise RuntimeError("editor file requests are made from worker threads")
        future = asyncio.run_coroutine_threadsafe(request, self.loop)
        try:
            return future.result(REPLY_WAIT)
        except BaseException:
            future.cancel()
            raise

    def remember(self, path: Path, text: str) -> None:
        self.shown[path] = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def changed(self, path: Path, text: str) -> bool:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        return self.shown.get(path, digest) != digest

    def read(self, path: Path) -> str | None:
        if not self.can_read:
            return None
        try:
            reply = self._call(self.conn.read_text_file(session_id=self.session_id, path=str(path)))
        except Exception as e:  # the editor could not: the disk will do
            log.warning("fs/read_text_file %s failed (%s); reading the disk", path, e)
            return None
        return str(reply.content)

    def write(self, path: Path, text: str) -> bool:
        if not self.can_write:
            return False
        request = self.conn.write_text_file(
            session_id=self.session_id, path=str(path), content=text
        )
        try:
            self._call(request)
        except Exception as e:  # the editor may or may not have written it: never guess
            why = f"the editor did not confirm writing {path.name}: {e or 'no reply'}"
            raise OSError(why) from e
        self.remember(path, text)  # what the buffer holds now is what the model wrote
        return True

    async def run(self, argv: list[str], cwd: str, timeout: float) -> TerminalRun | None:
        if not self.terminals:
            return None
        conn, sid = self.conn, self.session_id
        created = await conn.create_terminal(
            session_id=sid,
            command=argv[0],
            args=argv[1:],
            cwd=cwd,
            env=[EnvVariable(name="PYTHONIOENCODING", value="utf-8")]
            + [EnvVariable(name=k, value="") for k in sorted(model_key_names())],  # not for them
            output_byte_limit=OUTPUT_LIMIT,
        )
        tid = created.terminal_id
        call_id = CALL_ID.get()
        if call_id:  # the editor shows the terminal inside the tool call, live
            self.send(
                ToolCallProgress(
                    session_update="tool_call_update",
                    tool_call_id=call_id,
                    status="in_progress",
                    content=[tool_terminal_ref(tid)],
                )
            )
        started = time.monotonic()
        try:
            code: int | None
            try:
                done = await asyncio.wait_for(
                    conn.wait_for_terminal_exit(session_id=sid, terminal_id=tid), timeout
                )
                code = done.exit_code if done.exit_code is not None else -1
            except asyncio.TimeoutError:
                await conn.kill_terminal(session_id=sid, terminal_id=tid)
                code = None
            out = await conn.terminal_output(session_id=sid, terminal_id=tid)
            return TerminalRun(code, out.output, out.truncated, time.monotonic() - started)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(conn.kill_terminal(session_id=sid, terminal_id=tid))
            raise
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(conn.release_terminal(session_id=sid, terminal_id=tid))
