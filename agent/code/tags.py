"""The definitions and references in one source file, read with its tree-sitter grammar.

A definition has a kind, a name, its line range (to the last line of code: a trailing comment
inside a block is not part of it, as in Python's `ast`), its nesting depth and its signature
(the text up to its body, on one line). References are the identifier-like names used in the
file other than the definitions' own names and local bindings, with the lines they are on;
which of them are only used as members (`x.name`) and which are bound locally (for ranking).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agent.code.languages import CONTAINERS_ONLY, TYPES, Lang, grammar

MAX_BYTES = 1_000_000  # larger files are generated or minified: no tags
# Tree levels a query pattern may start at. A query's time grows with the tree's depth (100,000
# nested calls in a 480 KB file kept one query busy for minutes; `a.b.c…` chains too), while
# real code stays under 60 levels (jQuery, rich, pygments: 58 at most): deeper nodes are
# not read, in a fraction of a second.
MAX_DEPTH = 256
SIG_CHARS = 160
_SPACE = re.compile(r"\s+")
_OPEN = re.compile(r"([(\[]) ")  # what joining a multi-line signature leaves
_CLOSE = re.compile(r",? ([)\]])")
_BODY_FIELDS = ("body", "value", "declarator")  # where a definition's body may sit


@dataclass(frozen=True)
class Def:
    kind: str
    name: str
    line: int  # 1-based, first line
    end: int  # 1-based, last line of code
    depth: int  # 0 at the top; a method in a class is 1
    sig: str

    def row(self) -> list[Any]:
        return [self.kind, self.name, self.line, self.end, self.depth, self.sig]


@dataclass(frozen=True)
class FileTags:
    lang: str
    lines: int
    defs: tuple[Def, ...]
    refs: dict[str, tuple[int, ...]]  # name → the lines it is used on
    members: frozenset[str] = frozenset()  # names used only as members (`x.name`)
    locals: frozenset[str] = frozenset()  # names bound here (parameters, assignments)
    modules: frozenset[str] = frozenset()  # the parts of the module paths it imports

    def data(self) -> dict[str, Any]:
        """A JSON-ready form (agent.code.cache stores it)."""
        return {
            "l": self.lang,
            "n": self.lines,
            "d": [d.row() for d in self.defs],
            "r": {k: list(v) for k, v in self.refs.items()},
            "m": sorted(self.members),
            "o": sorted(self.locals),
            "i": sorted(self.modules),
        }

    @classmethod
    def of(cls, data: dict[str, Any]) -> FileTags:
        defs = tuple(Def(*row) for row in data["d"])  # rows this module wrote (JSON types)
        refs = {str(k): tuple(v) for k, v in data["r"].items()}
        members, bound, mods = frozenset(data["m"]), frozenset(data["o"]), frozenset(data["i"])
        return cls(str(data["l"]), int(data["n"]), defs, refs, members, bound, mods)


def _last_code_row(node: Any) -> int:
    """The row of the node's last token that is not a comment."""
    while node.child_count:
        kids = [c for c in node.children if "comment" not in c.type]
        if not kids:
            break
        node = kids[-1]
    return int(node.end_point[0])


def _body(node: Any) -> Any:
    """The block a definition's signature ends at, if it has one."""
    for name in _BODY_FIELDS:
        child = node.child_by_field_name(name)
        if child is None:
            continue
        if name == "body":
            return child
        inner = child.child_by_field_name("body")
        if inner is not None:
            return inner
    for child in node.named_children:  # lexical_declaration → variable_declarator → value
        if child.type in ("variable_declarator",):
            return _body(child)
    return None


def _signature(src: bytes, node: Any) -> str:
    body = _body(node)
    start = node.start_byte
    if body is not None and body.start_byte > start:
        text = src[start : body.start_byte]
    else:
        text = src[start : node.end_byte].split(b"\n", 1)[0]
    sig = _SPACE.sub(" ", text.decode("utf-8", "replace")).strip().rstrip("{:=; ").rstrip()
    sig = _CLOSE.sub(r"\1", _OPEN.sub(r"\1", sig))
    if node.type == "type_spec":  # Go: the spec inside `type (…)` or `type X …`
        sig = f"type {sig}"
    return sig if len(sig) <= SIG_CHARS else sig[: SIG_CHARS - 1] + "…"


def _kind(kind: str, node: Any, parent_kind: str) -> str:
    if kind == "function" and parent_kind in TYPES:
        return "method"
    if kind == "method" and not parent_kind and node.type == "method":
        return "function"  # a Ruby `def` at the top (Go and C++ methods stay methods)
    if node.type == "type_spec":  # Go: `type X struct {…}` / `interface {…}`
        shape = node.child_by_field_name("type")
        if shape is not None and shape.type in ("struct_type", "interface_type"):
            return shape.type.removesuffix("_type")
    return kind


def _cursor(query: Any) -> Any:
    import tree_sitter

    cursor = tree_sitter.QueryCursor(query)
    cursor.set_max_start_depth(MAX_DEPTH)
    return cursor


def _definitions(lang: Lang, src: bytes, root: Any, query: Any) -> tuple[list[Def], set[int]]:
    """The definitions in document order with their depth, and their names' start bytes."""
    found: dict[int, tuple[int, str, Any, Any]] = {}  # name start → (pattern, kind, node, name)
    for pattern, caps in _cursor(query).matches(root):
        name_nodes = caps.get("name")
        kind = next((k[4:] for k in caps if k.startswith("def.")), "")
        if not name_nodes or not kind:
            continue
        name, node = name_nodes[0], caps[f"def.{kind}"][0]
        best = found.get(name.start_byte)
        if best is None or pattern < best[0]:  # the first (more specific) pattern wins
            found[name.start_byte] = (pattern, kind, node, name)
    items = sorted(found.values(), key=lambda t: (t[2].start_byte, -t[2].end_byte))
    # `impl Foo` names a use of Foo, not a definition: it stays a reference
    names = {at for at, (_, kind, _, _) in found.items() if kind not in CONTAINERS_ONLY}
    defs: list[Def] = []
    stack: list[tuple[int, str]] = []  # (end byte, kind) of the enclosing definitions
    for _, kind, node, name in items:
        while stack and node.start_byte >= stack[-1][0]:
            stack.pop()
        kind = _kind(kind, node, stack[-1][1] if stack else "")
        text = src[name.start_byte : name.end_byte].decode("utf-8", "replace")
        line = node.start_point[0] + 1
        end = max(_last_code_row(node) + 1, line)
        defs.append(Def(kind, text, line, end, len(stack), _signature(src, node)))
        stack.append((node.end_byte, kind))
    return defs, names


def extract(lang: Lang, src: bytes) -> FileTags | None:
    """The tags of one file's bytes, or None when its grammar is not installed."""
    import tree_sitter

    loaded = grammar(lang)
    if loaded is None:
        return None
    language, defs_query, refs_query = loaded
    tree = tree_sitter.Parser(language).parse(src)
    root = tree.root_node
    defs, names = _definitions(lang, src, root, defs_query)
    caps = _cursor(refs_query).captures(root)

    def text(node: Any) -> str:
        return src[node.start_byte : node.end_byte].decode("utf-8", "replace")

    bound, mods = caps.get("local", []), caps.get("module", [])
    names |= {n.start_byte for n in bound} | {n.start_byte for n in mods}  # not uses
    member_at = {n.start_byte for n in caps.get("member", [])}
    refs: dict[str, set[int]] = {}
    bare: set[str] = set()
    for node in caps.get("ref", []):
        if node.start_byte not in names:
            name = text(node)
            refs.setdefault(name, set()).add(node.start_point[0] + 1)
            if node.start_byte not in member_at:
                bare.add(name)
    lines = src.count(b"\n") + (1 if src and not src.endswith(b"\n") else 0)
    return FileTags(
        lang.name,
        lines,
        tuple(defs),
        {k: tuple(sorted(v)) for k, v in refs.items()},
        frozenset(refs.keys() - bare),
        frozenset(text(n) for n in bound),
        frozenset(text(n) for n in mods),
    )
