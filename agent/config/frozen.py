"""Frozen records that cost next to nothing to define: the events every session imports at
start-up. A frozen dataclass compiles its generated methods (exec) when its class is made,
~0.45 ms each (`python -X importtime`: agent.base.events took 6.9 ms for 16 of them); a
`Frozen` subclass reads its fields from its annotations once and shares one __init__, __eq__,
__hash__ and __repr__. Type checkers read it as a frozen dataclass (dataclass_transform).
In agent.config, the bottom layer, so that every package may use it.

    class Notice(Frozen):
        text: str
        level: str = "info"
        tags: list[str] = field(default_factory=list)  # a fresh default each time
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
elif sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # 3.10: no typing.dataclass_transform, and typing_extensions costs ~5 ms to import

    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        return lambda cls: cls


_T = TypeVar("_T")


class _Factory:
    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], _T]) -> _T:
    """A field's default made anew for each record, as dataclasses.field spells it."""
    return _Factory(default_factory)  # type: ignore[return-value]


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class Frozen:
    """Base of a frozen record: fields from the annotations, in order, parents' first."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        own = [
            n for n, t in vars(cls).get("__annotations__", {}).items()  # not inspect: ~1.7 ms
            if not str(t).startswith("ClassVar")
        ]  # fmt: skip
        cls._fields = (*cls._fields, *(n for n in own if n not in cls._fields))
        cls._defaults = {**cls._defaults, **{n: cls.__dict__[n] for n in own if n in cls.__dict__}}
        setattr(cls, "__match_args__", cls._fields)  # noqa: B010 — no such attribute declared

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names = self._fields
        if not kwargs and len(args) == len(names):  # every field by position: the events' way
            self.__dict__.update(zip(names, args, strict=True))
            return
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes {len(names)} arguments")
        values = dict(zip(names, args, strict=False))  # fewer: the rest by keyword or default
        for key, value in kwargs.items():
            if key not in names or key in values:
                raise TypeError(f"{type(self).__name__}: unexpected or repeated argument {key}")
            values[key] = value
        for name in names:
            if name not in values:
                if name not in self._defaults:
                    raise TypeError(f"{type(self).__name__}: missing argument {name}")
                default = self._defaults[name]
                values[name] = default.make() if isinstance(default, _Factory) else default
        self.__dict__.update((n, values[n]) for n in names)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, n) for n in self._fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((self.__class__, self._values()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
        return f"{type(self).__name__}({inner})"
