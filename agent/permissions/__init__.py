"""Permissions (SPEC §5): the facts of a call and the pure decision, rules and their
vocabulary, real paths and protected locations (and what runs later), the gate (dispatch
middleware) and the paths it judged for the running call (judged), what a skill's or command's
grant may allow (grants), what a permission prompt shows and what answers do, and the audit
log. `shell/` parses and judges shell commands.

May import: base, git, config.
"""
