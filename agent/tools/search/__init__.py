"""glob (`globbing`: wcmatch patterns over the listing, newest first) and grep (`grep`:
ripgrep, its output read by `rg_output`, or the pure-Python `pygrep` when there is none), both
gitignore-aware and hiding what the agent's ignore files and secret rules hide.

May import: tools.shared, base, permissions; never another tool family.
"""
