"""Finding tools the requests do not carry: `tool_search` lists the deferred tools (the rarely
used built-ins, and MCP tools past a size: agent.mcp.defer) and loads the best matches for a
query (agent.base.shelf). The last of the built-ins while `tools.search` is not off, offered
only while some tool is deferred.

May import: tools.shared, base; never another tool family.
"""
