"""Which tree-sitter grammar reads which file, and the tags queries written for each.

Each language names its grammar wheel (a per-language `tree-sitter-*` package: no grammar is
ever downloaded at run time), a definitions query — every pattern captures the definition as
`@def.<kind>` and its name as `@name` — and a references query capturing every used name as
`@ref`, names used as a member (`x.name`) also as `@member`, names bound locally
(parameters, assignments) as `@local`, and the parts of imported module paths as `@module`.
Grammars load on first use; one that is not installed makes the language unavailable with a
line saying what to install, never a guess by regular expressions.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
from dataclasses import dataclass
from typing import Any

from agent.code import queries as q

EXTRA = "languages"  # the optional extra holding the larger grammars: agent[languages]


@dataclass(frozen=True)
class Lang:
    name: str  # shown in outlines ("python")
    title: str  # for messages ("Python")
    exts: tuple[str, ...]
    module: str  # the grammar's Python module
    func: str  # its function returning the language pointer
    defs: str  # the definitions query
    refs: str  # the references query
    extra: bool = False  # installed with agent[languages], not by default

    @property
    def dist(self) -> str:
        return self.module.replace("_", "-")


LANGS: tuple[Lang, ...] = (
    Lang("python", "Python", (".py", ".pyi"), "tree_sitter_python", "language", q.PY_DEFS,
         q.PY_REFS),
    Lang("javascript", "JavaScript", (".js", ".jsx", ".mjs", ".cjs"), "tree_sitter_javascript",
         "language", q.JS_DEFS, q.JS_REFS),
    Lang("typescript", "TypeScript", (".ts", ".mts", ".cts"), "tree_sitter_typescript",
         "language_typescript", q.TS_DEFS, q.TS_REFS),
    Lang("tsx", "TSX", (".tsx",), "tree_sitter_typescript", "language_tsx", q.TS_DEFS, q.TS_REFS),
    Lang("go", "Go", (".go",), "tree_sitter_go", "language", q.GO_DEFS, q.GO_REFS),
    Lang("rust", "Rust", (".rs",), "tree_sitter_rust", "language", q.RUST_DEFS, q.RUST_REFS),
    Lang("java", "Java", (".java",), "tree_sitter_java", "language", q.JAVA_DEFS, q.JAVA_REFS),
    Lang("c", "C", (".c", ".h"), "tree_sitter_c", "language", q.C_DEFS, q.C_REFS),
    Lang("cpp", "C++", (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".ipp"), "tree_sitter_cpp",
         "language", q.CPP_DEFS, q.C_REFS + "(namespace_identifier) @ref"),
    Lang("ruby", "Ruby", (".rb", ".rake", ".gemspec"), "tree_sitter_ruby", "language",
         q.RUBY_DEFS, q.RUBY_REFS),
    Lang("bash", "Bash", (".sh", ".bash"), "tree_sitter_bash", "language",
         "(function_definition name: (word) @name) @def.function",
         "(command_name (word) @ref)"),
    Lang("csharp", "C#", (".cs",), "tree_sitter_c_sharp", "language", q.CS_DEFS,
         "(identifier) @ref", extra=True),
    Lang("php", "PHP", (".php",), "tree_sitter_php", "language_php", q.PHP_DEFS,
         "(name) @ref", extra=True),
)  # fmt: skip

BY_EXT: dict[str, Lang] = {ext: lang for lang in LANGS for ext in lang.exts}
BY_NAME: dict[str, Lang] = {lang.name: lang for lang in LANGS}
# Kinds that hold others without defining their own name (`impl Foo` is a use of Foo).
CONTAINERS_ONLY = frozenset({"impl"})
# Kinds whose nested functions are methods.
TYPES = frozenset({"class", "struct", "interface", "trait", "impl", "enum", "module"})


def lang_of(path: str) -> Lang | None:
    """The language a file's extension says, installed or not."""
    return BY_EXT.get(os.path.splitext(path)[1].lower())


@functools.cache
def grammar(lang: Lang) -> tuple[Any, Any, Any] | None:
    """(tree_sitter.Language, definitions query, references query), or None when the grammar
    wheel is not installed."""
    import tree_sitter

    try:
        module = importlib.import_module(lang.module)
    except ImportError:
        return None
    try:
        language = tree_sitter.Language(getattr(module, lang.func)())
        queries = tree_sitter.Query(language, lang.defs), tree_sitter.Query(language, lang.refs)
    except (ValueError, AttributeError):  # a grammar release renamed a node: no outline
        return None
    return language, *queries


@functools.cache
def installed(lang: Lang) -> bool:
    """The grammar wheel is there (found without importing it)."""
    return importlib.util.find_spec(lang.module) is not None


@functools.cache
def version(lang: Lang) -> str:
    """A stamp of the installed grammar (its compiled binding's size and time): tags cached
    with another grammar are made again. Far cheaper than the package metadata."""
    spec = importlib.util.find_spec(lang.module)
    folders = spec.submodule_search_locations if spec is not None else None
    if not folders:
        return "?"
    for name in sorted(os.listdir(folders[0])):
        if name.startswith("_binding"):
            st = os.stat(os.path.join(folders[0], name))
            return f"{st.st_size}-{st.st_mtime_ns}"
    return "?"


def no_outline(ext: str) -> str:
    """Why a file type has no outline: no grammar exists here, or its wheel is missing."""
    ext = ext or "(no extension)"
    lang = BY_EXT.get(ext.lower())
    if lang is not None:
        how = f"pip install 'agent[{EXTRA}]'" if lang.extra else f"pip install {lang.dist}"
        return f"no outline for {ext} files: the {lang.title} grammar is not installed ({how})"
    known = " ".join(sorted({e for lng in LANGS if grammar(lng) for e in lng.exts}))
    return f"no outline for {ext} files (outlines cover {known}); use read_file or grep"
