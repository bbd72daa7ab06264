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


_PY_DEFS = """
(class_definition name: (identifier) @name) @def.class
(function_definition name: (identifier) @name) @def.function
(module (expression_statement (assignment left: (identifier) @name) @def.variable))
"""

_JS_DEFS = """
(class_declaration name: (_) @name) @def.class
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(method_definition name: (_) @name) @def.method
(lexical_declaration (variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)])) @def.function
(variable_declaration (variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)])) @def.function
(lexical_declaration (variable_declarator name: (identifier) @name value: (class))) @def.class
(program (lexical_declaration (variable_declarator name: (identifier) @name)) @def.variable)
(program (export_statement (lexical_declaration
  (variable_declarator name: (identifier) @name)) @def.variable))
"""

_TS_DEFS = (
    _JS_DEFS
    + """
(abstract_class_declaration name: (_) @name) @def.class
(interface_declaration name: (_) @name) @def.interface
(type_alias_declaration name: (_) @name) @def.type
(enum_declaration name: (_) @name) @def.enum
(function_signature name: (_) @name) @def.function
(method_signature name: (_) @name) @def.method
(abstract_method_signature name: (_) @name) @def.method
(internal_module name: (_) @name) @def.module
"""
)
_PY_REFS = """
(identifier) @ref
(attribute attribute: (identifier) @member)
(parameters (identifier) @local)
(lambda_parameters (identifier) @local)
(default_parameter name: (identifier) @local)
(typed_parameter (identifier) @local)
(typed_default_parameter name: (identifier) @local)
(assignment left: (identifier) @local)
(augmented_assignment left: (identifier) @local)
(for_statement left: (identifier) @local)
(pattern_list (identifier) @local)
(keyword_argument name: (identifier) @local)
(import_from_statement module_name: (dotted_name (identifier) @module))
(import_statement name: (dotted_name (identifier) @module))
(aliased_import name: (dotted_name (identifier) @module))
"""
_JS_LOCALS = """
(member_expression property: (property_identifier) @member)
(variable_declarator name: (identifier) @local)
(assignment_expression left: (identifier) @local)
"""
_JS_REFS = (
    "[(identifier) (property_identifier) (shorthand_property_identifier)] @ref"
    + _JS_LOCALS
    + "(formal_parameters (identifier) @local)"
)
_TS_REFS = (
    "[(identifier) (property_identifier) (type_identifier)] @ref"
    + _JS_LOCALS
    + """
(required_parameter pattern: (identifier) @local)
(optional_parameter pattern: (identifier) @local)
"""
)

_GO_DEFS = """
(function_declaration name: (identifier) @name) @def.function
(method_declaration name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name) @def.type
(method_elem name: (field_identifier) @name) @def.method
(source_file (const_declaration (const_spec name: (identifier) @name) @def.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @def.variable))
"""

_RUST_DEFS = """
(struct_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(union_item name: (type_identifier) @name) @def.struct
(type_item name: (type_identifier) @name) @def.type
(trait_item name: (type_identifier) @name) @def.trait
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function
(mod_item name: (identifier) @name) @def.module
(macro_definition name: (identifier) @name) @def.macro
(const_item name: (identifier) @name) @def.constant
(static_item name: (identifier) @name) @def.constant
(impl_item type: (_) @name) @def.impl
"""

_JAVA_DEFS = """
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
"""

_C_DEFS = """
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @def.function
(function_definition declarator: (pointer_declarator declarator:
  (function_declarator declarator: (identifier) @name))) @def.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @def.function
(struct_specifier name: (type_identifier) @name body: (_)) @def.struct
(union_specifier name: (type_identifier) @name body: (_)) @def.struct
(enum_specifier name: (type_identifier) @name body: (_)) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type
(preproc_def name: (identifier) @name) @def.macro
(preproc_function_def name: (identifier) @name) @def.macro
"""

_CPP_DEFS = (
    _C_DEFS
    + """
(class_specifier name: (type_identifier) @name body: (_)) @def.class
(namespace_definition name: (namespace_identifier) @name) @def.module
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier name: (_) @name))) @def.method
(function_definition declarator: (function_declarator declarator: (field_identifier) @name))
  @def.method
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name))
  @def.method
"""
)
_C_REFS = """
[(identifier) (type_identifier) (field_identifier)] @ref
(field_identifier) @member
(parameter_declaration declarator: (identifier) @local)
(parameter_declaration declarator: (pointer_declarator declarator: (identifier) @local))
(init_declarator declarator: (identifier) @local)
(field_declaration declarator: (field_identifier) @local)
"""
_RUST_REFS = """
[(identifier) (type_identifier) (field_identifier)] @ref
(field_identifier) @member
(let_declaration pattern: (identifier) @local)
(parameter pattern: (identifier) @local)
(closure_parameters (identifier) @local)
"""
_GO_REFS = """
[(identifier) (type_identifier) (field_identifier)] @ref
(field_identifier) @member
(parameter_declaration name: (identifier) @local)
(short_var_declaration left: (expression_list (identifier) @local))
(var_spec name: (identifier) @local)
"""
_JAVA_REFS = """
[(identifier) (type_identifier)] @ref
(method_invocation name: (identifier) @member)
(field_access field: (identifier) @member)
(variable_declarator name: (identifier) @local)
(formal_parameter name: (identifier) @local)
"""
_RUBY_REFS = """
[(identifier) (constant)] @ref
(call receiver: (_) method: (identifier) @member)
(assignment left: (identifier) @local)
(method_parameters (identifier) @local)
(block_parameters (identifier) @local)
"""

_RUBY_DEFS = """
(class name: (_) @name) @def.class
(module name: (_) @name) @def.module
(method name: (_) @name) @def.method
(singleton_method name: (_) @name) @def.method
"""

_CS_DEFS = """
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(struct_declaration name: (identifier) @name) @def.struct
(interface_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
(property_declaration name: (identifier) @name) @def.property
(namespace_declaration name: (_) @name) @def.module
(file_scoped_namespace_declaration name: (_) @name) @def.module
"""

_PHP_DEFS = """
(class_declaration name: (name) @name) @def.class
(interface_declaration name: (name) @name) @def.interface
(trait_declaration name: (name) @name) @def.trait
(enum_declaration name: (name) @name) @def.enum
(function_definition name: (name) @name) @def.function
(method_declaration name: (name) @name) @def.method
(namespace_definition name: (namespace_name) @name) @def.module
"""

LANGS: tuple[Lang, ...] = (
    Lang("python", "Python", (".py", ".pyi"), "tree_sitter_python", "language", _PY_DEFS,
         _PY_REFS),
    Lang("javascript", "JavaScript", (".js", ".jsx", ".mjs", ".cjs"), "tree_sitter_javascript",
         "language", _JS_DEFS, _JS_REFS),
    Lang("typescript", "TypeScript", (".ts", ".mts", ".cts"), "tree_sitter_typescript",
         "language_typescript", _TS_DEFS, _TS_REFS),
    Lang("tsx", "TSX", (".tsx",), "tree_sitter_typescript", "language_tsx", _TS_DEFS, _TS_REFS),
    Lang("go", "Go", (".go",), "tree_sitter_go", "language", _GO_DEFS, _GO_REFS),
    Lang("rust", "Rust", (".rs",), "tree_sitter_rust", "language", _RUST_DEFS, _RUST_REFS),
    Lang("java", "Java", (".java",), "tree_sitter_java", "language", _JAVA_DEFS, _JAVA_REFS),
    Lang("c", "C", (".c", ".h"), "tree_sitter_c", "language", _C_DEFS, _C_REFS),
    Lang("cpp", "C++", (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".ipp"), "tree_sitter_cpp",
         "language", _CPP_DEFS, _C_REFS + "(namespace_identifier) @ref"),
    Lang("ruby", "Ruby", (".rb", ".rake", ".gemspec"), "tree_sitter_ruby", "language",
         _RUBY_DEFS, _RUBY_REFS),
    Lang("bash", "Bash", (".sh", ".bash"), "tree_sitter_bash", "language",
         "(function_definition name: (word) @name) @def.function",
         "(command_name (word) @ref)"),
    Lang("csharp", "C#", (".cs",), "tree_sitter_c_sharp", "language", _CS_DEFS,
         "(identifier) @ref", extra=True),
    Lang("php", "PHP", (".php",), "tree_sitter_php", "language_php", _PHP_DEFS,
         "(name) @ref", extra=True),
)  # fmt: skip

BY_EXT: dict[str, Lang] = {ext: lang for lang in LANGS for ext in lang.exts}
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
