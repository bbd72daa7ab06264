"""Finding tools the requests do not carry: `tool_search` lists the deferred tools (MCP tools
past a size, agent.mcp.defer) and loads the best matches for a query (agent.base.shelf). It
joins the registry with the MCP servers (agent.mcp.tools.start), not with the built-ins, and is
offered only while some tool is deferred.

May import: tools.shared, base; never another tool family.
"""
