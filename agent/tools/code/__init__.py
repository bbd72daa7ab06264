"""outline and symbols: tree-sitter definitions and references (agent.code) offered as tools.

May import: code, tools.shared, base, permissions; never another tool family.
"""
