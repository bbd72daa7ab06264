"""agent.base.args: one declaration gives the schema the model sees and the typed arguments a
tool reads, with the repairs models need and the error texts they have always read."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import FrozenInstanceError
from typing import Any, Literal

import pytest

from agent.base.args import ArgError, Args, arg, needed
from agent.base.schema import validate


class Search(Args):
    pattern: str = arg(doc="What to find")
    path: str = arg(".", "Where (default: workspace)")
    mode: Literal["files", "content", "count"] = "files"
    ignore_case: bool = arg(False, "Case-insensitive", name="-i")
    context: int = arg(0, "Lines around", minimum=0)
    limit: int | None = arg(None, "At most", minimum=1)
    timeout: float | None = None


class Item(Args, closed=False):
    old: str
    new: str
    every: bool = False


class Many(Args):
    items: tuple[Item, ...] | None = arg(None, "Several, in order", minimum=1, each="edit")
    ids: tuple[str | int, ...] | None = None
    names: tuple[str, ...] = arg((), "Names")
    id: str | int | None = None
    extra: Mapping[str, Any] | None = arg(None, "Anything")


class Nothing(Args, list_required=True):
    path: str = "."


class Open(Args, closed=False):
    server: str = ""


class Given(Args):
    task: str = ""
    agent: str | None = arg(None, "Which agent", given=True)


AB = {"old": "a", "new": "b"}


def error_of(declared: type[Args], args: dict[str, Any]) -> str:
    with pytest.raises(ArgError) as caught:
        declared.parse(args)
    return caught.value.what


def test_the_schema_in_declaration_order() -> None:
    assert json.dumps(Search.schema()) == json.dumps(
        {
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "What to find"},
                "path": {"type": "string", "description": "Where (default: workspace)"},
                "mode": {"type": "string", "enum": ["files", "content", "count"]},
                "-i": {"type": "boolean", "description": "Case-insensitive"},
                "context": {"type": "integer", "description": "Lines around"},
                "limit": {"type": "integer", "description": "At most"},
                "timeout": {"type": "number"},
            },
            "required": ["pattern"],
            "additionalProperties": False,
        }
    )


def test_arrays_unions_and_objects() -> None:
    props = Many.schema()["properties"]
    # an object item comes after the description (it is long); a scalar item before it
    assert list(props["items"]) == ["type", "description", "items"]
    assert props["items"]["items"] == {
        "type": "object",
        "properties": {
            "old": {"type": "string"},
            "new": {"type": "string"},
            "every": {"type": "boolean"},
        },
        "required": ["old", "new"],
    }
    assert props["ids"] == {"type": "array", "items": {"type": ["string", "integer"]}}
    assert list(props["names"]) == ["type", "items", "description"]
    assert props["id"] == {"type": ["string", "integer"]}
    assert props["extra"] == {"type": "object", "description": "Anything"}
    assert "required" not in Many.schema()


def test_the_class_keywords() -> None:
    assert Nothing.schema() == {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": [],
        "additionalProperties": False,
    }
    assert Open.schema() == {"type": "object", "properties": {"server": {"type": "string"}}}


def test_given_choices_appear_only_when_given() -> None:
    assert "agent" not in Given.schema()["properties"]
    agent = Given.schema(agent=["a", "b"])["properties"]["agent"]
    assert list(agent.items()) == [
        ("type", "string"),
        ("enum", ["a", "b"]),
        ("description", "Which agent"),
    ]
    assert Given.schema(agent=[])["properties"]["agent"]["enum"] == []
    assert Given.parse({"agent": "anything"}).agent == "anything"  # the caller checks it


def test_parse_types_fills_defaults_and_reads_json_names() -> None:
    a = Search.parse({"pattern": "x", "-i": True, "context": 3})
    assert a == Search(pattern="x", ignore_case=True, context=3)
    assert (a.path, a.mode, a.limit, a.timeout) == (".", "files", None, None)
    with pytest.raises(FrozenInstanceError):
        a.pattern = "y"  # type: ignore[misc]


def test_the_repairs_models_need() -> None:
    a = Search.parse(
        {"pattern": "x", "-i": "TRUE", "context": " 5 ", "limit": 7.0, "timeout": " 2.5 "}
    )
    assert (a.ignore_case, a.context, a.limit, a.timeout) == (True, 5, 7, 2.5)
    assert Search.parse({"pattern": "x", "-i": "false"}).ignore_case is False
    # null is an omitted optional; unknown names were refused by dispatch and are ignored here
    b = Search.parse({"pattern": "x", "path": None, "limit": None, "other": 1})
    assert (b.path, b.limit) == (".", None)
    assert Search.parse({"pattern": "x", "limit": 10**30}).limit == 1 << 40  # "everything"
    assert Search.parse({"pattern": "x", "timeout": 10**400}).timeout == 10**400  # stays int


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ({}, "missing required parameter 'pattern'"),
        ({"pattern": None}, "missing required parameter 'pattern'"),
        ({"pattern": 5}, "parameter 'pattern' must be a string, got int"),
        ({"pattern": True}, "parameter 'pattern' must be a string, got bool"),
        ({"pattern": "x", "-i": "yes"}, "parameter '-i' must be true or false, got 'yes'"),
        ({"pattern": "x", "-i": 1}, "parameter '-i' must be true or false, got 1"),
        ({"pattern": "x", "context": "--5"}, "parameter 'context' must be an integer, got '--5'"),
        ({"pattern": "x", "context": "1e3"}, "parameter 'context' must be an integer, got '1e3'"),
        ({"pattern": "x", "context": 1.5}, "parameter 'context' must be an integer, got 1.5"),
        ({"pattern": "x", "context": True}, "parameter 'context' must be an integer, got True"),
        ({"pattern": "x", "context": -1}, "parameter 'context' must be >= 0, got -1"),
        ({"pattern": "x", "limit": "0"}, "parameter 'limit' must be >= 1, got 0"),
        ({"pattern": "x", "timeout": "soon"}, "parameter 'timeout' must be a number, got 'soon'"),
        ({"pattern": "x", "timeout": False}, "parameter 'timeout' must be a number, got False"),
        (
            {"pattern": "x", "mode": "lines"},
            "mode must be one of files, content, count, got 'lines'",
        ),
        ({"pattern": "x", "mode": 3}, "parameter 'mode' must be a string, got int"),
    ],
)
def test_every_error_text(args: dict[str, Any], says: str) -> None:
    assert error_of(Search, args) == says


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ({"items": []}, "items must be a non-empty list of {old, new} objects"),
        ({"items": "[]"}, "items must be a non-empty list of {old, new} objects"),
        ({"items": [1]}, "edit 1 must be an object with old and new"),
        ({"items": [AB, {"old": "a"}]}, "edit 2: missing required parameter 'new'"),
        ({"items": [{**AB, "every": "no"}]}, "edit 1: parameter 'every' must be true or false, got 'no'"),  # noqa: E501
        ({"ids": [1, 2.5]}, "ids must be a list of strings or integers"),
        ({"ids": "1"}, "ids must be a list of strings or integers"),
        ({"names": [1]}, "names must be a list of strings"),
        ({"id": 1.5}, "parameter 'id' must be a string or an integer, got float"),
        ({"id": False}, "parameter 'id' must be a string or an integer, got bool"),
        ({"extra": [1]}, "parameter 'extra' must be an object, got list"),
    ],
)  # fmt: skip
def test_every_error_text_of_arrays_unions_and_objects(args: dict[str, Any], says: str) -> None:
    assert error_of(Many, args) == says


def test_arrays_parse_to_tuples_of_typed_items() -> None:
    m = Many.parse(
        {"items": [{"old": "a", "new": "b", "every": "true", "x": 1}], "ids": [1, "2"], "id": 3}
    )
    assert m.items == (Item(old="a", new="b", every=True),)
    assert (m.ids, m.names, m.id, m.extra) == ((1, "2"), (), 3, None)
    assert Many.parse({"items": None}).items is None


def test_an_error_is_the_error_result_the_model_reads() -> None:
    result = ArgError("missing required parameter 'x'").result()
    assert result.is_error
    assert result.output == "Error: missing required parameter 'x'\ncan_retry: true"


def test_needed() -> None:
    assert needed("a", "old") == "a"
    assert needed("", "old") == ""
    with pytest.raises(ArgError, match="missing required parameter 'old'"):
        needed(None, "old")


def test_the_dispatch_check_accepts_what_parse_reads() -> None:
    """A call dispatch repaired (agent.base.schema) parses to the same values."""
    raw = {"pattern": "x", "-i": "true", "context": "2", "limit": None}
    repaired, problems = validate(raw, Search.schema())
    assert not problems
    assert Search.parse(repaired) == Search.parse(raw)


def test_a_parsed_declaration_is_read_only() -> None:
    a = Search.parse({"pattern": "x"})
    with pytest.raises(FrozenInstanceError, match="read-only"):
        a.pattern = "y"  # type: ignore[misc]
    assert "pattern='x'" in repr(a)


def test_declarations_it_cannot_express_fail_at_once() -> None:
    class Listy(Args):
        names: list[str]

    with pytest.raises(TypeError, match="no JSON type for list"):
        Listy.schema()

    class Factory(Args):
        names: tuple[str, ...] = []  # type: ignore[assignment]

    with pytest.raises(TypeError, match="use a tuple default"):
        Factory.schema()

    class Nested(Args):
        item: Item

    with pytest.raises(TypeError, match="only as an array's items"):
        Nested.schema()

    class GivenInt(Args):
        n: int = arg(0, given=True)

    with pytest.raises(TypeError, match="only a string takes given choices"):
        GivenInt.schema()
