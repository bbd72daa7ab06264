"""What the model sees besides the conversation: memory files and their `@imports`, the system
prompt and the first message's environment block and repository map, `@path` / `!command`
mentions, and compaction of the history (a transform of the messages, never of the Agent).

May import: tools, code, permissions, base, git, config (and hooks, mcp, actions: same layer).
"""
