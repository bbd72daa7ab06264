"""Definitions, signatures and references extracted per language (agent.code.languages/tags)."""

from __future__ import annotations

import pytest

import agent.code.languages as languages
import agent.code.tags as tags_mod
from agent.code.languages import BY_EXT, LANGS, Lang, grammar, lang_of, no_outline
from agent.code.tags import FileTags, extract
from tests.code.samples import DEFS, LANG, SRC


def tags_of(name: str, src: str | bytes | None = None) -> FileTags:
    lang = LANG[name]
    if lang.extra:
        pytest.importorskip(lang.module)
    text = SRC[name] if src is None else src
    tags = extract(lang, text.encode() if isinstance(text, str) else text)
    assert tags is not None
    return tags


def test_every_language_has_a_sample() -> None:
    assert set(SRC) == set(DEFS) == set(LANG)


@pytest.mark.parametrize("lang", LANGS, ids=lambda lang: lang.name)
def test_grammar_loads(lang: Lang) -> None:
    if lang.extra:
        pytest.importorskip(lang.module)
    assert grammar(lang) is not None


@pytest.mark.parametrize("name", list(DEFS))
def test_definitions(name: str) -> None:
    defs = tags_of(name).defs
    assert [(d.kind, d.name, d.line, d.end, d.depth) for d in defs] == DEFS[name]


@pytest.mark.parametrize(
    ("name", "line", "sig"),
    [
        ("python", 3, "class Circle(Base)"),
        ("python", 4, "def area(self, scale: int, extra: str) -> float"),
        ("python", 10, "def label(self) -> str"),
        ("python", 12, "async def helper(x)"),
        ("javascript", 3, "class Circle extends Base"),
        ("javascript", 11, "const double = (n) =>"),
        ("typescript", 6, "class Circle implements Shape"),
        ("typescript", 12, "function make(r: number): Shape"),
        ("go", 10, "func (c Circle) Area() float64"),
        ("go", 13, "func NewCircle(r float64) *Circle"),
        ("rust", 8, "impl Circle"),
        ("rust", 9, "pub fn new(radius: f64) -> Self"),
        ("java", 4, "public Circle(double radius)"),
        ("c", 12, "char *describe(point_t *p)"),
        ("cpp", 9, "double Circle::area() const"),
        ("ruby", 3, "class Circle < Base"),
        ("ruby", 4, "def initialize(radius)"),
        ("bash", 6, "function build"),
        ("csharp", 11, "public Circle(double radius)"),
        ("php", 15, "function make(float $r): Shape"),
    ],
)
def test_signature(name: str, line: int, sig: str) -> None:
    assert [d.sig for d in tags_of(name).defs if d.line == line] == [sig]


@pytest.mark.parametrize(
    ("name", "ref", "lines"),
    [
        ("python", "scale", (6,)), ("javascript", "x", (9,)), ("go", "r", (14,)),
        ("python", "Base", (1, 3)), ("python", "helper", (6,)), ("python", "property", (9,)),
        ("javascript", "Base", (1, 3)), ("javascript", "LIMIT", (9,)),
        ("typescript", "Shape", (6, 12)), ("typescript", "Circle", (13,)),
        ("tsx", "Props", (9,)), ("tsx", "handle", (10,)), ("tsx", "log", (6, 12)),
        ("go", "Circle", (10, 13, 14)), ("go", "Limit", (14,)), ("go", "math", (11,)),
        ("rust", "Circle", (8, 10, 17)), ("java", "Shape", (2,)), ("java", "Math", (9,)),
        ("c", "printf", (13,)), ("c", "MAX", (10,)), ("c", "point_t", (12,)),
        ("cpp", "Circle", (9, 14)), ("cpp", "geo", (14,)),
        ("ruby", "Base", (3,)), ("ruby", "Math", (8,)),
        ("bash", "log", (7,)), ("bash", "build", (10,)), ("bash", "make", (8,)),
        ("csharp", "IShape", (8,)), ("csharp", "Radius", (13, 15)),
        ("php", "Shape", (7, 15)), ("php", "Circle", (17,)),
    ],
)  # fmt: skip
def test_reference_lines(name: str, ref: str, lines: tuple[int, ...]) -> None:
    assert tags_of(name).refs[ref] == lines


@pytest.mark.parametrize(
    ("name", "bound", "members"),
    [
        ("python", {"self", "scale", "extra", "x", "LIMIT"}, {"name"}),
        ("javascript", {"scale", "x", "n"}, {"radius"}),
        ("typescript", {"r", "radius"}, {"PI"}),
        ("tsx", {"item"}, set()),
        ("go", {"c", "r"}, {"Pi"}),
        ("rust", {"c", "radius"}, {"area"}),
        ("java", {"radius"}, {"PI"}),
        ("c", {"a", "b"}, {"x"}),
        ("cpp", {"c", "r"}, {"area"}),
        ("ruby", {"radius", "shape"}, {"area"}),
    ],
)
def test_locals_and_members(name: str, bound: set[str], members: set[str]) -> None:
    tags = tags_of(name)
    assert bound <= tags.locals
    assert members <= tags.members


@pytest.mark.parametrize("name", list(DEFS))
def test_a_definition_is_not_a_reference_on_its_own_line(name: str) -> None:
    tags = tags_of(name)
    for d in tags.defs:
        if d.kind != "impl":  # `impl Circle` is a use of Circle
            assert d.line not in tags.refs.get(d.name, ()), d


def test_go_type_kinds_and_nesting() -> None:
    defs = {(d.name, d.line): (d.kind, d.depth) for d in tags_of("go").defs}
    assert defs[("Circle", 4)] == ("struct", 0)
    assert defs[("Shape", 7)] == ("interface", 0)
    assert defs[("Area", 8)] == ("method", 1)


def test_python_imports_are_modules_not_references() -> None:
    tags = tags_of("python")
    assert tags.modules == {"pkg", "sub"}
    assert not {"pkg", "sub", "Circle", "area", "label"} & tags.refs.keys()


def test_rust_impl_type_is_a_reference() -> None:
    assert tags_of("rust").refs["Circle"] == (8, 10, 17)


def test_c_pointer_parameter_is_local() -> None:
    assert "p" in tags_of("c").locals


def test_cpp_qualified_method_at_the_top() -> None:
    src = "class A {\n  void f();\n};\nvoid A::f() {\n}\n"
    assert tags_of("cpp", src).defs[-1].row()[:5] == ["method", "f", 4, 5, 0]


def test_csharp_file_scoped_namespace() -> None:
    src = "namespace Shapes;\npublic class A {\n}\n"
    assert tags_of("csharp", src).defs[0].row()[:5] == ["module", "Shapes", 1, 1, 0]


def test_syntax_error_keeps_the_other_definitions() -> None:
    src = "def one():\n    return 1\n\nx = = 2\n\ndef two():\n    return 2\n"
    found = [(d.kind, d.name, d.line, d.end) for d in tags_of("python", src).defs]
    assert found[0] == ("function", "one", 1, 2)
    assert found[-1] == ("function", "two", 6, 7)


def test_bytes_that_are_not_utf8_in_a_comment() -> None:
    src = b"# caf\xe9 \xff\xfe\ndef f():\n    return 1\n"
    tags = tags_of("python", src)
    assert [(d.name, d.line, d.end) for d in tags.defs] == [("f", 2, 3)]


def test_extract_without_the_grammar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tags_mod, "grammar", lambda lang: None)
    assert extract(LANG["python"], b"x = 1\n") is None


def test_no_outline_for_an_unknown_extension() -> None:
    msg = no_outline(".xyz")
    assert msg.startswith("no outline for .xyz files")
    assert all(f" {ext} " in msg for ext in (".py", ".rs", ".go", ".java"))


def test_no_outline_leaves_out_missing_grammars(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(languages, "grammar", lambda lang: None if lang.name == "go" else 1)
    msg = no_outline(".xyz")
    assert " .go " not in msg
    assert " .py " in msg


def test_no_outline_for_a_known_language_names_the_install() -> None:
    assert no_outline(".GO").endswith("Go grammar is not installed (pip install tree-sitter-go)")
    assert BY_EXT[".cs"].extra
    assert "(pip install 'agent[languages]')" in no_outline(".cs")
    assert no_outline("").startswith("no outline for (no extension) files")


def test_lang_of() -> None:
    assert lang_of("src/Main.PY") is LANG["python"]
    assert lang_of("app/view.tsx") is LANG["tsx"]
    assert lang_of("lib/x.hpp") is LANG["cpp"]
    assert lang_of("Makefile") is None
