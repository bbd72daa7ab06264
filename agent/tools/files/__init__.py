"""The file tools: read_file (text paged by lines, images, and documents in `documents/`:
notebooks, PDF, workbooks, CSV, Word), write_file and edit_file (`edits`: one or many
replacements, `matching` for near misses, `multiedit`), notebook_edit (`documents/nbedit`).

May import: tools.shared, base, permissions, config; never another tool family.
"""
