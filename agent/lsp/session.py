"""A session's language servers: started the first time a file of theirs is edited or asked
about, one per server and workspace, reused for the session, started again when one died (at
most MAX_STARTS times), shut down with the session.

Language servers run project code (see agent.lsp.specs `runs`): they start inside the session's
sandbox when it has one; without one, only in a trusted project (an untrusted one's servers
wait, and /lsp says why). A project's own `lsp` settings are read only once it is trusted
(agent.config drops them before).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.config.envfiles import process_env
from agent.config.statedir import project_state
from agent.lsp.notebook import SUFFIX, code_of, placed
from agent.lsp.rpc import LspError
from agent.lsp.server import LanguageServer
from agent.lsp.specs import ServerSpec, chosen, which
from agent.permissions.request import Asker, AskRequest

if TYPE_CHECKING:  # annotations only (the Protocols cost ~0.8 ms to import)
    from agent.base.parts import CommandBox

MAX_STARTS = 3  # a server that died this often this session stays down
DIAGNOSTICS_TIMEOUT = 15.0  # seconds one file's diagnostics may take after an edit
REQUEST_TIMEOUT = 10.0  # definition, references, hover


class CodeServers:
    """The language servers of one session (the tools see it as ctx.lsp)."""

    def __init__(
        self,
        specs: list[ServerSpec],
        root: Path,
        box: CommandBox | None = None,
        trusted: bool = False,
        asker: Asker | None = None,  # asks once before a server leaves the sandbox
    ) -> None:
        self.specs, self.root, self.box, self.trusted, self.asker = specs, root, box, trusted, asker
        self.running: dict[str, LanguageServer] = {}
        self.problems: dict[str, str] = {}  # name -> why it is not running
        self.starts: dict[str, int] = {}
        self.outside: dict[str, bool] = {}  # name -> the person's answer
        self._locks: dict[str, asyncio.Lock] = {}

    def wanted(self, path: Path) -> list[ServerSpec]:
        """The servers for `path` (a notebook's are Python's)."""
        return chosen(self.specs, path.with_suffix(".py") if path.suffix == SUFFIX else path)

    async def servers(self, path: Path) -> list[LanguageServer]:
        """The running servers for `path`, started (or started again) as needed."""
        out = []
        for spec in self.wanted(path):
            server = await self._server(spec)
            if server is not None:
                out.append(server)
        return out

    async def _server(self, spec: ServerSpec) -> LanguageServer | None:
        lock = self._locks.setdefault(spec.name, asyncio.Lock())
        async with lock:
            server = self.running.get(spec.name)
            if server is not None and server.alive:
                return server
            if server is not None:
                self.running.pop(spec.name)
                with contextlib.suppress(Exception):
                    await server.close()
                self.problems[spec.name] = "it exited; started again"
            return await self._start(spec)

    async def _start(self, spec: ServerSpec) -> LanguageServer | None:
        allowed_out = self.outside.get(spec.name, False)  # the user said it may run outside
        boxed = self.box is not None and self.box.active and not allowed_out
        if not boxed and not self.trusted and not allowed_out:
            self.problems[spec.name] = "waits for trust: it would run project code unsandboxed"
            return None
        if self.starts.get(spec.name, 0) >= MAX_STARTS:
            return None  # its problem says why it stopped
        self.starts[spec.name] = self.starts.get(spec.name, 0) + 1
        program = which(spec.command[0])
        if program is None:
            self.problems[spec.name] = f"{spec.command[0]} is not installed"
            return None
        argv = [program, *spec.command[1:]]
        if boxed and self.box is not None:
            argv = self.box.wrap(argv, self.root)
        env = {**process_env(), **spec.env}
        log = project_state(self.root) / f"lsp-{spec.name}.log"
        try:
            server = await LanguageServer.start(spec, self.root, argv, env, log)
        except (OSError, LspError) as e:
            why = f"did not start: {e}{await asyncio.to_thread(_last_words, log)}"
            self.problems[spec.name] = f"{why} (log: {log})"
            if boxed and await self._leave_box(spec, why):
                return await self._start(spec)
            return None
        self.running[spec.name] = server
        self.problems.pop(spec.name, None)
        return server

    async def diagnostics(self, path: Path) -> list[dict[str, Any]] | None:
        """Every server's diagnostics of `path` as it is on disk, each with its `source`;
        None when no server answered (none runs for it, or all failed)."""
        if not self.wanted(path):
            return None
        doc, starts = path, None
        if path.suffix == SUFFIX:  # its code cells as one Python document beside it
            joined = await asyncio.to_thread(code_of, path)
            if joined is None:
                return None
            (text, starts), doc = joined, path.with_name(path.name + ".py")
        else:
            try:
                text = await asyncio.to_thread(path.read_text, encoding="utf-8", errors="replace")
            except OSError:
                return None  # not there (yet): no baseline
        found: list[dict[str, Any]] | None = None
        for server in await self.servers(doc):
            try:
                items = await server.diagnostics(doc, text, DIAGNOSTICS_TIMEOUT)
            except LspError as e:
                self.problems[server.spec.name] = f"diagnostics failed: {e}"
                continue
            items = [placed(d, starts) for d in items] if starts is not None else items
            found = (found or []) + [{"source": server.spec.name, **d} for d in items]
        return found

    async def ask(self, method: str, path: Path, line: int, col: int) -> tuple[str, Any] | None:
        """A position request to the first server for `path` that answers it: (its name, the
        answer); None when none could."""
        for server in await self.servers(path):
            if not server.spec.navigates:
                continue
            try:
                return server.spec.name, await server.at(method, path, line, col, REQUEST_TIMEOUT)
            except (LspError, OSError) as e:
                self.problems[server.spec.name] = f"{method} failed: {e}"
        return None

    async def _leave_box(self, spec: ServerSpec, why: str) -> bool:
        """Ask once whether a server that failed in the sandbox may run outside it (never
        without someone to ask: a one-shot or CI run keeps it down)."""
        if self.asker is None or spec.name in self.outside:
            return False
        self.outside[spec.name] = False
        reason = (
            f"the language server {spec.name} {why} — inside the sandbox (no network, writes "
            f"only in the project). It {spec.runs}. Start it outside the sandbox, this session?"
        )
        ask = AskRequest("language server", {}, reason, " ".join(spec.command), choices=("y", "n"),
                         for_model=False, what="command")  # fmt: skip
        self.outside[spec.name] = (await self.asker(ask)).choice == "y"
        return self.outside[spec.name]

    def status(self) -> list[dict[str, Any]]:
        """Each configured server: running, installed or not, and why not (/lsp)."""
        out = []
        for spec in self.specs:
            server = self.running.get(spec.name)
            state = "running" if server is not None and server.alive else ""
            state = state or ("installed" if which(spec.command[0]) else "not installed")
            out.append(
                {"name": spec.name, "state": state, "files": " ".join(spec.extensions),
                 "problem": self.problems.get(spec.name, ""), "runs": spec.runs}
            )  # fmt: skip
        return out

    async def aclose(self) -> None:
        servers, self.running = list(self.running.values()), {}
        await asyncio.gather(*(s.close() for s in servers), return_exceptions=True)


def _last_words(log: Path) -> str:
    """The last line a server printed on stderr, for the reason it did not start."""
    try:
        with open(log, "rb") as f:
            f.seek(max(f.seek(0, 2) - 400, 0))
            lines = [ln.strip() for ln in f.read().decode("utf-8", "replace").splitlines()]
    except OSError:
        return ""
    said = next((ln for ln in reversed(lines) if ln), "")
    return f": {said[:200]}" if said else ""
