"""A small JSON Schema check for tool arguments, with the coercions models commonly need.

Models send `"5"` for integers, JSON-encoded arrays as strings and `null` for omitted optional
fields. Those are repaired; anything else is reported so the model can fix its call.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def _coerce(value: Any, want: str) -> Any:
    """Repair common model mistakes; return the value unchanged when no repair applies."""
    if not isinstance(value, str):
        if want == "number" and isinstance(value, bool):
            return value
        if want == "integer" and isinstance(value, float) and value.is_integer():
            return int(value)
        return value
    text = value.strip()
    try:
        if want == "integer":
            return int(text)
        if want == "number":
            return float(text)
        if want == "boolean" and text.lower() in ("true", "false"):
            return text.lower() == "true"
        if want in ("array", "object"):
            parsed = json.loads(text)
            if isinstance(parsed, _TYPES[want]):
                return parsed
    except ValueError:
        pass
    return value


def _type_ok(value: Any, want: str | list[str] | None) -> bool:
    if want is None:
        return True
    wants = want if isinstance(want, list) else [want]
    for w in wants:
        if w == "null" and value is None:
            return True
        types = _TYPES.get(w)
        if (
            types
            and isinstance(value, types)
            and not (isinstance(value, bool) and bool not in types)
        ):
            return True
    return False


def validate(args: dict[str, Any], schema: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(repaired args, problems): checks required, types, enums and unknown keys (one level)."""
    props: dict[str, Any] = schema.get("properties", {})
    out = {k: v for k, v in args.items() if not (v is None and k not in schema.get("required", []))}
    problems = [
        f"missing required parameter {r!r}" for r in schema.get("required", []) if r not in out
    ]
    for key, value in list(out.items()):
        spec = props.get(key)
        if spec is None:
            if schema.get("additionalProperties") is False:
                problems.append(f"unknown parameter {key!r} (expected: {', '.join(props)})")
            continue
        want = spec.get("type")
        if not _type_ok(value, want) and isinstance(want, str):
            value = out[key] = _coerce(value, want)
        if not _type_ok(value, want):
            problems.append(f"parameter {key!r} must be {want}, got {type(value).__name__}")
        elif "enum" in spec and value not in spec["enum"]:
            problems.append(f"parameter {key!r} must be one of {spec['enum']}, got {value!r}")
    return out, problems


def parse_arguments(raw: str) -> dict[str, Any]:
    """JSON object from a model's argument string; ValueError with a readable reason."""
    text = raw.strip()
    if not text:
        return {}
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(
            f"arguments are not valid JSON: {e.msg} at line {e.lineno} column {e.colno}"
        ) from None
    if isinstance(value, str):  # double-encoded
        with contextlib.suppress(json.JSONDecodeError):
            value = json.loads(value)
    if not isinstance(value, dict):
        raise ValueError(f"arguments must be a JSON object, got {type(value).__name__}")
    return value
