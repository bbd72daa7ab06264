"""The session's tool registry: the built-in tools, the skill tool, the subagent tools and the
project's run_action, in a fixed order (stable for prompt caching); a tool a neverAllow rule
names whole is not offered, nor the tool that only reads its output; with --tools, only what it
names is (called by agent.app)."""

from __future__ import annotations

import fnmatch

from agent.actions.tool import ActionRunner, project_actions
from agent.base.events import Notice, Sink
from agent.base.record import Tool
from agent.config.load import Config
from agent.config.providers import prefers_patches
from agent.permissions.rules import Vocabulary
from agent.skills.catalog import Catalog
from agent.skills.tool import skill_tool
from agent.subagents.defs import AgentDef, resolve_tools
from agent.tools.builtin import builtin_tools, registry
from agent.workflows.setup import subagent_tools


def session_tools(
    cfg: Config, session_id: str, out: Sink, skills: Catalog
) -> tuple[dict[str, Tool], ActionRunner | None, tuple[dict[str, AgentDef], list[str]]]:
    """The session's registry (built-ins, skill, subagent tools, run_action; a tool a neverAllow
    rule names whole is not offered), the project's action runner, the agent definitions."""
    patch = cfg.options.apply_patch
    finder = cfg.options.tool_search != "off"  # tool_search: the rare tools wait behind it
    tools = registry(builtin_tools(prefers_patches(cfg.model) if patch is None else patch, finder))
    if skills.skills:
        tools["skill"] = skill_tool(skills)
    task_tools, agent_defs, def_warnings = subagent_tools(cfg)
    tools.update(task_tools)
    actions = project_actions(cfg, session_id, out)
    if actions is not None and actions.exposed:
        action_tool = actions.tool()
        tools[action_tool.name] = action_tool  # last: a fixed position keeps the prefix stable
    if cfg.claude.tools is not None:  # --tools: the tools offered
        tools = offered(tools, cfg.claude.tools, out)
    vocab = Vocabulary.of(tools.values())
    disabled = {vocab.tool(r) for r in cfg.permissions.get("neverAllow", []) if "(" not in r}
    disabled |= {n for n, t in tools.items() if t.serves and t.serves in disabled}  # bash_output
    tools = {n: t for n, t in tools.items() if n not in disabled}
    return tools, actions, (agent_defs, def_warnings)


def offered(tools: dict[str, Tool], names: tuple[str, ...], out: Sink) -> dict[str, Tool]:
    """The tools --tools names (ours, Claude Code's `Read`, `Bash`…, or patterns), each with the
    tool that only reads its output (bash_output with bash); a name that is no tool is said."""
    wanted, unknown = resolve_tools(names, {n: t.aliases for n, t in tools.items()})
    if unknown:
        out.emit(Notice(f"--tools: no tool named {', '.join(unknown)}"))

    def kept(name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, w) for w in wanted)

    return {n: t for n, t in tools.items() if kept(n) or (t.serves and kept(t.serves))}
