"""Configuration: settings files (read, validate, merge user < project < local), `.env`
files, provider presets, the command-line Flags, and the agent's own state on disk written
without following links (safefile, the project's `.agent/` directory).

The bottom layer: imports nothing of the project.
"""
