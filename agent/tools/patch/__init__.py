"""apply_patch: the Codex patch format unwrapped from the heredoc or shell call models put it in
(`wrapped`), parsed and applied to text (`parse`), its hunks found as Codex finds them, exactly
first, then more leniently (`seek`), and the tool that applies one patch to many files
atomically, asking per file (`tool`).

May import: tools.shared, base, permissions; never another tool family.
"""
