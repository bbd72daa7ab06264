"""Static checks of one project action (SPEC §11): a JSON Schema, placeholders, the deny list.

`problems(raw)` returns readable problems, each naming the field (`timeout`, `params[0].type`,
`args[2]`). The JSON Schema is checked with the `jsonschema` package (a dependency of `mcp`),
imported only when a project has actions. Beyond the schema: every `${placeholder}` must be
`workspaceRoot` or a declared param; a param may not be spliced into code a program runs nor
choose the program (actions_deny.py finds where); `cwd` may only use params that always have a
value. The deny list (actions_danger.py) looks at programs and their real arguments (`rm -rf /`,
`mkfs`, `dd of=/dev/…`, `shutdown`), never at the text inside one argument, with
`${workspaceRoot}` standing for a workspace root no action may delete; code a shell or
interpreter runs is matched against patterns (`denied_code`, fork bombs…).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from agent.actions.danger import denied, denied_code
from agent.actions.deny import code_spots
from agent.actions.programs import expand, programs

SLUG = r"^[a-z0-9]+(?:[-_.][a-z0-9]+)*$"
PARAM_TYPES = ("string", "integer", "number", "boolean")
ROOT = "workspaceRoot"
_SCALAR = {"type": ["string", "number", "boolean"]}
PARAM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "type"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"},
        "type": {"enum": list(PARAM_TYPES)},
        "description": {"type": "string"},
        "required": {"type": "boolean"},
        "enum": {"type": "array", "minItems": 1, "items": _SCALAR},
        "default": _SCALAR,
    },
}
ACTION_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["id", "description", "command"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": SLUG, "maxLength": 64},
        "name": {"type": "string", "minLength": 1},
        "description": {"type": "string", "minLength": 1},
        "command": {"type": "string", "pattern": r"\S"},
        "args": {"type": "array", "items": {"type": "string"}},
        "cwd": {"type": "string", "pattern": r"\S"},
        "timeout": {"type": "number", "minimum": 1, "maximum": 300},
        "tags": {"type": "array", "items": {"type": "string", "pattern": SLUG}},
        "params": {"type": "array", "items": PARAM_SCHEMA},
        "requiresConfirm": {"type": "boolean"},
        "allowParallel": {"type": "boolean"},
    },
}

_PLACEHOLDER = re.compile(r"\$\$\{|\$\{([^{}]*)\}")  # `$${` is a literal `${`
_WS = "/nonexistent-workspace/root"  # ${workspaceRoot} in the deny check at load time


def placeholders(text: str) -> list[str]:
    """The names of the `${…}` placeholders in `text` (`$${` escapes are not placeholders)."""
    return [m.group(1) for m in _PLACEHOLDER.finditer(text) if m.group(1) is not None]


def _root_as(text: str, root: str) -> str:
    """`text` with each ${workspaceRoot} replaced by `root` (other placeholders kept)."""
    return _PLACEHOLDER.sub(lambda m: root if m.group(1) == ROOT else m.group(0), text)


def fill(text: str, values: dict[str, str]) -> str:
    """Replace each placeholder with its value and `$${` with `${` (all names must be known)."""
    return _PLACEHOLDER.sub(lambda m: "${" if m.group(1) is None else values[m.group(1)], text)


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(ACTION_SCHEMA)


def _field(error: Any) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    inst = error.instance
    if error.validator == "required":  # one error per missing field: "'x' is a required …"
        m = re.match(r"'(.+?)' is a required", error.message)
        path += f".{m.group(1)}" if m else ""
    elif error.validator == "additionalProperties" and isinstance(inst, dict):
        extra = sorted(set(inst) - set(error.schema.get("properties", {})))
        path += f".{extra[0]}" if extra else ""
    return path.lstrip(".") or "(action)"


def schema_problems(raw: Any) -> list[str]:
    """JSON Schema violations as `field 'x': message`, in a stable order."""
    errors = sorted(
        _validator().iter_errors(raw), key=lambda e: (list(map(str, e.path)), e.message)
    )
    out = []
    for e in errors:
        msg = e.message
        if e.validator == "required":
            msg = "is required"
        elif e.validator == "additionalProperties":
            msg = "is not a known field"
        elif e.validator == "pattern" and e.validator_value == SLUG:
            msg = f"{e.instance!r} is not a slug (lowercase letters and digits joined by - _ .)"
        out.append(f"field {_field(e)!r}: {msg}")
    return out


def problems(raw: Any) -> list[str]:
    """Everything wrong with one action as written in actions.json ([] = it loads)."""
    found = schema_problems(raw)
    if found:
        return found
    params = raw.get("params", [])
    return [*_param_problems(params), *_placeholder_problems(raw, params), *_deny_problems(raw)]


def _type_ok(kind: str, value: Any) -> bool:
    if kind == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    return isinstance(value, (int, float)) if kind == "number" else isinstance(value, str)


def _param_problems(params: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for i, p in enumerate(params):
        name, kind = p["name"], p["type"]
        if name == ROOT or name in seen:
            out.append(f"field 'params[{i}].name': {name!r} is reserved or used twice")
        seen.add(name)
        bad = [v for v in p.get("enum", []) if not _type_ok(kind, v)]
        if bad:
            out.append(f"field 'params[{i}].enum': {bad[0]!r} is not a {kind}")
        if "default" in p and not _type_ok(kind, p["default"]):
            out.append(f"field 'params[{i}].default': {p['default']!r} is not a {kind}")
        elif "enum" in p and "default" in p and p["default"] not in p["enum"]:
            out.append(f"field 'params[{i}].default': {p['default']!r} is not in enum")
    return out


def _placeholder_problems(raw: dict[str, Any], params: list[dict[str, Any]]) -> list[str]:
    names = {p["name"] for p in params}
    always = {p["name"] for p in params if p.get("required") or "default" in p}
    args: list[str] = raw.get("args", [])
    fields = [("command", raw["command"], {ROOT}), ("cwd", raw.get("cwd", ""), {ROOT, *always})]
    fields += [(f"args[{i}]", a, {ROOT, *names}) for i, a in enumerate(args)]
    out = []
    for where, text, allowed in fields:
        for name in placeholders(text):
            if name not in allowed:
                why = "is not a declared param" if name not in names else _why_not(where)
                out.append(f"field {where!r}: placeholder ${{{name}}} {why}")
    argv = [raw["command"], *args]
    words, origin, _ = expand(argv)
    code = code_spots(argv)
    chosen = {origin[k] for k in programs(words)[1:]}  # `timeout 10 ${prog}`
    for i in sorted({*code, *chosen} - {0}):
        p = next((n for n in placeholders(argv[i]) if n in names), None)
        if p and i in code:
            out.append(
                f"field 'args[{i - 1}]': a param is spliced into code ({code[i]}); pass ${{{p}}} "
                f"as a separate argument instead (e.g. bash -c 'echo \"$1\"' _ ${{{p}}})"
            )
        elif p:
            out.append(f"field 'args[{i - 1}]': a param (${{{p}}}) may not choose the program")
    return out


def _why_not(where: str) -> str:
    if where == "command":
        return "may not choose the program (put params in args)"
    return "may be unset (make the param required or give it a default)"


def _deny_problems(raw: dict[str, Any]) -> list[str]:
    argv = [_root_as(a, _WS) for a in [raw["command"], *raw.get("args", [])]]
    spots = code_spots(argv)
    why = denied(argv, code=spots, workspace=_WS)  # `rm -rf ${workspaceRoot}` never loads
    if why:
        return [f"field 'command': {why} is on the deny list"]
    for i in sorted(spots):
        why = denied_code(argv[i])
        if why:
            return [f"field 'args[{i - 1}]': {why} is on the deny list"]
    why = denied_code(" ".join(argv[i] for i in sorted(spots)))  # ssh host rm -rf /
    return [f"field 'args': {why} is on the deny list"] if why else []
