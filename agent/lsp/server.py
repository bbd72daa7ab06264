"""One running language server: started, initialized, the open documents kept in step, and
the requests the agent makes of it — diagnostics (pulled when the server offers it, else the
pushed ones of the document's current version), definition, references, hover.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any, NamedTuple

from agent.lsp.rpc import Connection, LspError
from agent.lsp.specs import ServerSpec

START_TIMEOUT = 60.0  # seconds for `initialize` (a large project's first index)
CAPABILITIES = {
    "textDocument": {
        "synchronization": {"didSave": False},
        "publishDiagnostics": {"versionSupport": True, "relatedInformation": False},
        "diagnostic": {"dynamicRegistration": False},
        "definition": {"linkSupport": False},
        "references": {},
        "hover": {"contentFormat": ["plaintext", "markdown"]},
    },
    "workspace": {"configuration": True, "workspaceFolders": True},
    "window": {"workDoneProgress": False},
}


class Published(NamedTuple):
    """The diagnostics a server last pushed for one document."""

    version: int | None
    items: list[dict[str, Any]]


class LanguageServer:
    """A started server for one workspace (agent.lsp.session starts and restarts them)."""

    def __init__(self, spec: ServerSpec, root: Path, conn: Connection) -> None:
        self.spec, self.root, self.conn = spec, root, conn
        self.pulls = False  # answers textDocument/diagnostic
        self.versions: dict[str, int] = {}  # open documents by URI
        self.texts: dict[str, str] = {}
        self.pushed: dict[str, Published] = {}
        self.news = asyncio.Event()

    @classmethod
    async def start(
        cls, spec: ServerSpec, root: Path, argv: list[str], env: dict[str, str], log: Path
    ) -> LanguageServer:
        conn = await Connection.spawn(argv, root, env, log)
        server = cls(spec, root, conn)
        conn.notes["textDocument/publishDiagnostics"] = server._published
        conn.answers["workspace/configuration"] = lambda p: (
            [spec.settings] * len((p or {}).get("items", []))
        )
        try:
            init = await conn.request("initialize", server._init_params(), START_TIMEOUT)
            await conn.notify("initialized", {})
        except LspError:
            await conn.close(1.0)
            raise
        caps = (init or {}).get("capabilities", {})
        server.pulls = bool(caps.get("diagnosticProvider"))
        return server

    def _init_params(self) -> dict[str, Any]:
        uri = self.root.as_uri()
        return {
            "processId": None,  # it runs in a sandbox: our pid means nothing there
            "rootUri": uri,
            "rootPath": str(self.root),
            "workspaceFolders": [{"uri": uri, "name": self.root.name}],
            "capabilities": CAPABILITIES,
            "initializationOptions": self.spec.init_options,
            "clientInfo": {"name": "agent"},
        }

    @property
    def alive(self) -> bool:
        return self.conn.alive

    def _published(self, params: Any) -> None:
        if isinstance(params, dict) and isinstance(params.get("uri"), str):
            items = [d for d in params.get("diagnostics") or [] if isinstance(d, dict)]
            self.pushed[params["uri"]] = Published(params.get("version"), items)
            self.news.set()

    async def sync(self, path: Path, text: str) -> tuple[str, int]:
        """The document as it is now: opened, or changed (whole text) when it differs."""
        uri = path.as_uri()
        if uri not in self.versions:
            self.versions[uri], self.texts[uri] = 1, text
            item = {"uri": uri, "languageId": self.spec.language_of(path), "version": 1}
            await self.conn.notify("textDocument/didOpen", {"textDocument": {**item, "text": text}})
        elif self.texts[uri] != text:
            self.versions[uri] += 1
            self.texts[uri] = text
            doc = {"uri": uri, "version": self.versions[uri]}
            change = {"textDocument": doc, "contentChanges": [{"text": text}]}
            await self.conn.notify("textDocument/didChange", change)
        return uri, self.versions[uri]

    async def diagnostics(self, path: Path, text: str, timeout: float) -> list[dict[str, Any]]:
        """The diagnostics of `path` with this text; LspError when none came in time."""
        uri = path.as_uri()
        before = self.pushed.get(uri)
        unchanged = self.texts.get(uri) == text
        uri, version = await self.sync(path, text)
        if unchanged and before is not None and not self.pulls:
            return before.items  # nothing was sent: nothing new will come
        if self.pulls:
            report = await self.conn.request(
                "textDocument/diagnostic", {"textDocument": {"uri": uri}}, timeout
            )
            items = (report or {}).get("items") or []
            return [d for d in items if isinstance(d, dict)]
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            now = self.pushed.get(uri)
            if now is not None and now is not before and (now.version or version) >= version:
                return now.items
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0 or not self.alive:
                raise LspError(f"no diagnostics within {timeout:g} s")
            self.news.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.news.wait(), left)

    async def at(self, method: str, path: Path, line: int, col: int, timeout: float) -> Any:
        """A position request (definition, references, hover) on the file as it is on disk."""
        text = await asyncio.to_thread(path.read_text, encoding="utf-8", errors="replace")
        uri, _ = await self.sync(path, text)
        params: dict[str, Any] = {
            "textDocument": {"uri": uri},
            "position": {"line": line, "character": col},
        }
        if method == "textDocument/references":
            params["context"] = {"includeDeclaration": False}
        return await self.conn.request(method, params, timeout)

    async def close(self) -> None:
        await self.conn.close()
