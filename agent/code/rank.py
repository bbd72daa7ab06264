"""Which definitions matter most: a PageRank over the files' reference graph (file A → file
B when A uses a name B defines), personalised toward the files in the conversation and the
names in the user's message, then shared out from each file to the definitions it uses."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Set

from agent.code.languages import CONTAINERS_ONLY
from agent.code.tags import FileTags

DAMPING = 0.85
ROUNDS = 30
COMMON = 5  # a name defined in more files than this is probably generic (run, get, __init__)


def _defined(files: dict[str, FileTags]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Where each name is defined: at any depth, and at the top of a file."""
    anywhere: dict[str, list[str]] = defaultdict(list)
    top: dict[str, list[str]] = defaultdict(list)
    for rel, tags in files.items():
        names = {(d.name, d.depth == 0) for d in tags.defs if d.kind not in CONTAINERS_ONLY}
        for name in {n for n, _ in names}:
            anywhere[name].append(rel)
        for name, at_top in names:
            if at_top:
                top[name].append(rel)
    return anywhere, top


def _modules(rel: str) -> set[str]:
    """The names a file is imported or qualified by: its stem, and its folder (a Go package)."""
    parts = rel.rsplit("/", 2)
    stem = parts[-1].split(".", 1)[0]
    return {stem, parts[-2]} if len(parts) > 1 else {stem}


class _Near:
    """The files a member use (`x.name`) may point at: one this file already uses, or one
    whose module name it says. Found through an index of module names, never by looking at
    every file that defines the name (`.run` in ten thousand classes made that quadratic)."""

    def __init__(self, files: dict[str, FileTags], anywhere: dict[str, list[str]]) -> None:
        self.order = {rel: i for i, rel in enumerate(files)}  # the definitions' list order
        self.by_module: dict[str, list[str]] = defaultdict(list)
        for rel in files:
            for module in _modules(rel):
                self.by_module[module].append(rel)
        self.anywhere = anywhere
        self.homes = {name: set(where) for name, where in anywhere.items()}

    def of(self, known: set[str], named: Iterable[str]) -> set[str]:
        found = set(known)
        for name in named:
            found.update(self.by_module.get(name, ()))
        return found

    def fit(self, name: str, rel: str, candidates: set[str]) -> tuple[int, list[str]]:
        """How many other files define `name`, and those of them among the candidates, in the
        order of the definitions."""
        homes = self.homes.get(name, set())
        others = len(homes) - (rel in homes)
        if len(candidates) < others:
            fit = sorted(
                (h for h in candidates if h in homes and h != rel), key=self.order.__getitem__
            )
        else:
            fit = [h for h in self.anywhere.get(name, ()) if h != rel and h in candidates]
        return others, fit


def _weight(name: str, homes: int, focus_names: Set[str]) -> float:
    w = 1.0
    if name in focus_names:
        w *= 10
    if name.startswith("_") and not name.startswith("__"):
        w *= 0.1
    if homes > COMMON:
        w *= 0.1
    if len(name) < 3:
        w *= 0.1
    return w / homes


Edge = tuple[str, str, float]  # (defining file, name, weight)


def _edges(
    files: dict[str, FileTags], focus_files: Set[str], focus_names: Set[str]
) -> dict[str, list[Edge]]:
    """For each file, the (file, name, weight) of every name it uses that another defines.

    A bare use points at top-level definitions (unless the file binds the name itself); a use
    only as a member (`x.name`) at any definition, but only in a file this one already uses or
    names (`config.split` → config.py): `.get` and `.append` are mostly the standard library's."""
    anywhere, top = _defined(files)
    near = _Near(files, anywhere)
    edges: dict[str, list[Edge]] = {}
    for rel, tags in files.items():
        boost = 10.0 if rel in focus_files else 1.0
        out: list[Edge] = []
        members: list[tuple[str, int]] = []
        own = {d.name for d in tags.defs if d.depth == 0}  # a bare use of its own definition
        for name, lines in tags.refs.items():
            if name in tags.members:
                members.append((name, len(lines)))
            elif name not in tags.locals and name not in own and name in top:
                homes = top[name]
                w = boost * _weight(name, len(homes), focus_names) * math.sqrt(len(lines))
                out += [(home, name, w) for home in homes if home != rel]
        known = {home for home, _, _ in out}
        candidates = near.of(known, tags.refs.keys() | tags.modules)
        for name, count in members:
            others, fit = near.fit(name, rel, candidates)
            if fit:
                w = boost * _weight(name, others, focus_names) * math.sqrt(count)
                out += [(home, name, w) for home in fit]
        edges[rel] = out
    return edges


def pagerank(
    nodes: Iterable[str], edges: dict[str, list[Edge]], focus: Set[str]
) -> dict[str, float]:
    """Power iteration with a personalisation vector (`focus`, else uniform)."""
    names = list(nodes)
    if not names:
        return {}
    chosen = [n for n in names if n in focus] or names
    jump = {n: 1 / len(chosen) for n in chosen}
    totals = {n: sum(w for _, _, w in edges.get(n, ())) for n in names}
    summed: dict[str, dict[str, float]] = {}
    for n in names:
        to: dict[str, float] = defaultdict(float)
        for home, _, w in edges.get(n, ()):
            to[home] += w / totals[n]
        summed[n] = to
    rank = {n: 1 / len(names) for n in names}
    for _ in range(ROUNDS):
        dangling = sum(rank[n] for n in names if not totals[n])
        new = {n: (1 - DAMPING + DAMPING * dangling) * jump.get(n, 0.0) for n in names}
        for n, to in summed.items():
            share = DAMPING * rank[n]
            for home, w in to.items():
                new[home] += share * w
        delta = sum(abs(new[n] - rank[n]) for n in names)
        rank = new
        if delta < 1e-6:
            break
    return rank


def ranked_defs(
    files: dict[str, FileTags],
    focus_files: Set[str] = frozenset(),
    focus_names: Set[str] = frozenset(),
) -> list[tuple[float, str, int]]:
    """Every definition (file, index in its defs) with its score, best first: the rank
    flowing to it along the edges of the files that use it, plus a little of its own file's
    rank (so that a top file's unused definitions still come before a leaf's)."""
    edges = _edges(files, focus_files, focus_names)
    rank = pagerank(files, edges, focus_files)
    score: dict[tuple[str, str], float] = defaultdict(float)
    for rel, out in edges.items():
        if out:
            share = rank[rel] / sum(w for _, _, w in out)
            for home, name, w in out:
                score[(home, name)] += share * w
    result = []
    for rel, tags in files.items():
        own = rank.get(rel, 0.0) * 0.01
        for i, d in enumerate(tags.defs):
            if d.kind in CONTAINERS_ONLY or d.depth > 1:  # a map shows two levels
                continue
            s = score.get((rel, d.name), 0.0) + own / (1 + d.depth)
            if d.name in focus_names:
                s += 1.0  # named in the message: before everything ranked (ranks sum to 1)
            result.append((-s, rel, i))
    result.sort()  # best first; then by path and position
    return [(-s, rel, i) for s, rel, i in result]


def file_ranks(files: dict[str, FileTags], focus_files: Set[str] = frozenset()) -> dict[str, float]:
    """Each file's PageRank (for tests and /map's order)."""
    return pagerank(files, _edges(files, focus_files, set()), focus_files)
