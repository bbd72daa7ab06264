"""`agent mcp …`: the agent's own tools served to other MCP clients over stdio (`serve`), and the
MCP server entries of the settings files added, shown and removed from the command line
(`add`, `add-json`, `get`, `list`, `remove`, as `claude mcp` does).

A front end like `ui/` and `editor/`, and a sibling of theirs in the layers contract: serving
needs the start-up configuration (agent.ui.startup), the permission gate, hooks, audit log and
sandbox (permissions, hooks, sandbox) composed with the dispatcher (core) — pieces from several
layers that only a front end may gather; and nothing but `cli` imports it. It builds no model
client and no session (agent.app is not imported: ~290 ms of openai). The `mcp` SDK (~0.6 s) is
imported only by `serve`.

May import: ui, editor (front ends beside it), app, and everything below.
"""
