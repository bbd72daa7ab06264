"""bash and bash_output: commands run in the sandbox (or the editor's terminal) with time and
output caps (`bash`), background processes (`background`), and what a command's output and
environment become (`output`). Hooks and project actions run their commands through `bash`.

May import: sandbox, tools.shared, base, permissions, config; never another tool family.
"""
