"""The tools list the model sees, pinned: every tool record's JSON Schema, key order included
(the provider's prompt cache keys on the request prefix), against tool_schemas.json, captured
from the hand-written schemas before the tools declared their arguments (agent.base.args).
A deliberate change to a tool's arguments updates the file (`python tests/base/
test_tool_schemas.py > tests/base/tool_schemas.json`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

PINNED = Path(__file__).with_name("tool_schemas.json")


def schemas() -> dict[str, Any]:
    """Every tool record the agent builds, as the first request sends it."""
    from agent.actions.tool import ActionArgs
    from agent.mcp import resources
    from agent.skills.tool import skill_tool
    from agent.subagents.tool import task_tools
    from agent.tools.builtin import builtin_tools

    defs: Any = {
        "reviewer": SimpleNamespace(description="Reviews  a change."),
        "explorer": SimpleNamespace(description="Explores."),
    }
    manager: Any = SimpleNamespace(conns={})
    catalog: Any = SimpleNamespace(skills={})
    return {
        "builtin": [t.schema() for t in builtin_tools(apply_patch=True, finder=True)],
        "skill": skill_tool(catalog).schema(),
        "task_plain": [t.schema() for t in task_tools({})],
        "task_agents": [t.schema() for t in task_tools(defs)],
        "run_action": ActionArgs.schema(action_id=["build", "test"]),
        "mcp_resources": [t.schema() for t in resources.tools(manager, lambda n: False)],
    }


def dump(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"


def test_the_tools_list_is_byte_identical() -> None:
    pinned = PINNED.read_text(encoding="utf-8")
    assert dump(schemas()) == pinned  # json.dumps keeps key order: the order is pinned too


if __name__ == "__main__":
    sys.stdout.write(dump(schemas()))
