"""The params of a project action (SPEC §11): their declaration, and the values a run gets.

`check_params` turns what the model or `/run` gave into typed values: unknown names, wrong
types and values outside an enum are errors; a missing param takes its default. A blank string
("" or only whitespace) counts as no value: a required param refuses it (`rm -rf
${workspaceRoot}/${target}` with target "" would be `rm -rf <workspace>/`), an optional one is
left out like a missing one, and with it the argument that uses it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

_BOOLS = {"true": True, "false": False, "yes": True, "no": False, "1": True, "0": False}


class ActionError(Exception):
    """A run that cannot start: unknown or bad params, a cwd outside the workspace…"""


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # string | integer | number | boolean
    description: str = ""
    required: bool = False
    enum: tuple[Any, ...] = ()
    default: Any = None  # None = no default (JSON null is not a valid default)

    def summary(self) -> str:
        """`level (integer, required, one of 1|2): what it is` — for prompts and /actions."""
        bits = [self.type]
        if self.required and self.default is None:
            bits.append("required")
        if self.enum:
            bits.append("one of " + "|".join(map(arg_text, self.enum)))
        if self.default is not None:
            bits.append(f"default {arg_text(self.default)}")
        about = f": {self.description}" if self.description else ""
        return f"{self.name} ({', '.join(bits)}){about}"


class Declared(Protocol):
    """What checking a run's params needs of its action (agent.actions.registry.Action)."""

    @property
    def id(self) -> str: ...
    @property
    def params(self) -> tuple[Param, ...]: ...
    def signature(self) -> str: ...


def check_params(action: Declared, given: Any) -> dict[str, Any]:
    """The params with types coerced, enums checked and defaults filled in; blank optional
    strings left out."""
    given = {} if given is None else given
    if not isinstance(given, dict):
        raise ActionError(f'params must be an object like {{"name": value}}, got {given!r}')
    declared = {p.name: p for p in action.params}
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise ActionError(
            f"action {action.id!r} has no param {unknown[0]!r}; it takes: {action.signature()}"
        )
    values: dict[str, Any] = {}
    for p in action.params:
        value = given.get(p.name)
        if value is not None and _blank(p, value) and not p.required:
            value = None  # "" is no value: the default, or the argument is left out
        if value is not None:
            values[p.name] = coerce(p, value)
        elif p.default is not None:
            values[p.name] = p.default
        elif p.required:
            raise ActionError(f"action {action.id!r} needs param {p.summary()}")
        if p.name in values and _blank(p, values[p.name]):
            if p.required:
                raise ActionError(
                    f"param {p.name!r} of action {action.id!r} is required and may not be "
                    "empty; pass a value"
                )
            del values[p.name]
    return values


def _blank(p: Param, value: Any) -> bool:
    """An empty or whitespace-only string (unless the author's enum lists it)."""
    return isinstance(value, str) and not value.strip() and value not in p.enum


def coerce(p: Param, value: Any) -> Any:
    """`value` as the param's type ("5" → 5, "yes" → true), or ActionError."""
    v = _convert(p.type, value)
    if v is None:
        raise ActionError(f"param {p.name!r} must be a {p.type}, got {value!r}")
    if p.enum and v not in p.enum:
        choices = ", ".join(arg_text(e) for e in p.enum)
        raise ActionError(f"param {p.name!r} must be one of {choices}; got {arg_text(v)}")
    if isinstance(v, str) and "\x00" in v:
        raise ActionError(f"param {p.name!r} contains a NUL byte")
    return v


def _convert(kind: str, value: Any) -> Any:
    if kind == "boolean":
        if isinstance(value, str):
            return _BOOLS.get(value.strip().lower())
        return value if isinstance(value, bool) else None
    if isinstance(value, bool):
        return None
    if kind == "string":  # a model may send 5 for "5"; the argv item is the same
        return value if isinstance(value, str) else _number_text(value)
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    if kind == "integer":
        return int(value) if float(value).is_integer() else None
    return value


def _number_text(value: Any) -> str | None:
    return arg_text(value) if isinstance(value, (int, float)) else None


def arg_text(value: Any) -> str:
    """A param value as one argv item."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)
