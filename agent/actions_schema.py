"""Static checks of one project action (SPEC §11): a JSON Schema, placeholders, the deny list.

`problems(raw)` returns readable problems, each naming the field (`timeout`, `params[0].type`,
`args[2]`). The JSON Schema is checked with the `jsonschema` package (a dependency of `mcp`),
imported only when a project has actions. Beyond the schema: every `${placeholder}` must be
`workspaceRoot` or a declared param; a param may not be spliced into code an interpreter runs
(`bash -c`, `python -c`, awk programs…) nor choose the program; `cwd` may only use params that
always have a value; commands on the deny list (`rm -rf /`, `mkfs`, `dd of=/dev/…`, fork
bombs…) are refused.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any

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
_INTERPRETER = re.compile(
    r"(?:ba|da|z|k|c|tc|fi|mk|a)?sh|pwsh|powershell|cmd(?:\.exe)?|python[\d.]*|pypy[\d.]*"
    r"|node|nodejs|deno|bun|perl|ruby|php|lua|luajit|tclsh|osascript|Rscript"
)
_PROGRAM_FIRST = re.compile(r"[gmn]?awk|g?sed")  # the first operand is the program
_CODE_FLAG = re.compile(r"-[A-Za-z]*[ceE]|--eval|--command|-Command|--print|-p|-r|/[cCkK]")
_OPT_VALUE = frozenset({"-o", "+o", "-O", "+O", "-W", "-X", "--rcfile", "--init-file"})
_WRAPPERS = ("env", "sudo", "nice", "nohup", "command", "exec")
DENY: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (why, re.compile(rx))
    for why, rx in (
        (
            "rm -rf of / or ~",
            r"\brm\s+(?:-\S+\s+)*?(?:--no-preserve-root\b|(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)"
            r"\s+(?:-\S+\s+)*['\"]?(?:/+|/\*|/\.|~/?\*?|\$\{?HOME\}?/?\*?)['\"]?(?=$|[\s;&|)]))",
        ),
        ("mkfs", r"\bmk(?:e2)?fs(?:\.\w+)?\b"),
        ("dd to a device", r"\bdd\b[^;&|\n]*\bof=/dev/(?!null\b|zero\b|stdout\b|stderr\b)"),
        ("a fork bomb", r":\s*\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}|\b(\w+)\s*\(\)\s*\{[^}]*\b\1\s*\|"),
        ("writing to a disk device", r">\s*/dev/(?:sd|hd|nvme|xvd|vd|disk|mmcblk)\w*"),
        ("chmod/chown -R of /", r"\bch(?:mod|own)\s+(?:-\S+\s+)*-\w*R\w*\s+(?:\S+\s+)?/(?=$|\s)"),
        (
            "shutting the machine down",
            r"(?:^|[;&|]\s*|\bsudo\s+)(?:shutdown|reboot|halt|poweroff)\b",
        ),
    )
)


def placeholders(text: str) -> list[str]:
    """The names of the `${…}` placeholders in `text` (`$${` escapes are not placeholders)."""
    return [m.group(1) for m in _PLACEHOLDER.finditer(text) if m.group(1) is not None]


def fill(text: str, values: dict[str, str]) -> str:
    """Replace each placeholder with its value and `$${` with `${` (all names must be known)."""
    return _PLACEHOLDER.sub(lambda m: "${" if m.group(1) is None else values[m.group(1)], text)


def denied(argv: list[str]) -> str:
    """Why this command line is on the deny list ("" when it is not)."""
    texts = [" ".join(argv), *argv[1:]]  # each arg too: `bash -c "shutdown now"`
    return next((why for why, rx in DENY for t in texts if rx.search(t)), "")


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
    for i in code_args(raw["command"], args):
        if set(placeholders(args[i])) & names:
            out.append(
                f"field 'args[{i}]': a param is spliced into code that {raw['command']} runs; pass "
                "it as a separate argument instead (e.g. bash -c 'echo \"$1\"' _ ${name})"
            )
    return out


def _why_not(where: str) -> str:
    if where == "command":
        return "may not choose the program (put params in args)"
    return "may be unset (make the param required or give it a default)"


def code_args(command: str, args: list[str]) -> list[int]:
    """Indexes of `args` that the program runs as code (after -c/-e…, or awk/sed's program)."""
    name, start = os.path.basename(command), 0
    while name in _WRAPPERS and start < len(args):  # `env bash -c …`: look at the real program
        while start < len(args) and (args[start].startswith("-") or "=" in args[start]):
            start += 1
        if start >= len(args):
            return []
        name, start = os.path.basename(args[start]), start + 1
    if _PROGRAM_FIRST.fullmatch(name):
        return _program_operand(args, start)
    if not _INTERPRETER.fullmatch(name):
        return []
    i = start
    while i < len(args):  # the interpreter's own options end at the script or `-m module`
        a = args[i]
        if _CODE_FLAG.fullmatch(a):
            return [i + 1] if i + 1 < len(args) else []
        if a in ("-m", "--") or not a.startswith(("-", "+")):
            return []
        i += 2 if a in _OPT_VALUE else 1
    return []


def _program_operand(args: list[str], i: int) -> list[int]:
    """awk/sed: the `-e` scripts, else the first operand (none when `-f file` gives it)."""
    code = []
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        if args[i] in ("-f", "--file"):
            return []
        if args[i] in ("-e", "--expression") and i + 1 < len(args):
            code.append(i + 1)
        i += 2 if args[i] in ("-v", "-F", "-e", "--expression") else 1
    i += 1 if i < len(args) and args[i] == "--" else 0
    return code or ([i] if i < len(args) else [])


def _deny_problems(raw: dict[str, Any]) -> list[str]:
    why = denied([raw["command"], *raw.get("args", [])])
    return [f"field 'command': {why} is on the deny list"] if why else []
