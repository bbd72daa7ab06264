"""MCP servers: their declarations, the client connections on a private event loop, the
session's manager, what servers offer (catalog), tool results, MCP tools in the shared registry,
resources (the two resource tools, `@server:uri` mentions) and prompts (arguments, turn text).

May import: tools, permissions, base, git, config (and context, hooks, actions: same layer).
"""
