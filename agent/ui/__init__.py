"""The front ends at the edge: the prompt_toolkit REPL and the line REPL, the permission prompt,
keys and toolbar, completion, type-ahead, the terminal / TUI / JSON renderers, the one-shot
driver, exit codes.

May import: commands, app and everything below them.
"""
