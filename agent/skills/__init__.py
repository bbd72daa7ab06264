"""Skills: folders with a `SKILL.md` (front matter `name`, `description`, optional
`allowed-tools`, then instructions) and whatever scripts and reference files sit beside it.

Owns finding them (`.agent/skills/`, `.claude/skills/`, in the project once it is trusted and in
the home directory), the compact list the first message carries, and the `skill` tool that
hands the model a skill's body when a task needs it (progressive disclosure: a hundred skills
cost a few lines each until one is used). What "in use" unlocks (the skill's `allowed-tools`,
reads of its folder) is wired by the app into the permission gate.

May import: base, config.
"""
