"""Subagent definitions: `.agent/agents/*.md` (project) and `~/.agent/agents/*.md` (user).

A definition is Markdown with front matter:

    ---
    name: reviewer
    description: Reviews a change for bugs; give it the files to look at.
    tools: read_file, grep, glob
    model: deepseek-reasoner
    ---
    You review code. ... (the body is the subagent's system prompt)

`tools` may also be a `[a, b]` list or `- item` lines; without it the subagent gets the default
tool subset. Claude Code's names (`Read, Grep, Glob`, `Bash`, `Edit`, `WebFetch`, `Task`…) are
mapped to ours; names still unknown are dropped with a warning. A project definition wins over
a user one of the same name.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

_NAME = re.compile(r"[A-Za-z0-9][\w.-]{0,63}")


@dataclass(frozen=True)
class AgentDef:
    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None  # None = the default subset
    model: str | None = None
    max_turns: int | None = None
    source: str = ""
    notes: tuple[str, ...] = ()  # problems with the definition (unknown tools), for warnings


def split_front_matter(text: str) -> tuple[dict[str, str | list[str]], str]:
    """(fields, body) of a `---` front-matter document; ({}, text) without front matter."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() in ("---", "..."))
    except StopIteration:
        return {}, text
    fields: dict[str, str | list[str]] = {}
    key = ""
    for line in lines[1:end]:
        item = re.match(r"\s*-\s+(.*)", line)
        if item and key:  # a YAML block list under the last key
            prev = fields.get(key)
            fields[key] = [*(prev if isinstance(prev, list) else []), _unquote(item.group(1))]
            continue
        m = re.match(r"([A-Za-z_][\w-]*)\s*:\s*(.*)", line)
        if m:
            key, value = m.group(1), m.group(2).strip()
            fields[key] = _unquote(value) if value else []
    return fields, "\n".join(lines[end + 1 :]).strip()


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _names(value: str | list[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    items = value if isinstance(value, list) else value.strip("[]").split(",")
    out = tuple(_unquote(v) for v in items if _unquote(v))
    return out or None


# The tools a definition may name: our name -> the other names on its record (Claude Code's).
Known = Mapping[str, tuple[str, ...]]


def parse_def(path: Path, known: Known) -> AgentDef | str:
    """One definition file, or the reason it was skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return f"{path}: unreadable ({e})"
    fields, body = split_front_matter(text)
    name = str(fields.get("name") or path.stem)
    if not _NAME.fullmatch(name):
        return f"{path}: invalid agent name {name!r}"
    if not body:
        return f"{path}: no system prompt (the text after the front matter)"
    turns = str(fields.get("maxTurns") or fields.get("max_turns") or "")
    listed = _names(fields.get("tools"))
    tools, unknown = resolve_tools(listed, known) if listed is not None else (None, [])
    notes: tuple[str, ...] = ()
    if listed and not tools:
        notes = (
            f"{path}: none of its tools ({', '.join(unknown)}) is a known tool, so agent "
            f"{name!r} runs with no tools at all; use names like {', '.join(list(known)[:6])}",
        )
    elif unknown:
        notes = (f"{path}: unknown tool(s) ignored: {', '.join(unknown)}",)
    return AgentDef(
        name=name,
        description=str(fields.get("description") or "").strip() or f"the {name} agent",
        prompt=body,
        tools=tools,
        notes=notes,
        model=None if str(fields.get("model") or "inherit") == "inherit" else str(fields["model"]),
        max_turns=int(turns) if turns.isdigit() and int(turns) > 0 else None,
        source=str(path),
    )


def load_defs(
    root: Path, known: Known, home: Path | None = None
) -> tuple[dict[str, AgentDef], list[str]]:
    """Definitions by name in a fixed (sorted) order, and warnings for skipped files;
    `known`: the tools of the registry a definition may list."""
    home = home or Path.home()
    found: dict[str, AgentDef] = {}
    warnings: list[str] = []
    for d in (home / ".agent" / "agents", root / ".agent" / "agents"):  # project wins
        if not d.is_dir():
            continue
        for path in sorted(d.glob("*.md")):
            got = parse_def(path, known)
            if isinstance(got, str):
                warnings.append(got)
            else:
                found[got.name] = got
                warnings += got.notes
    return dict(sorted(found.items())), warnings


def resolve_tools(names: tuple[str, ...], known: Known) -> tuple[tuple[str, ...], list[str]]:
    """(our tool names, the names that are no tool) for a definition's `tools`: our names and
    patterns as they are, the other names on the tools' records (Claude Code's `Read`, `Bash`,
    `WebFetch`…) and CamelCase spellings (`BashOutput`) mapped."""
    other = {alias.lower(): name for name, aliases in known.items() for alias in aliases}
    out: list[str] = []
    unknown: list[str] = []
    for name in names:
        if name.startswith("mcp__") or any(fnmatch.fnmatchcase(k, name) for k in known):
            out.append(name)
            continue
        low = name.lower()
        snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()  # BashOutput: bash_output
        ours = next((n for n in (other.get(low), low, snake) if n in known), "")
        if ours:
            out.append(ours)
        else:
            unknown.append(name)
    return tuple(dict.fromkeys(out)), unknown
