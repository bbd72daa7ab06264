"""Outlines: the definitions of a file (every level) or of a folder's files (two levels),
each as its line range and signature, indented by nesting, so that the next read can be the
range that matters."""

from __future__ import annotations

from collections import Counter

from agent.base.words import plural
from agent.code.tags import Def, FileTags

FOLDER_CHARS = 10_000  # of a folder's outline before files are left out
FOLDER_DEPTH = 1  # a folder shows classes and their methods, not functions inside methods


def def_line(d: Def, width: int = 0) -> str:
    span = f"{d.line}-{d.end}" if d.end > d.line else str(d.line)
    return f"{span.rjust(width)}  {'  ' * d.depth}{d.sig or d.kind + ' ' + d.name}"


def file_outline(rel: str, tags: FileTags, max_depth: int | None = None) -> str:
    """`rel (python, 293 lines)` then a line per definition."""
    head = f"{rel} ({tags.lang}, {plural(tags.lines, 'line')})"
    defs = [d for d in tags.defs if max_depth is None or d.depth <= max_depth]
    if not tags.defs:
        return f"{head}: no definitions"
    width = max(len(f"{d.line}-{d.end}") for d in defs)
    rows = [def_line(d, width) for d in defs]
    hidden = len(tags.defs) - len(defs)
    if hidden:
        rows.append(f"{' ' * width}  (+{plural(hidden, 'nested definition')}: outline the file)")
    return "\n".join([head, *rows])


def no_grammar_note(counts: Counter[str]) -> str:
    if not counts:
        return ""
    kinds = ", ".join(f"{ext or '(none)'} {n}" for ext, n in counts.most_common(6))
    more = ", …" if len(counts) > 6 else ""
    return f"{plural(sum(counts.values()), 'other file')} have no outline ({kinds}{more})"


def folder_outline(
    where: str, files: dict[str, FileTags], no_grammar: Counter[str], left: int = 0
) -> str:
    """The files' outlines in path order until FOLDER_CHARS, then what was left out."""
    blocks: list[str] = []
    size = 0
    names = sorted(files)
    shown = 0
    for rel in names:
        block = file_outline(rel, files[rel], FOLDER_DEPTH)
        if blocks and size + len(block) > FOLDER_CHARS:
            break
        blocks.append(block)
        size += len(block) + 1
        shown += 1
    defs = sum(len(t.defs) for t in files.values())
    head = f"{where}: {plural(len(files), 'file')} with {plural(defs, 'definition')}"
    notes = []
    if shown < len(names):
        rest = names[shown:]
        rest_defs = sum(len(files[r].defs) for r in rest)
        notes.append(
            f"[{plural(len(rest), 'more file')} ({plural(rest_defs, 'definition')}) left out, "
            f"from {rest[0]} on: outline a subfolder or one file]"
        )
    if left:
        notes.append(f"[{plural(left, 'file')} not read in time: outline a subfolder]")
    other = no_grammar_note(no_grammar)
    if other:
        notes.append(f"[{other}]")
    if not files:
        return "\n".join([f"{where}: no files with an outline", *notes])
    return "\n\n".join([head, *blocks, *(["\n".join(notes)] if notes else [])])
