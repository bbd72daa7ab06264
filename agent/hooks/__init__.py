"""Hooks (SPEC §6): user commands run at events with a JSON payload; the dispatch middleware
that fires PreToolUse/PostToolUse, running one hook command and what its answer means.

May import: tools, permissions, base, git, config (and context, mcp, actions: same layer).
"""
