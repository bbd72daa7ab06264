"""Permissions (SPEC §5): the facts of a call and the pure decision, rules and their
vocabulary, real paths and protected locations, the gate (dispatch middleware), what a
permission prompt shows and what answers do, and the audit log. `shell/` parses and judges
shell commands.

May import: base, git, config.
"""
