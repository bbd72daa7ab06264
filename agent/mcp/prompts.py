"""MCP prompts as slash commands: `/mcp__server__prompt` arguments (by position or `key=value`,
required ones checked) and a `prompts/get` result as the text of one user turn.

The commands themselves are made in agent.commands.mcp_prompts; this module knows the prompt
records (agent.mcp.catalog) and imports nothing of `mcp`.
"""

from __future__ import annotations

from typing import Any

from agent.mcp.catalog import PromptInfo
from agent.mcp.results import block_text


def usage(p: PromptInfo) -> str:
    """`<required> [optional]`, in the prompt's order."""
    return " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in p.args)


def help_text(p: PromptInfo, server: str) -> str:
    """The command's help: the prompt's description, then its arguments."""
    lines = [p.description or f"The {p.name!r} prompt of the MCP server {server!r}."]
    if p.args:
        lines.append("")
        lines += [
            f"  {a.name}{' (required)' if a.required else ''}: {a.description}".rstrip(": ")
            for a in p.args
        ]
        lines.append("Arguments go by position (the last one takes the rest) or as key=value.")
    return "\n".join(lines)


def arguments(p: PromptInfo, command: str, words: list[str]) -> dict[str, str]:
    """The prompt's arguments from the words after `/command`: `key=value` names one (its
    name, any case), the other words fill the rest in order, the last taking what is left.
    ValueError says what is wrong and how to call it."""
    names = {a.name.lower(): a.name for a in p.args}
    values: dict[str, str] = {}
    loose: list[str] = []
    for w in words:
        key, eq, value = w.partition("=")
        if eq and key.lower() in names and names[key.lower()] not in values:
            values[names[key.lower()]] = value
        else:
            loose.append(w)
    free = [a.name for a in p.args if a.name not in values]
    how = f"usage: /{command} {usage(p)}".rstrip()
    if loose and not free:
        what = "takes no arguments" if not p.args else "has every argument already"
        raise ValueError(f"/{command} {what} (got {' '.join(loose)!r}); {how}")
    for i, name in enumerate(free[: len(loose)]):
        values[name] = loose[i] if i < len(free) - 1 else " ".join(loose[i:])
    missing = [a for a in p.args if a.required and not values.get(a.name)]
    if missing:
        said = ", ".join(f"<{a.name}>" + (f" ({a.description})" if a.description else "")
                         for a in missing)  # fmt: skip
        raise ValueError(f"/{command} needs {said}; {how}")
    return values


def as_turn(result: Any) -> str:
    """A `prompts/get` result as one user message: the messages' text in order, each labelled
    with its role unless all are the user's; images and audio as placeholders."""
    messages = list(getattr(result, "messages", None) or [])
    roles = {str(getattr(m, "role", "user")) for m in messages}
    parts = []
    for m in messages:
        body = block_text(getattr(m, "content", None))
        parts.append(body if roles == {"user"} else f"[{m.role}]\n{body}")
    return "\n\n".join(p for p in parts if p.strip())
