"""System prompt and tool schemas: the fixed prefix every request carries (budget 3 000 tokens)."""

from __future__ import annotations

import json

from bench.common import Table

BUDGET = 3000  # estimated tokens of system prompt + tools


def prompt_bench(table: Table) -> None:
    """Chars and estimated tokens of the base system prompt, the tool list and both together."""
    from agent.memory import base_prompt
    from agent.tokens import estimate, estimate_tools
    from agent.tools import builtin_tools

    system = base_prompt()
    schemas = [t.schema() for t in builtin_tools()]
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
