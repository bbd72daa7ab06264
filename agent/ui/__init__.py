"""The front ends at the edge: the prompt_toolkit REPL and the line REPL, the permission prompt,
keys and toolbar, completion, type-ahead, the terminal / TUI / JSON renderers, the one-shot
driver, exit codes, the first-run set-up (setup). Everything they draw that the agent did not
write passes agent.base.visible first (agent.ui.terminal: the console and Markdown).

May import: commands, app and everything below them.
"""
