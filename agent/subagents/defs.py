"""Subagent definitions: `.agent/agents/*.md` (project) and `~/.agent/agents/*.md` (user), and
Claude Code's `.claude/agents/*.md` and `~/.claude/agents/*.md` beside them.

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
a user one of the same name; in one place, `.agent/agents` wins over `.claude/agents` (said).
Definitions given as JSON (`--agents`, an SDK's `agents`) are read by the same rules. Claude's
model aliases (`sonnet`, `opus`, `haiku`) mean the session's model, as `inherit` does: they name
no model of an OpenAI-compatible endpoint.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.base import frontmatter
from agent.base.frontmatter import names_of, text_of
from agent.config.plugins import Plugin
from agent.config.trust import Trust, admits, at_home, not_applied

_NAME = re.compile(r"[A-Za-z0-9][\w.-]{0,63}")
CLAUDE_MODELS = ("sonnet", "opus", "haiku")  # Claude's aliases: the session's model here
MAX_BYTES = 200_000  # a definition larger than this is skipped


@dataclass(frozen=True)
class AgentDef:
    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None  # None = the default subset
    model: str | None = None
    max_steps: int | None = None  # maxTurns
    source: str = ""
    notes: tuple[str, ...] = ()  # problems with the definition (unknown tools), for warnings


# The tools a definition may name: our name -> the other names on its record (Claude Code's).
Known = Mapping[str, tuple[str, ...]]


def parse_def(path: Path, known: Known) -> AgentDef | str:
    """One definition file, or the reason it was skipped."""
    try:
        text = frontmatter.read_file(path, MAX_BYTES)
    except OSError as e:
        return f"{path}: not loaded ({e})"
    try:
        fields, body = frontmatter.split(text)
    except frontmatter.FrontMatterError as e:
        return f"{path}: front matter {e}"
    name = text_of(fields.get("name")) or path.stem
    if not _NAME.fullmatch(name):
        return f"{path}: invalid agent name {name!r}"
    if not body:
        return f"{path}: no system prompt (the text after the front matter)"
    return from_fields(name, fields, body, known, str(path))


def from_json(name: str, raw: Any, known: Known, source: str) -> AgentDef | str:
    """A definition given as JSON (`--agents`, an SDK's `agents`): {description, prompt, tools,
    model, maxTurns}; or why it cannot be used."""
    if not _NAME.fullmatch(name):
        return f"{source}: invalid agent name {name!r}"
    if not isinstance(raw, dict) or not isinstance(raw.get("prompt"), str) or not raw["prompt"]:
        return f'{source}: agent {name!r} needs a "prompt" (its system prompt)'
    fields = {
        k: str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
        for k, v in raw.items()
        if isinstance(v, (str, int, float, list)) and not isinstance(v, bool)
    }  # JSON numbers as the text a file's front matter gives (maxTurns: 5)
    return from_fields(name, fields, raw["prompt"], known, source)


def from_fields(
    name: str, fields: dict[str, Any], body: str, known: Known, source: str
) -> AgentDef:
    """A definition from its fields (a file's front matter, or JSON) and its system prompt."""
    turns = text_of(fields.get("maxTurns") or fields.get("max_turns"))
    listed = names_of(fields.get("tools"))
    tools, unknown = resolve_tools(listed, known) if listed is not None else (None, [])
    notes: tuple[str, ...] = ()
    if listed and not tools:
        notes = (
            f"{source}: none of its tools ({', '.join(unknown)}) is a known tool, so agent "
            f"{name!r} runs with no tools at all; use names like {', '.join(list(known)[:6])}",
        )
    elif unknown:
        notes = (f"{source}: unknown tool(s) ignored: {', '.join(unknown)}",)
    denied = names_of(fields.get("disallowedTools"))
    if denied:  # Claude Code's: out of its tools (out of every tool when it lists none)
        gone = resolve_tools(denied, known)[0]
        kept = tools if tools is not None else tuple(known)
        tools = tuple(n for n in kept if not any(fnmatch.fnmatchcase(n, g) for g in gone))
    model = text_of(fields.get("model"))
    return AgentDef(
        name=name,
        description=text_of(fields.get("description")) or f"the {name} agent",
        prompt=body,
        tools=tools,
        notes=notes,
        model=None if model.lower() in ("", "inherit", *CLAUDE_MODELS) else model,
        max_steps=int(turns) if turns.isdigit() and int(turns) > 0 else None,
        source=source,
    )


def load_defs(
    root: Path,
    known: Known,
    home: Path | None = None,
    trusted: bool | Trust = True,
    plugins: tuple[Plugin, ...] = (),
) -> tuple[dict[str, AgentDef], list[str]]:
    """Definitions by name in a fixed (sorted) order, and warnings for skipped files;
    `known`: the tools of the registry a definition may list. A project's definitions (system
    prompts, models, tools: the repository's code) load only once it is `trusted`; the
    plugins' (agent.config.plugins) below every file's, a name they share said."""
    home = home or Path.home()
    found: dict[str, AgentDef] = {}
    warnings: list[str] = []
    scopes = [(home, False)] + ([] if at_home(root, home) else [(root, True)])
    for scope, project in scopes:  # the project's win over the user's
        here: dict[str, AgentDef] = {}
        waiting = 0
        for d in (scope / ".claude" / "agents", scope / ".agent" / "agents"):  # .agent wins
            for path in sorted(d.glob("*.md")) if d.is_dir() else ():
                if project and not admits(trusted, path):
                    waiting += 1  # not trusted, or changed since the user trusted it
                    continue
                got = parse_def(path, known)
                if isinstance(got, str):
                    warnings.append(got)
                    continue
                if got.name in here:
                    warnings.append(f"{path}: agent {got.name!r} replaces {here[got.name].source}")
                here[got.name] = got
                warnings += got.notes
        found.update(here)
        if waiting:
            warnings.append(
                f"{waiting} project agent definition(s) not loaded: {not_applied(trusted)}"
            )
    theirs = _plugin_defs(plugins, known, warnings)
    warnings += [
        f"{theirs[n].source}: agent {n!r} is hidden by {found[n].source}"
        for n in theirs
        if n in found
    ]
    return dict(sorted({**theirs, **found}.items())), warnings


def _plugin_defs(
    plugins: tuple[Plugin, ...], known: Known, warnings: list[str]
) -> dict[str, AgentDef]:
    """The plugins' definitions by name, the first plugin's kept (a clash said)."""
    out: dict[str, AgentDef] = {}
    for plugin in plugins:
        for d in plugin.agents:
            for path in sorted(d.glob("*.md")) if d.is_dir() else [d]:
                got = parse_def(path, known)
                if isinstance(got, str):
                    warnings.append(got)
                elif got.name in out:
                    warnings.append(
                        f"{path}: agent {got.name!r} is hidden by {out[got.name].source}"
                    )
                else:
                    out[got.name] = got
                    warnings += got.notes
    return out


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
