"""Subagents (SPEC §4 `task`): definitions in `.agent/agents/*.md`, the runner of child
agents, what the parent sees of them, the task tools, and git worktrees.

May import: core and everything below it.
"""
