"""MCP servers: their declarations, the client connections on a private event loop, the
session's manager, tool results, and MCP tools in the shared registry.

May import: tools, permissions, base, git, config (and context, hooks, actions: same layer).
"""
