"""Slash commands: the registry (`Command`, `Ctx`), the built-ins, each feature's commands
and user commands from `.agent/commands/*.md`. Commands may run turns through the loop.

May import: app and everything below it.
"""
