"""Project actions (SPEC §11): `.agent/actions.json` loaded and checked (schema, params, deny
lists, which words are programs) and the run_action tool with its runner; it registers how the
permission layer judges an action call.

May import: tools, permissions, base, git, config (and context, hooks, mcp: same layer).
"""
