"""The built-in tools in the fixed order the model sees them, and the flat registry they join
(MCP, action, skill and subagent tools are added to the same dict)."""

from __future__ import annotations

from agent.base.record import Tool
from agent.tools.code import tools as code
from agent.tools.discover import search as discover
from agent.tools.files import read as files
from agent.tools.patch.tool import APPLY_PATCH
from agent.tools.search import grep as search
from agent.tools.shell import bash as shell
from agent.tools.tasks import plan, todo
from agent.tools.web import tools as web


def builtin_tools(apply_patch: bool = False, finder: bool = False) -> tuple[Tool, ...]:
    """The built-in tools, in the fixed order the model sees them (stable for prompt caching);
    `apply_patch` adds the patch tool after the file tools (for models trained on it, or when
    the `tools.applyPatch` setting asks); `finder` (tool search not off) adds tool_search last,
    offered while some tool waits behind it (agent.base.shelf)."""
    patch = (APPLY_PATCH,) if apply_patch else ()
    return (
        *files.TOOLS, *patch, *search.TOOLS, *code.TOOLS, *shell.TOOLS, *web.TOOLS, *todo.TOOLS,
        *plan.TOOLS, *(discover.TOOLS if finder else ()),
    )  # fmt: skip


def registry(tools: tuple[Tool, ...]) -> dict[str, Tool]:
    """A flat name → tool dict; MCP and action tools are added to the same dict."""
    return {t.name: t for t in tools}
