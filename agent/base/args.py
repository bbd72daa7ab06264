"""A tool's arguments, declared once: a frozen, keyword-only dataclass subclassing `Args`, whose
annotations give each argument's type and whose `arg(...)` fields its default, description,
JSON name (when it is no identifier: grep's `-i`) and limits. From it come the JSON Schema the
model sees (`schema()`) and one call's arguments, typed (`parse()`): a name, type or default
cannot say one thing in the schema and another where the tool reads it.

    @dataclass(frozen=True, kw_only=True)
    class GrepArgs(Args):
        pattern: str = arg(doc="Regular expression to search for")  # no default: required
        output_mode: Literal["files", "content", "count"] = "files"  # an `enum`
        ignore_case: bool = arg(False, "Case-insensitive search", name="-i")
        head_limit: int | None = arg(None, "Show at most this many entries", minimum=1)

Types: str, int, float, bool, `Mapping[str, Any]`, a `Literal` of strings, `str | int`, and
tuples of those or of another Args class (an array of objects). `X | None` or a default makes
an argument optional; `minimum` is checked, never sent. Dispatch (agent.base.schema) has
refused unknown names and wrong JSON types already; `parse` types the values, fills defaults
and checks limits, with the repairs models need ("5", "true", null for an omitted optional)
and the error texts they have always read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar, Union, cast

from agent.base.record import ToolResult, error

A = TypeVar("A", bound="Args")
T = TypeVar("T")

_SPEC = "agent.arg"  # the key of a field's metadata that holds its Arg
_REQUIRED: Any = dataclasses.MISSING
_INTEGER = re.compile(r"\s*-?[0-9]{1,18}\s*")
_EVERYTHING = 1 << 40  # an integer larger than this means nothing more
_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}
_PY = {"string": (str, "a string"), "integer": (int, "an integer"), "object": (dict, "an object")}


class ArgError(Exception):
    """An argument a tool cannot take, said for the model to fix its call (`result()`)."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what

    def result(self) -> ToolResult:
        return error(self.what, can_retry=True, kind="arguments")


@dataclass(frozen=True)
class Arg:
    """What a field declares beyond its type and default."""

    doc: str = ""  # the schema's `description` ("" = none)
    name: str = ""  # the JSON name, when it is not the field's name
    minimum: int | None = None  # integers: the least value; arrays: the fewest items
    each: str = ""  # arrays of objects: what errors call one item ("edit" → "edit 2: …")
    given: bool = False  # its enum is given to schema() (a session's names); absent without


def arg(
    default: Any = _REQUIRED,
    doc: str = "",
    *,
    name: str = "",
    minimum: int | None = None,
    each: str = "",
    given: bool = False,
) -> Any:
    """A field of an Args declaration; without a default the argument is required."""
    spec = Arg(doc, name, minimum, each, given)
    return dataclasses.field(default=default, metadata={_SPEC: spec})


def needed(value: T | None, name: str) -> T:
    """An argument this call must have although the schema leaves it optional (edit_file's
    old_string when no `edits` are given)."""
    if value is None:
        raise ArgError(f"missing required parameter '{name}'")
    return value


@dataclass(frozen=True)
class _Shape:
    """What an annotation means in JSON: its types, choices, and an array's item."""

    types: tuple[str, ...]
    enum: tuple[str, ...] = ()
    item: _Shape | None = None
    obj: type[Args] | None = None  # an object declared by an Args class


@dataclass(frozen=True)
class _Field:
    attr: str  # the Python name
    key: str  # the JSON name
    shape: _Shape
    spec: Arg
    default: Any
    required: bool


class Args:
    """The base of an argument declaration. Class keywords: `closed=False` leaves out
    `additionalProperties: false`; `list_required=True` sends `required` even when empty."""

    _closed: ClassVar[bool] = True
    _list_required: ClassVar[bool] = False

    def __init_subclass__(cls, *, closed: bool = True, list_required: bool = False) -> None:
        super().__init_subclass__()
        cls._closed, cls._list_required = closed, list_required

    @classmethod
    def schema(cls, **given: Sequence[str]) -> dict[str, Any]:
        """The JSON Schema of the arguments, in declaration order (the request prefix stays
        byte-stable); `given` holds the choices of `given=True` fields by their field name."""
        fields = [f for f in _fields(cls) if not f.spec.given or f.attr in given]
        props = {f.key: _property(f, given.get(f.attr)) for f in fields}
        out: dict[str, Any] = {"type": "object", "properties": props}
        required = [f.key for f in fields if f.required]
        if required or cls._list_required:
            out["required"] = required
        if cls._closed:
            out["additionalProperties"] = False
        return out

    @classmethod
    def parse(cls: type[A], args: Mapping[str, Any]) -> A:
        """One call's arguments, typed; ArgError says what is wrong. Names the declaration does
        not know are ignored (dispatch has refused them already)."""
        return cls(**{f.attr: _read(f, args.get(f.key)) for f in _fields(cls)})

    @classmethod
    def required_keys(cls) -> list[str]:
        return [f.key for f in _fields(cls) if f.required]


_FIELDS: dict[type[Args], tuple[_Field, ...]] = {}


def _fields(cls: type[Args]) -> tuple[_Field, ...]:
    """The declaration read once per class: annotations resolved, shapes worked out."""
    if cls not in _FIELDS:
        hints = typing.get_type_hints(cls)
        _FIELDS[cls] = tuple(_field(f, hints[f.name]) for f in dataclasses.fields(cast(Any, cls)))
    return _FIELDS[cls]


def _field(f: dataclasses.Field[Any], annotation: Any) -> _Field:
    spec: Arg = f.metadata.get(_SPEC, Arg())
    shape = _shape(annotation)
    problem = (
        "use a tuple default" if f.default_factory is not dataclasses.MISSING
        else "an object is declared only as an array's items" if shape.obj is not None
        else "only a string takes given choices" if spec.given and shape.types != ("string",)
        else ""
    )  # fmt: skip
    if problem:
        raise TypeError(f"argument {f.name!r}: {problem}")
    return _Field(f.name, spec.name or f.name, shape, spec, f.default, f.default is _REQUIRED)


def _shape(annotation: Any) -> _Shape:
    """The JSON shape of a field's annotation (`None` in a union only makes it optional)."""
    origin = typing.get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(inner) == 1:
            return _shape(inner[0])
        if not set(inner) <= {str, int}:
            raise TypeError(f"a union of {inner} (only str | int)")
        return _Shape(tuple(_SCALARS[a] for a in inner))
    if origin is Literal:
        choices = typing.get_args(annotation)
        if not all(isinstance(c, str) for c in choices):
            raise TypeError(f"a Literal of {choices!r} (only strings)")
        return _Shape(("string",), enum=choices)
    if origin is tuple:
        return _Shape(("array",), item=_shape(typing.get_args(annotation)[0]))
    if annotation is dict or origin is dict or origin is Mapping:
        return _Shape(("object",))
    if isinstance(annotation, type) and issubclass(annotation, Args):
        return _Shape(("object",), obj=annotation)
    if annotation not in _SCALARS:
        raise TypeError(f"no JSON type for {annotation!r}")
    return _Shape((_SCALARS[annotation],))


def _property(f: _Field, given: Sequence[str] | None) -> dict[str, Any]:
    """One property: its type facts, then the description, then an object item's schema
    (long, so last) — the order the schemas have always had."""
    out = _typed(f.shape)
    if given is not None:
        out["enum"] = list(given)
    if f.spec.doc:
        out["description"] = f.spec.doc
    if f.shape.item is not None and f.shape.item.obj is not None:
        out["items"] = f.shape.item.obj.schema()
    return out


def _typed(shape: _Shape) -> dict[str, Any]:
    out: dict[str, Any] = {"type": shape.types[0] if len(shape.types) == 1 else list(shape.types)}
    if shape.enum:
        out["enum"] = list(shape.enum)
    if shape.item is not None and shape.item.obj is None:
        out["items"] = _typed(shape.item)
    return out


def _read(f: _Field, value: Any) -> Any:
    if value is None:  # absent, or the null some models send for an omitted optional
        if f.required:
            raise ArgError(f"missing required parameter '{f.key}'")
        return f.default
    if f.shape.item is not None:
        return _array(f, f.shape.item, value)
    return _value(f.key, f.shape, value, f.spec.minimum)


def _value(key: str, shape: _Shape, value: Any, minimum: int | None) -> Any:
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


def _array(f: _Field, item: _Shape, value: Any) -> tuple[Any, ...]:
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


def _list_wanted(f: _Field, item: _Shape) -> str:
    some = "a non-empty list" if f.spec.minimum else "a list"
    if item.obj is not None:
        what = "{" + ", ".join(item.obj.required_keys()) + "} objects"
    else:
        what = " or ".join(f"{t}s" for t in item.types)
    return f"{f.key} must be {some} of {what}"
