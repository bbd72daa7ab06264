"""Code intelligence from tree-sitter: which grammar reads which file (languages), the
definitions and references in one file (tags), parsing them in a process held to a time and
memory budget (bounded, worker), a cache of them in the user's cache directory (cache, index),
outlines of files (outline), and the ranked repository map (rank, repomap).

A library of functions over files it is handed: it never lists a project itself (the callers
do, through the tools' gitignore- and .agentignore-aware listing), so the tools above it and
the session's context both use it.

May import: base, config.
"""
