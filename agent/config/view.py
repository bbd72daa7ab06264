"""A typed view of the merged settings: what the layers above read, with its defaults, in one
place, instead of `settings.get("key", {})` scattered through them. Values were type-checked
when the files were read (agent.config.settings); JSON that another layer interprets (hook
entries, MCP server declarations) stays JSON here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent.config.frozen import Frozen

REPO_MAP_TOKENS = 1_000
REPO_MAP_WAIT = 0.1  # seconds a message waits for the map; it joins a later one when late
EDIT_DIAGNOSTICS = ("all", "errors", "off")  # `editDiagnostics`: problems an edit introduced
TOOL_SEARCH = ("auto", "on", "off")  # `tools.search`: when MCP tools wait behind tool_search


class Retention(Frozen):
    """`sessions`: how many sessions to keep, and for how long."""

    keep: int = 200
    max_age_days: float = 60.0


class RetryPolicy(Frozen):
    """`retry`: attempts of one request, and the backoff between them (seconds)."""

    attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 30.0


class WebAccess(Frozen):
    """`webFetch`: hosts opened to web_fetch (local docs servers, intranet hosts)."""

    allowed_hosts: frozenset[str] = frozenset()
    allow_private_hosts: bool = False


class WebSearch(Frozen):
    """`webSearch`: the search API web_search uses ("" = ddgs when installed), its URL (a
    SearXNG instance, or another endpoint of the API), and the variable holding its key."""

    provider: str = ""
    url: str = ""
    key_env: str = ""


class ToolResults(Frozen):
    """`toolResults`: what keeps tool results from filling the context. `spill_at`: characters
    above which a result goes to a file in the session folder and the model gets its head and
    tail (0: cut it at the result cap instead); `clear_at`: the fraction of the context window
    past which results older than the last `keep_turns` model turns become one-line stubs (0:
    never); `dedup_reads`: an unchanged re-read is answered with a one-line note."""

    spill_at: int = 12_000
    clear_at: float = 0.4
    keep_turns: int = 4
    dedup_reads: bool = True


class ChecksSettings(Frozen):
    """`checks`: commands run after a turn that changed files. `lint` ({files}: the changed
    files), `test`, run only with `test_on_edit`; failures go back to the model at most
    `rounds` times a turn; each command may take `timeout` seconds."""

    lint: str = ""
    test: str = ""
    test_on_edit: bool = False
    rounds: int = 3
    timeout: float = 600.0


class SandboxSettings(Frozen):
    """`sandbox`: the mode ("" = the platform's default), whether commands inside reach the
    network and may open unix sockets, whether hooks and stdio MCP servers run inside too, and
    paths nothing may read (`denyRead`: commands in the sandbox and the file tools alike)."""

    mode: str = ""
    network: bool = False
    hooks: bool = False
    mcp: bool = False
    unix_sockets: bool = False
    deny_read: tuple[str, ...] = ()


class Settings:
    """The merged settings (user < project < local), read through typed properties."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw

    def _obj(self, key: str) -> Mapping[str, Any]:
        value = self.raw.get(key)
        return value if isinstance(value, Mapping) else {}

    @property
    def api_key_env(self) -> str:
        return str(self.raw.get("apiKeyEnv") or "")

    @property
    def retention(self) -> Retention:
        s, d = self._obj("sessions"), Retention()
        return Retention(int(s.get("keep", d.keep)), float(s.get("maxAgeDays", d.max_age_days)))

    @property
    def retry(self) -> RetryPolicy:
        r, d = self._obj("retry"), RetryPolicy()
        return RetryPolicy(
            int(r.get("attempts", d.attempts)),
            float(r.get("baseDelay", d.base_delay)),
            float(r.get("maxDelay", d.max_delay)),
        )

    @property
    def web(self) -> WebAccess:
        w = self._obj("webFetch")
        hosts = w.get("allowedHosts", [])
        return WebAccess(
            frozenset(str(h).lower() for h in hosts if isinstance(hosts, list)),
            w.get("allowPrivateHosts") is True,
        )

    @property
    def web_search(self) -> WebSearch:
        w = self._obj("webSearch")
        return WebSearch(
            str(w.get("provider") or "").strip().lower(),
            str(w.get("url") or "").strip(),
            str(w.get("keyEnv") or "").strip(),
        )

    @property
    def sandbox(self) -> SandboxSettings:
        b = self._obj("sandbox")
        return SandboxSettings(
            str(b.get("mode") or ""),
            b.get("network") is True,
            b.get("hooks") is True,
            b.get("mcp") is True,
            b.get("unixSockets") is True,
            tuple(str(p) for p in b.get("denyRead", ()) if isinstance(p, str)),
        )

    @property
    def checks(self) -> ChecksSettings:
        c, d = self._obj("checks"), ChecksSettings()
        on_edit = c.get("testOnEdit", c.get("test_on_edit", d.test_on_edit))
        return ChecksSettings(
            str(c.get("lint") or d.lint).strip(),
            str(c.get("test") or d.test).strip(),
            on_edit is True,
            max(int(c.get("maxRounds", d.rounds)), 0),
            float(c.get("timeout", d.timeout)),
        )

    @property
    def images(self) -> bool | None:
        """`tools.images`: the model takes images (None: judged by its name)."""
        value = self._obj("tools").get("images")
        return value if isinstance(value, bool) else None

    @property
    def apply_patch(self) -> bool | None:
        """`tools.applyPatch`: offer apply_patch (None: only to models trained on it)."""
        value = self._obj("tools").get("applyPatch")
        return value if isinstance(value, bool) else None

    @property
    def tool_search(self) -> str:
        """`tools.search`: MCP tools wait behind tool_search — "auto" (past a size), "on", "off"."""
        value = self._obj("tools").get("search")
        return value if value in TOOL_SEARCH else "auto"

    @property
    def lsp(self) -> Any:
        """`lsp`: false (no language servers), or servers to change or add (agent.lsp.specs)."""
        value = self.raw.get("lsp")
        return value if value is False or isinstance(value, Mapping) else {}

    @property
    def edit_diagnostics(self) -> str:
        """`editDiagnostics`: the problems an edit introduced, in its result ("all": errors
        and warnings, "errors", "off")."""
        value = self.raw.get("editDiagnostics")
        return value if value in EDIT_DIAGNOSTICS else "all"

    @property
    def repo_map_tokens(self) -> int:
        """`repoMap.tokens`: the repository map's budget in the first message (0: none)."""
        return int(self._obj("repoMap").get("tokens", REPO_MAP_TOKENS))

    @property
    def repo_map_wait(self) -> float:
        """`repoMap.wait`: seconds a message waits for the map before it goes without it."""
        return float(self._obj("repoMap").get("wait", REPO_MAP_WAIT))

    @property
    def tool_results(self) -> ToolResults:
        """`toolResults` (its keys were type-checked per file), clamped to sane values."""
        t = self._obj("toolResults")
        d = ToolResults()
        clear = float(t.get("clearAt", d.clear_at))
        return ToolResults(
            spill_at=max(int(t.get("spillAt", d.spill_at)), 0),
            clear_at=min(max(clear / 100 if clear > 1 else clear, 0.0), 1.0),
            keep_turns=max(int(t.get("keepTurns", d.keep_turns)), 1),
            dedup_reads=bool(t.get("dedupReads", d.dedup_reads)),
        )

    @property
    def language(self) -> str:
        """`language`: the model's reply language ("" none, "auto" the user's, or a code)."""
        return str(self.raw.get("language") or "").strip()

    @property
    def hooks(self) -> Mapping[str, Any]:
        return self._obj("hooks")

    @property
    def mcp_servers(self) -> Mapping[str, Any]:
        return self._obj("mcpServers")

    @property
    def mcp_timeouts(self) -> tuple[Any, Any]:
        """(connect, tool call) as written: agent.mcp.config checks and defaults them."""
        return self.raw.get("mcpTimeout"), self.raw.get("mcpToolTimeout")

    @property
    def subagents(self) -> Mapping[str, Any]:
        return self._obj("subagents")

    @property
    def expose_tags(self) -> tuple[str, ...] | None:
        """`actions.exposeTags`: only actions with one of these tags are offered to the model."""
        tags = self._obj("actions").get("exposeTags")
        return tuple(str(t) for t in tags) if isinstance(tags, list) else None
