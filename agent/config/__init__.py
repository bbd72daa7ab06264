"""Configuration: settings files (read, validate, merge user < project < local), `.env`
files, provider presets, API keys and where the first-run set-up keeps them (keys, keystore),
the command-line Flags (Claude Code's among them, as the Claude Agent SDKs pass them: claude,
claude_json, claude_args), Claude Code plugins found as units (plugins), trust and its content
pins (trust, pins), and the agent's own state on
disk written without following links (safefile, the project's `.agent/` directory).

The bottom layer: imports nothing of the project.
"""
