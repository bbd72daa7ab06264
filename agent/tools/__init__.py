"""The built-in tools (one module per family) and the flat registry they join.

Adding a tool = writing one `Tool` record (agent.base.record) in a module here and listing it in
`builtin_tools()`; the record declares what the layers around it need (its kind, what its calls
act on, other names, an edit preview). Tools that belong to a feature (project actions,
subagents) live in that feature's package and join the same registry when the app assembles a
session.

May import: permissions (paths, secrets), base, git, config.
"""
