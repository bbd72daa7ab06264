"""Sessions (SPEC §8): the append-only JSONL store, listing and pruning, the recorder sink,
choosing one to resume, salvaging damaged files, checkpoints and file snapshots (the shapes
of their records: records), restoring them inside the project only (restoring), rewind,
export.

May import: the layers below core (context, hooks, mcp, actions, tools, permissions, base, git,
config).
"""
