"""How one call's argument values are read against a declaration (agent.base.args): the types
a field takes, the repairs models need ("5", "true", null for an omitted optional) and the error
texts they have always read; arrays of objects item by item, errors naming the item."""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Mapping
from typing import Any, Protocol

from agent.base.record import ToolResult, error

REQUIRED: Any = dataclasses.MISSING  # a field's default when it has none: it is required
_INTEGER = re.compile(r"\s*-?[0-9]{1,18}\s*")
_EVERYTHING = 1 << 40  # an integer larger than this means nothing more
_PY = {"string": (str, "a string"), "integer": (int, "an integer"), "object": (dict, "an object")}


class ArgError(Exception):
    """An argument a tool cannot take, said for the model to fix its call (`result()`)."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what

    def result(self) -> ToolResult:
        return error(self.what, can_retry=True, kind="arguments")


class Arg:
    """What a field declares beyond its type and default."""

    __slots__ = ("doc", "each", "given", "minimum", "name")

    def __init__(
        self,
        doc: str = "",  # the schema's `description` ("" = none)
        name: str = "",  # the JSON name, when it is not the field's name
        minimum: int | None = None,  # integers: the least value; arrays: the fewest items
        each: str = "",  # arrays of objects: what errors call one item ("edit" → "edit 2: …")
        given: bool = False,  # its enum is given to schema() (a session's names)
    ) -> None:
        self.doc, self.name, self.minimum, self.each, self.given = doc, name, minimum, each, given


class Parsing(Protocol):
    """An object declaration (an agent.base.args.Args class), as an array's item."""

    def parse(self, args: Mapping[str, Any]) -> Any: ...
    def required_keys(self) -> list[str]: ...
    def schema(self) -> dict[str, Any]: ...


class Shape:
    """What an annotation means in JSON: its types, choices, and an array's item."""

    __slots__ = ("enum", "item", "obj", "types")

    def __init__(
        self,
        types: tuple[str, ...],
        enum: tuple[str, ...] = (),
        item: Shape | None = None,
        obj: Parsing | None = None,  # an object declared by an Args class
    ) -> None:
        self.types, self.enum, self.item, self.obj = types, enum, item, obj


class Field:
    """One declared argument, read: its Python and JSON names, shape, declaration, default."""

    __slots__ = ("attr", "default", "key", "required", "shape", "spec")

    def __init__(self, attr: str, key: str, shape: Shape, spec: Arg, default: Any) -> None:
        self.attr, self.key, self.shape, self.spec = attr, key, shape, spec
        self.default, self.required = default, default is REQUIRED


def read(f: Field, value: Any) -> Any:
    if value is None:  # absent, or the null some models send for an omitted optional
        if f.required:
            raise ArgError(f"missing required parameter '{f.key}'")
        return f.default
    if f.shape.item is not None:
        return _array(f, f.shape.item, value)
    return _value(f.key, f.shape, value, f.spec.minimum)


def _value(key: str, shape: Shape, value: Any, minimum: int | None) -> Any:
    """One value as its shape wants it, with the repairs models need."""
    kind = shape.types[0] if len(shape.types) == 1 else "union"
    if kind == "integer":
        return _integer(key, value, minimum)
    if kind == "boolean":
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if not isinstance(value, bool):
            raise ArgError(f"parameter '{key}' must be true or false, got {value!r}")
        return value
    if kind == "number":
        if isinstance(value, str):  # "30" from a model that quotes numbers
            with contextlib.suppress(ValueError):
                value = float(value.strip())
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ArgError(f"parameter '{key}' must be a number, got {value!r}")
        return value  # an int stays one: a huge one compares with a float without overflow
    wanted = tuple(_PY[t][0] for t in shape.types)  # a string, an object, or a union
    if isinstance(value, bool) or not isinstance(value, wanted):
        words = " or ".join(_PY[t][1] for t in shape.types)
        raise ArgError(f"parameter '{key}' must be {words}, got {type(value).__name__}")
    if shape.enum and value not in shape.enum:
        raise ArgError(f"{key} must be one of {', '.join(shape.enum)}, got {value!r}")
    return value


def _integer(key: str, value: Any, minimum: int | None) -> int:
    if isinstance(value, str) and _INTEGER.fullmatch(value):  # "20" from a model
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgError(f"parameter '{key}' must be an integer, got {value!r}")
    value = min(value, _EVERYTHING)
    if minimum is not None and value < minimum:
        raise ArgError(f"parameter '{key}' must be >= {minimum}, got {value}")
    return value


def _array(f: Field, item: Shape, value: Any) -> tuple[Any, ...]:
    """An array as a tuple: each object item parsed by its own declaration, errors naming
    the item ("edit 2: …")."""
    if not isinstance(value, list) or len(value) < (f.spec.minimum or 0):
        raise ArgError(_list_wanted(f, item))
    if item.obj is None:
        try:
            return tuple(_value(f.key, item, v, None) for v in value)
        except ArgError:
            raise ArgError(_list_wanted(f, item)) from None
    out = []
    for k, v in enumerate(value, 1):
        label = f"{f.spec.each or f.key + ' item'} {k}"
        if not isinstance(v, dict):
            raise ArgError(
                f"{label} must be an object with {' and '.join(item.obj.required_keys())}"
            )
        try:
            out.append(item.obj.parse(v))
        except ArgError as exc:
            raise ArgError(f"{label}: {exc.what}") from None
    return tuple(out)


def _list_wanted(f: Field, item: Shape) -> str:
    some = "a non-empty list" if f.spec.minimum else "a list"
    if item.obj is not None:
        what = "{" + ", ".join(item.obj.required_keys()) + "} objects"
    else:
        what = " or ".join(f"{t}s" for t in item.types)
    return f"{f.key} must be {some} of {what}"
