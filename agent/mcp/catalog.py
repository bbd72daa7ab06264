"""What a server offers — tools, resources, resource templates, prompts — as plain records, and
reading those lists from a connected session (paginated, only what the server declares).

The records are frozen plain data, safe to read from any thread; the listing functions run on
the MCP loop and take the SDK's session by attribute, so this module imports nothing of `mcp`.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

MAX_PAGES = 50  # pages read per listing
KINDS = ("tools", "resources", "prompts")  # what a `*/list_changed` notification relists
_BAD = re.compile(r"[^A-Za-z0-9_-]")


def sanitize(text: str) -> str:
    """A name part of `mcp__server__tool` (tools, rules, prompt commands): `[A-Za-z0-9_-]`."""
    return _BAD.sub("_", text) or "_"


@dataclass(frozen=True)
class ToolInfo:
    """One tool as the server listed it."""

    name: str
    description: str
    schema: dict[str, Any]
    read_only: bool


@dataclass(frozen=True)
class ResourceInfo:
    """A resource (`uri`) or a resource template (`uri` holds the RFC 6570 template)."""

    uri: str
    name: str
    description: str = ""
    mime: str = ""
    template: bool = False

    @property
    def params(self) -> tuple[str, ...]:
        """A template's parameters (`{owner}`, `{+path}`, `{?q}` → owner, path, q)."""
        found = re.findall(r"\{[+#./;?&]?([^}]*)\}", self.uri) if self.template else []
        return tuple(n.strip().rstrip("*") for f in found for n in f.split(",") if n.strip())


@dataclass(frozen=True)
class PromptArg:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class PromptInfo:
    name: str
    description: str
    args: tuple[PromptArg, ...] = ()


@dataclass(frozen=True)
class State:
    """A server's status and what it offers (agent.mcp.client): replaced as a whole on the MCP
    thread, readers take one reference. The offer stays when the server goes down (its tools
    stay listed: the request prefix keeps)."""

    status: str = "pending"  # pending | connected | failed | timeout | closed
    error: str = ""
    tools: tuple[ToolInfo, ...] = ()
    resources: tuple[ResourceInfo, ...] = ()  # resources, then resource templates
    prompts: tuple[PromptInfo, ...] = ()


def declared(init: Any) -> tuple[str, ...]:
    """The kinds a server's `initialize` result declares (tools when it declares nothing)."""
    caps = getattr(init, "capabilities", None)
    if caps is None:
        return ("tools",)
    return tuple(k for k in KINDS if getattr(caps, k, None) is not None)


async def listing(session: Any, kind: str) -> tuple[Any, ...]:
    """One kind's records, every page."""
    if kind == "tools":
        return tuple(tool_info(t) for t in await _pages(session.list_tools, "tools"))
    if kind == "prompts":
        return tuple(prompt_info(p) for p in await _pages(session.list_prompts, "prompts"))
    plain = await _pages(session.list_resources, "resources")
    try:
        templates = await _pages(session.list_resource_templates, "resource_templates")
    except Exception:  # resources without templates: some servers answer "method not found"
        templates = []
    return tuple(resource_info(r) for r in [*plain, *templates])


async def _pages(fetch: Callable[..., Awaitable[Any]], field: str) -> list[Any]:
    from mcp.types import PaginatedRequestParams

    out: list[Any] = []
    cursor = None
    for _ in range(MAX_PAGES):
        page = await fetch(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        out += getattr(page, field, None) or []
        cursor = page.next_cursor
        if not cursor:
            break
    return out


def tool_info(tool: Any) -> ToolInfo:
    ann = getattr(tool, "annotations", None)
    read_only = bool(ann and ann.read_only_hint is True and ann.destructive_hint is not True)
    schema = untitled(dict(getattr(tool, "input_schema", None) or {}))
    schema.setdefault("type", "object")
    if schema["type"] == "object":
        schema.setdefault("properties", {})
    description = tool.description or getattr(tool, "title", None) or tool.name
    return ToolInfo(tool.name, description, schema, read_only)


def untitled(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` without the titles that only restate a name (what pydantic adds: `"title":
    "Target"` on `target`, `"title": "toolArguments"` on the whole): tokens in every request
    that tell the model nothing. A title that says more is kept."""
    out = {k: v for k, v in schema.items() if k != "title" or not _restates(v, "")}
    props = out.get("properties")
    if isinstance(props, dict):
        out["properties"] = {
            name: _untitled_property(name, p) if isinstance(p, dict) else p
            for name, p in props.items()
        }
    return out


def _untitled_property(name: str, prop: dict[str, Any]) -> dict[str, Any]:
    return untitled({k: v for k, v in prop.items() if k != "title" or not _restates(v, name)})


def _restates(title: Any, name: str) -> bool:
    """A property's title that is its name spelt otherwise, or an object's generated one."""
    if not isinstance(title, str):
        return False
    said = re.sub(r"[\s_-]", "", title).lower()
    if name:
        return said == re.sub(r"[\s_-]", "", name).lower()
    return said.endswith("arguments") or said.endswith("args")


def resource_info(r: Any) -> ResourceInfo:
    template = getattr(r, "uri_template", None)
    return ResourceInfo(
        uri=str(template if template is not None else r.uri),
        name=str(getattr(r, "title", None) or r.name or ""),
        description=str(getattr(r, "description", None) or ""),
        mime=str(getattr(r, "mime_type", None) or ""),
        template=template is not None,
    )


def prompt_info(p: Any) -> PromptInfo:
    args = tuple(
        PromptArg(a.name, str(a.description or ""), bool(a.required))
        for a in getattr(p, "arguments", None) or []
    )
    return PromptInfo(p.name, str(p.description or getattr(p, "title", None) or ""), args)
