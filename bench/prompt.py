"""System prompt and tool schemas: the fixed prefix every request carries (budget 3 000 tokens)."""

from __future__ import annotations

import json

from bench.common import Table

BUDGET = 3000  # estimated tokens of system prompt + tools


def prompt_bench(table: Table) -> None:
    """Chars and estimated tokens of the base system prompt, the tool list and both together."""
    from agent.base.tokens import estimate, estimate_tools
    from agent.context.memory import base_prompt
    from agent.tools.builtin import builtin_tools

    system = base_prompt()
    schemas = _session_tools() or [t.schema() for t in builtin_tools()]
    tools_chars = len(json.dumps(schemas, ensure_ascii=False))
    s_tok, t_tok = estimate(system), estimate_tools(schemas)
    table.add("system prompt", f"{len(system):,} chars · ~{s_tok:,} tokens", "", "", None)
    table.add(
        f"tool schemas ({len(schemas)} tools)",
        f"{tools_chars:,} chars · ~{t_tok:,} tokens",
        "",
        "",
        None,
    )
    total = s_tok + t_tok
    table.add(
        "system prompt + tools",
        f"~{total:,} tokens",
        f"chars/4 {(len(system) + tools_chars) // 4:,}",
        f"{BUDGET:,} tokens",
        total <= BUDGET,
    )


def _session_tools() -> list[dict]:
    """The tool list a real session sends (built-ins plus task/task_result), in its order."""
    import os
    import tempfile
    from pathlib import Path

    from agent.app import build
    from agent.base.events import Recorder
    from agent.config.load import Flags, load_config

    with tempfile.TemporaryDirectory() as tmp:
        old = os.environ.get("HOME")
        os.environ["HOME"] = tmp
        try:
            env = {
                "AGENT_BASE_URL": "http://127.0.0.1:9/v1",
                "AGENT_API_KEY": "x",
                "AGENT_MODEL": "m",
            }
            run = build(load_config(Flags(no_mcp=True), env, Path(tmp)), Recorder())
            schemas = [t.schema() for t in run.agent.tools.values()]
            run.store.close()
        finally:
            if old is not None:
                os.environ["HOME"] = old
    return schemas
