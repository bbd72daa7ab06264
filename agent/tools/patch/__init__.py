"""apply_patch: the Codex patch format parsed and applied to text (`parse`), and the tool that
applies one patch to many files atomically, asking per file (`tool`).

May import: tools.shared, base, permissions; never another tool family.
"""
