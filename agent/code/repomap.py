"""The repository map: the best-ranked definitions, grouped by file, as many as fit a token
budget (the enclosing class of a chosen method comes along, for context)."""

from __future__ import annotations

from collections.abc import Set

from agent.base.tokens import estimate
from agent.code.outline import def_line
from agent.code.rank import ranked_defs
from agent.code.tags import Def, FileTags

HEAD = (
    "Repository map: the most used definitions, by file (line range, signature); "
    "outline a file or read_file a range for more."
)
MAX_DEFS = 5_000  # the search for the largest map that fits looks at no more than these


def _with_parents(tags: FileTags, chosen: set[int]) -> list[Def]:
    """The chosen definitions (indexes into tags.defs) and every definition enclosing one."""
    keep = set(chosen)
    for i in chosen:
        depth = tags.defs[i].depth
        for j in range(i - 1, -1, -1):
            if depth == 0:
                break
            if tags.defs[j].depth < depth:
                keep.add(j)
                depth = tags.defs[j].depth
    return [tags.defs[i] for i in sorted(keep)]


def render(files: dict[str, FileTags], ranked: list[tuple[float, str, int]], k: int) -> str:
    order: dict[str, set[int]] = {}
    for _, rel, i in ranked[:k]:
        order.setdefault(rel, set()).add(i)
    blocks = []
    for rel, chosen in order.items():
        rows = [def_line(d) for d in _with_parents(files[rel], chosen)]
        blocks.append("\n".join([f"{rel}:", *(f"  {r}" for r in rows)]))
    return "\n".join([HEAD, *blocks])


def repo_map(
    files: dict[str, FileTags],
    tokens: int,
    *,
    focus_files: Set[str] = frozenset(),
    focus_names: Set[str] = frozenset(),
    leave_out: Set[str] = frozenset(),
) -> str:
    """The largest map within `tokens` ("" when nothing fits or there is nothing to map).
    `leave_out`: files the model already has in full (still ranked, not shown)."""
    if tokens <= 0 or not files:
        return ""
    ranked = [r for r in ranked_defs(files, focus_files, focus_names) if r[1] not in leave_out]
    ranked = ranked[:MAX_DEFS]
    # the largest k whose map fits: double k until it does not (a budget holds tens of
    # definitions, the ranking thousands), then bisect
    lo, hi, best = 1, len(ranked), ""
    k = 16
    while k < hi:
        text = render(files, ranked, k)
        if estimate(text) > tokens:
            hi = k - 1
            break
        best, lo, k = text, k + 1, k * 2
    while lo <= hi:
        mid = (lo + hi) // 2
        text = render(files, ranked, mid)
        if estimate(text) <= tokens:
            best, lo = text, mid + 1
        else:
            hi = mid - 1
    return best
