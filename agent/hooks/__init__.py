"""Hooks (SPEC §6): user commands run at events with a JSON payload; the dispatch middleware
that fires PreToolUse/PostToolUse, and running one hook command.

May import: tools, permissions, base, git, config (and context, mcp, actions: same layer).
"""
