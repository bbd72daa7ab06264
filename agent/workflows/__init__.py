"""Workflows built on subagents: /simplify and /batch, /loop, and the session wiring of the
todo list and the subagent runner.

May import: subagents, core and everything below them.
"""
