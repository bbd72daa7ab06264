"""Shell commands as the permission layer sees them: parsed with tree-sitter-bash into simple
commands, each judged on its own (escape hatches, read-only commands, what a recursive read
reaches, sed/awk scripts, git's own options and a repository's git config).

May import: permissions (facts, paths, rules), base, git, config.
"""
