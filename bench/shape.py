"""`python -m bench.shape`: the code's shape in figures — modules at the top of `agent/`,
import cycles (imports made inside functions included), deferred imports of the project's own
modules, the longest files and functions. Read from the source with `ast`; nothing is imported.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "agent"
LONG_FILE = 300
LONG_FUNCTION = 50


@dataclass
class Module:
    name: str
    path: Path
    lines: int
    imports: set[str] = field(default_factory=set)  # project modules, wherever imported
    typed: set[str] = field(default_factory=set)  # project modules imported for annotations only
    deferred: int = 0  # project imports made inside a function
    unexplained: list[int] = field(default_factory=list)  # lines of those without `# deferred:`
    functions: list[tuple[int, str]] = field(default_factory=list)  # (lines, qualified name)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
    )


Found = tuple[ast.Import | ast.ImportFrom, bool, bool]  # (import, inside a function, typing only)


def _imports(node: ast.AST, inside: bool, typing: bool = False) -> Iterator[Found]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, inside, typing
        deeper = inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        typed = typing or (isinstance(child, ast.If) and _type_checking(child))
        yield from _imports(child, deeper, typed)


def _explained(lines: list[str], lineno: int) -> bool:
    """A `# deferred: …` comment on the import's line, or above it in its run of imports."""
    i = lineno - 1
    if "deferred" in lines[i]:
        return True
    while i > 0 and lines[i - 1].strip().startswith(("#", "from ", "import ")):
        i -= 1
        if "# deferred" in lines[i]:
            return True
    return False


def _targets(node: ast.Import | ast.ImportFrom, me: str, is_pkg: bool, known: set[str]) -> set[str]:
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            pkg = me.split(".") if is_pkg else me.split(".")[:-1]
            pkg = pkg[: len(pkg) - node.level + 1]
            base = ".".join([*pkg, base] if base else pkg)
        names = [f"{base}.{a.name}" for a in node.names] + [base]
    out = set()
    for n in names:
        while n and n not in known:
            n = n.rpartition(".")[0]
        if n and n != me:
            out.add(n)
    if isinstance(node, ast.ImportFrom):  # `from agent.x import y`: y itself when a module
        subs = {t for t in out if t != (node.module or "")}
        out = subs or out
    return out


def _functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[int, str]]:
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{prefix}{child.name}"
            if not isinstance(child, ast.ClassDef):
                yield (child.end_lineno or child.lineno) - child.lineno + 1, name
            yield from _functions(child, name + ".")


def load() -> dict[str, Module]:
    paths = sorted(ROOT.rglob("*.py"))
    mods = {module_name(p): p for p in paths}
    known = set(mods)
    out: dict[str, Module] = {}
    for name, path in mods.items():
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        m = Module(name, path, text.count("\n"))
        lines = text.splitlines()
        for node, inside, typing in _imports(tree, False):
            targets = _targets(node, name, path.name == "__init__.py", known)
            if typing:  # no run-time edge, but a cycle all the same for a reader and mypy
                m.typed |= targets
                continue
            m.imports |= targets
            if inside and targets:
                m.deferred += 1
                if not _explained(lines, node.lineno):
                    m.unexplained.append(node.lineno)
        m.functions = sorted(_functions(tree), reverse=True)
        out[name] = m
    return out


def cycles(mods: dict[str, Module]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative), over every
    import: at module level, inside functions, and for annotations only."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in mods:
        if start in index:
            continue
        work = [(start, iter(sorted(mods[start].imports | mods[start].typed)))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(mods[w].imports | mods[w].typed))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def main() -> int:
    mods = load()
    top = [m for m in mods.values() if m.path.parent == ROOT]
    packages = sorted(m.name for m in mods.values() if m.path.name == "__init__.py")
    cyc = cycles(mods)
    longest = max(mods.values(), key=lambda m: m.lines)
    funcs = sorted(
        ((n, f"{m.name}.{q}") for m in mods.values() for n, q in m.functions), reverse=True
    )
    print(f"modules: {len(mods)} in {len(packages)} packages; {len(top)} at the top of agent/")
    print(f"import cycles (deferred and type-only imports included): {len(cyc)}")
    for c in cyc:
        print("  " + " <-> ".join(c))
    deferred = sum(m.deferred for m in mods.values())
    print(f"deferred imports of the project's own modules: {deferred}")
    for m in mods.values():
        for line in m.unexplained:
            print(
                f"  no `# deferred: ~N ms: why` comment: {m.path.relative_to(ROOT.parent)}:{line}"
            )
    print(f"longest file: {longest.name} {longest.lines} lines")
    over = [m for m in mods.values() if m.lines > LONG_FILE]
    print(f"files over {LONG_FILE} lines: {', '.join(f'{m.name} {m.lines}' for m in over) or '-'}")
    print(f"longest function: {funcs[0][1]} {funcs[0][0]} lines")
    long_funcs = [f"{q} {n}" for n, q in funcs if n > LONG_FUNCTION]
    print(f"functions over {LONG_FUNCTION} lines: {', '.join(long_funcs) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
