"""The session's tool registry: the built-in tools, the skill tool, the subagent tools and the
project's run_action, in a fixed order (stable for prompt caching); a tool a neverAllow rule
names whole is not offered, nor the tool that only reads its output (called by agent.app)."""

from __future__ import annotations

from agent.actions.tool import ActionRunner, project_actions
from agent.base.events import Sink
from agent.base.record import Tool
from agent.config.load import Config
from agent.config.providers import prefers_patches
from agent.permissions.rules import Vocabulary
from agent.skills.catalog import Catalog
from agent.skills.tool import skill_tool
from agent.subagents.defs import AgentDef
from agent.tools.builtin import builtin_tools, registry
from agent.workflows.setup import subagent_tools


def session_tools(
    cfg: Config, session_id: str, out: Sink, skills: Catalog
) -> tuple[dict[str, Tool], ActionRunner | None, tuple[dict[str, AgentDef], list[str]]]:
    """The session's registry (built-ins, skill, subagent tools, run_action; a tool a neverAllow
    rule names whole is not offered), the project's action runner, the agent definitions."""
    patch = cfg.options.apply_patch
    tools = registry(builtin_tools(prefers_patches(cfg.model) if patch is None else patch))
    if skills.skills:
        tools["skill"] = skill_tool(skills)
    task_tools, agent_defs, def_warnings = subagent_tools(cfg)
    tools.update(task_tools)
    actions = project_actions(cfg, session_id, out)
    if actions is not None and actions.exposed:
        action_tool = actions.tool()
        tools[action_tool.name] = action_tool  # last: a fixed position keeps the prefix stable
    vocab = Vocabulary.of(tools.values())
    disabled = {vocab.tool(r) for r in cfg.permissions.get("neverAllow", []) if "(" not in r}
    disabled |= {n for n, t in tools.items() if t.serves and t.serves in disabled}  # bash_output
    tools = {n: t for n, t in tools.items() if n not in disabled}
    return tools, actions, (agent_defs, def_warnings)
