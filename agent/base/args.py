"""A tool's arguments, declared once: a class subclassing `Args`, whose annotations give each
argument's type and whose `arg(...)` values its default, description, JSON name (when it is no
identifier: grep's `-i`) and limits. From it come the JSON Schema the model sees (`schema()`)
and one call's arguments, typed and read-only (`parse()`): a name, type or default cannot say
one thing in the schema and another where the tool reads it.

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

No dataclass code is generated for a declaration (at ~0.7 ms a class, twenty of them would cost
the start-up ~15 ms): a declaration is read once, when its schema or a first call needs it.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal, TypeVar, Union

from agent.base.argvalues import REQUIRED, Arg, ArgError, Field, Shape, read

A = TypeVar("A", bound="Args")
T = TypeVar("T")

_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}


def arg(
    default: Any = REQUIRED,
    doc: str = "",
    *,
    name: str = "",
    minimum: int | None = None,
    each: str = "",
    given: bool = False,
) -> Any:
    """A field of an Args declaration; without a default the argument is required."""
    return _Declared(default, Arg(doc, name, minimum, each, given))


class _Declared:
    """What `arg(...)` leaves in the class body, until the declaration is read."""

    __slots__ = ("default", "spec")

    def __init__(self, default: Any, spec: Arg) -> None:
        self.default, self.spec = default, spec


def needed(value: T | None, name: str) -> T:
    """An argument this call must have although the schema leaves it optional (edit_file's
    old_string when no `edits` are given)."""
    if value is None:
        raise ArgError(f"missing required parameter '{name}'")
    return value


class Args:
    """The base of an argument declaration. Class keywords: `closed=False` leaves out
    `additionalProperties: false`; `list_required=True` sends `required` even when empty."""

    _closed: ClassVar[bool] = True
    _list_required: ClassVar[bool] = False

    def __init_subclass__(cls, *, closed: bool = True, list_required: bool = False) -> None:
        super().__init_subclass__()
        cls._closed, cls._list_required = closed, list_required

    def __init__(self, **values: Any) -> None:
        """Values given as they are, by their Python names (tests, a caller that has them
        typed already); the rest are the defaults. A model's arguments go through `parse`."""
        fields = {f.attr: f for f in _fields(type(self))}
        unknown = sorted(set(values) - set(fields))
        missing = [n for n, f in fields.items() if f.required and n not in values]
        if unknown or missing:
            raise TypeError(f"{type(self).__name__}: unknown {unknown}, missing {missing}")
        vars(self).update({n: values.get(n, f.default) for n, f in fields.items()})

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"{type(self).__name__} is read-only: {name!r}")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self) -> int:
        return hash((type(self), tuple(vars(self).items())))

    def __repr__(self) -> str:
        values = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({values})"

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
        made = object.__new__(cls)
        vars(made).update({f.attr: read(f, args.get(f.key)) for f in _fields(cls)})
        return made

    @classmethod
    def required_keys(cls) -> list[str]:
        return [f.key for f in _fields(cls) if f.required]


_FIELDS: dict[type[Args], tuple[Field, ...]] = {}


def _fields(cls: type[Args]) -> tuple[Field, ...]:
    """The declaration read once per class: annotations resolved, shapes worked out."""
    if cls not in _FIELDS:
        hints = typing.get_type_hints(cls)
        names = [  # in declaration order, a base class's first
            name
            for klass in reversed(cls.__mro__)
            for name in vars(klass).get("__annotations__", {})
            if not name.startswith("_")
        ]
        _FIELDS[cls] = tuple(_field(cls, n, hints[n]) for n in dict.fromkeys(names))
    return _FIELDS[cls]


def _field(cls: type[Args], name: str, annotation: Any) -> Field:
    value = getattr(cls, name, REQUIRED)
    declared = value if isinstance(value, _Declared) else _Declared(value, Arg())
    spec, default = declared.spec, declared.default
    shape = _shape(annotation)
    problem = (
        "use a tuple default" if isinstance(default, (list, dict, set))
        else "an object is declared only as an array's items" if shape.obj is not None
        else "only a string takes given choices" if spec.given and shape.types != ("string",)
        else ""
    )  # fmt: skip
    if problem:
        raise TypeError(f"argument {name!r}: {problem}")
    return Field(name, spec.name or name, shape, spec, default)


def _shape(annotation: Any) -> Shape:
    """The JSON shape of a field's annotation (`None` in a union only makes it optional)."""
    origin = typing.get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(inner) == 1:
            return _shape(inner[0])
        if not set(inner) <= {str, int}:
            raise TypeError(f"a union of {inner} (only str | int)")
        return Shape(tuple(_SCALARS[a] for a in inner))
    if origin is Literal:
        choices = typing.get_args(annotation)
        if not all(isinstance(c, str) for c in choices):
            raise TypeError(f"a Literal of {choices!r} (only strings)")
        return Shape(("string",), enum=choices)
    if origin is tuple:
        return Shape(("array",), item=_shape(typing.get_args(annotation)[0]))
    if annotation is dict or origin is dict or origin is Mapping:
        return Shape(("object",))
    if isinstance(annotation, type) and issubclass(annotation, Args):
        return Shape(("object",), obj=annotation)
    if annotation not in _SCALARS:
        raise TypeError(f"no JSON type for {annotation!r}")
    return Shape((_SCALARS[annotation],))


def _property(f: Field, given: Sequence[str] | None) -> dict[str, Any]:
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


def _typed(shape: Shape) -> dict[str, Any]:
    out: dict[str, Any] = {"type": shape.types[0] if len(shape.types) == 1 else list(shape.types)}
    if shape.enum:
        out["enum"] = list(shape.enum)
    if shape.item is not None and shape.item.obj is None:
        out["items"] = _typed(shape.item)
    return out
