"""Static checks of one project action (SPEC §11): a JSON Schema, placeholders, the deny list.

`problems(raw)` returns readable problems, each naming the field (`timeout`, `params[0].type`,
`args[2]`). The JSON Schema is checked with the `jsonschema` package (a dependency of `mcp`),
imported only when a project has actions. Beyond the schema: every `${placeholder}` must be
`workspaceRoot` or a declared param; a param may not be spliced into code a program runs nor
choose the program (actions_deny.py finds where); `cwd` may only use params that always have a
value. The deny list (`denied`) looks at programs and their real arguments (`rm -rf /`, `mkfs`,
`dd of=/dev/…`, `shutdown`), never at the text inside one argument, and also before each run;
code a shell or interpreter runs is matched against patterns (`denied_code`, fork bombs…).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent.actions_deny import base, code_spots, expand, programs

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
RM = "rm -rf of /, a top-level directory or the home directory"
CHMOD = "chmod/chown -R of /, a top-level directory or the home directory"
SHUTDOWN = "shutting the machine down"
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_MKFS = re.compile(r"mk(?:e2)?fs(?:\.\w+)?")
_DISK = re.compile(r"/dev/(?:sd|hd|nvme|xvd|vd|disk|mmcblk)\w*")
_DEV_OK = re.compile(r"/dev/(?:null|zero|stdout|stderr|tty|fd/\d+)")
_RM_CODE = re.compile(r"\brm\s+(?:\S+\s+)*?(?:-[a-zA-Z]*[rR]|--recursive|--no-preserve-root)")


def placeholders(text: str) -> list[str]:
    """The names of the `${…}` placeholders in `text` (`$${` escapes are not placeholders)."""
    return [m.group(1) for m in _PLACEHOLDER.finditer(text) if m.group(1) is not None]


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
    argv = [raw["command"], *raw.get("args", [])]
    spots = code_spots(argv)
    why = denied(argv, code=spots)
    if why:
        return [f"field 'command': {why} is on the deny list"]
    for i in sorted(spots):
        why = denied_code(argv[i])
        if why:
            return [f"field 'args[{i - 1}]': {why} is on the deny list"]
    why = denied_code(" ".join(argv[i] for i in sorted(spots)))  # ssh host rm -rf /
    return [f"field 'args': {why} is on the deny list"] if why else []


def denied(argv: list[str], cwd: str | None = None, code: Iterable[int] = ()) -> str:
    """Why this command line is on the deny list ("" when it is not).

    `cwd` resolves relative paths (`../..`); `code` are the indexes of arguments a shell or
    interpreter runs as code: a recursive `rm` there may not be given / or ~ as an argument
    (`bash -c 'rm -rf "$1"' _ /`)."""
    words = expand(argv)[0]
    for k in programs(words):
        why = _dangerous(base(words[k]), words[k + 1 :], cwd)
        if why:
            return why
    for c in code:
        rm = c < len(argv) and _RM_CODE.search(argv[c])
        if rm and any(_protected(a, cwd) for a in argv[c + 1 :]):
            return RM
    return ""


def _dangerous(name: str, args: list[str], cwd: str | None) -> str:
    opts = [a for a in args[: args.index("--") if "--" in args else len(args)] if a[:1] == "-"]
    operands = [a for a in args if a not in opts and a != "--"]
    flags = "rR" if name == "rm" else "R"  # `chmod -r` takes away read permission
    recursive = any(
        o == "--recursive" or (o[1:2] != "-" and any(c in flags for c in o)) for o in opts
    )
    if name == "rm" and "--no-preserve-root" in opts:
        return RM
    rm_like = name in ("rm", "chmod", "chown", "chgrp") and recursive
    if rm_like and any(_protected(p, cwd) for p in operands):
        return RM if name == "rm" else CHMOD
    if _MKFS.fullmatch(name):
        return "mkfs"
    if name == "dd" and any(
        a.startswith("of=/dev/") and not _DEV_OK.fullmatch(a[3:]) for a in args
    ):
        return "dd to a device"
    if name in ("shutdown", "reboot", "halt", "poweroff"):
        return SHUTDOWN
    if name in ("systemctl", "loginctl") and {"poweroff", "reboot", "halt", "kexec"} & set(args):
        return SHUTDOWN
    if name in ("init", "telinit") and args[:1] in (["0"], ["6"]):
        return SHUTDOWN
    writers = ("tee", "cp", "mv", "install", "shred", "wipefs", "truncate", "blkdiscard")
    if name in writers and any(_DISK.fullmatch(a) for a in operands):
        return "writing to a disk device"
    return ""


def _protected(path: str, cwd: str | None) -> bool:
    """Is `path` /, a top-level directory, the home directory or a parent of it?"""
    home = os.path.expanduser("~")
    for alias in ("~", "$HOME", "${HOME}"):  # without a shell these are names; refused anyway
        if path == alias or path.startswith(alias + "/"):
            path = home + path[len(alias) :]
    while path.endswith(("/*", "/.")) or path == "*":
        path = path[:-1] if path == "*" else path[:-2] or "/"
    if not os.path.isabs(path):
        if cwd is None:
            return False
        path = os.path.join(cwd, path)
    homes = {os.path.normpath(home), os.path.realpath(home)}
    for p in {os.path.normpath(path), os.path.realpath(path)}:
        if len(Path(p).parts) <= 2 or any(
            h == p or h.startswith(p.rstrip("/") + "/") for h in homes
        ):
            return True
    return False


_CODE_DENY = tuple(
    (why, re.compile(rx, re.M))
    for why, rx in (
        (
            RM,
            r"\brm\s+(?:-\S+\s+)*?(?:--no-preserve-root\b|(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)"
            r"\s+(?:-\S+\s+)*['\"]?(?:/+[\w.-]*/*\*?|~/?\*?|\$\{?HOME\}?/?\*?)['\"]?"
            r"(?=$|[\s;&|)]))",
        ),
        ("mkfs", r"\bmk(?:e2)?fs(?:\.\w+)?\b"),
        ("dd to a device", r"\bdd\b[^;&|\n]*\bof=/dev/(?!null\b|zero\b|stdout\b|stderr\b)"),
        ("a fork bomb", r":\s*\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}|\b(\w+)\s*\(\)\s*\{[^}]*\b\1\s*\|"),
        ("writing to a disk device", r">\s*/dev/(?:sd|hd|nvme|xvd|vd|disk|mmcblk)\w*"),
        (CHMOD, r"\bch(?:mod|own|grp)\s+(?:-\S+\s+)*-\w*R\w*\s+(?:\S+\s+)?/(?=$|\s)"),
        (
            SHUTDOWN,
            r"(?:^|[;&|(]\s*|\b(?:sudo|exec|then|do|else)\s+)(?:shutdown|reboot|halt|poweroff)\b",
        ),
    )
)


def denied_code(text: str) -> str:
    """Why code a shell or interpreter runs is on the deny list ("" when it is not)."""
    return next((why for why, rx in _CODE_DENY if rx.search(text)), "")
