"""Front matter: the `---` block of YAML at the top of a Markdown file (skills, commands, agent
definitions), read by PyYAML (its safe base loader: every scalar stays text, no tags run).

Whatever YAML a file uses is read (block and flow lists, block scalars, nested and flow maps,
multi-line plain values) as strings, lists of strings and maps. What cannot be read is a
`FrontMatterError` naming the file's line, never a guess: a caller skips the file and says why.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any, Union

Value = Union[str, list[str], dict[str, "Value"]]  # noqa: UP007 (a runtime alias on 3.10)


class Flow(list[str]):
    """A `[a, b]` list, which also keeps the text it was written as: `argument-hint: [n]` is
    shown as written, `tools: [a, b]` read as names."""

    raw: str = ""


class FrontMatterError(ValueError):
    """Front matter that cannot be read; `line` is 1-based in the whole file."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}")
        self.line, self.problem = line, problem


def read_file(path: Path, max_bytes: int) -> str:
    """A small Markdown file's text: a regular file (after links) of at most `max_bytes` —
    a device or a pipe a link points to is never read. OSError says what is wrong."""
    real = path.resolve()
    if not real.is_file():
        raise OSError(f"not a regular file: {real}")
    with open(real, "rb") as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise OSError(f"over {max_bytes // 1000} KB")
    return data.decode("utf-8", errors="replace")


def split(text: str) -> tuple[dict[str, Value], str]:
    """(fields, body) of a Markdown file; ({}, the text) when it has no front matter.
    Raises FrontMatterError for a block that is opened and never closed, or cannot be read."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text.strip()
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        raise FrontMatterError(1, "the front matter opened with `---` is never closed")
    fields = parse(lines[1:end], first_line=2)
    return fields, "\n".join(lines[end + 1 :]).strip()


def parse(rows: list[str], first_line: int = 1) -> dict[str, Value]:
    """The map written in `rows` (YAML); `first_line`: the file's line of rows[0].

    A `key: value` line whose value is not valid YAML on its own (`argument-hint: [n] [m]`,
    `description: Fix: the bug`, as such files are written) is read as that text, the way the
    tools these files come from read it; any other mistake is an error naming its line."""
    import yaml  # deferred: ~15 ms: only when a skill, command or agent file is read

    rows, quoted = list(rows), set()
    while True:
        text = "\n".join(rows)
        try:
            node = yaml.compose(text, Loader=_loader())
            break
        except _Alias as e:  # ten lines of `*alias` references expand to millions of items
            raise FrontMatterError(first_line + e.line, "`*alias` is not supported here") from None
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            at = mark.line if mark else 0
            plain = _as_text(rows[at]) if at < len(rows) and at not in quoted else None
            if plain is None:
                raise FrontMatterError(first_line + at, _problem(e)) from None
            rows[at] = plain
            quoted.add(at)
        except yaml.YAMLError as e:
            raise FrontMatterError(first_line, f"YAML: {e}") from None
        except RecursionError:  # `[[[[…` thousands deep
            raise FrontMatterError(first_line, "nested too deeply") from None
    if node is None:
        return {}
    if node.id != "mapping":
        raise FrontMatterError(first_line + node.start_mark.line, "expected `key: value` lines")
    return _map(node, text, first_line)


class _Alias(Exception):
    def __init__(self, line: int) -> None:
        self.line = line


@functools.cache
def _loader() -> Any:
    """PyYAML's base loader (every scalar text, no tags run) that stops at an `*alias`."""
    import yaml  # deferred: see parse

    class Loader(yaml.BaseLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                raise _Alias(self.peek_event().start_mark.line)
            return super().compose_node(parent, index)

    return Loader


def _as_text(row: str) -> str | None:
    """`key: value` with the value single-quoted, when it is a plain one-line value."""
    m = _KEY_VALUE.fullmatch(row)
    if m is None or m.group(3)[:1] in ("'", '"', "|", ">", "&", "*", "!"):
        return None
    value = re.split(r"\s+#", m.group(3), maxsplit=1)[0].strip().replace("'", "''")
    return f"{m.group(1)}{m.group(2)}: '{value}'"


_KEY_VALUE = re.compile(r"( *)([A-Za-z_][\w.-]*)\s*:\s+(\S.*)")
# PyYAML's words for the mistakes people make, said the way a person fixes them
_PROBLEMS = {
    "could not find expected ':'": "expected `key: value`",
    "mapping values are not allowed here": "a `key:` indented more than it may be",
    "found unexpected end of stream": "a quoted value that does not close",
}


def _problem(e: Any) -> str:
    problem = str(e.problem or e.context or "not YAML")
    if "'\\t'" in problem:
        return "a tab in the indentation (use spaces)"
    said = _PROBLEMS.get(problem)
    detail = f"{problem} {e.context}" if e.context else problem
    return f"{said} (YAML: {detail})" if said else f"YAML: {detail}"


# The nodes below are PyYAML's, told apart by their `id`: "scalar", "sequence" or "mapping".


def _map(node: Any, text: str, first: int) -> dict[str, Value]:
    out: dict[str, Value] = {}
    for key_node, value_node in node.value:
        line = first + key_node.start_mark.line
        if key_node.id != "scalar":
            raise FrontMatterError(line, "a key must be a plain word")
        if key_node.value in out:
            raise FrontMatterError(line, f"the key {key_node.value!r} appears twice")
        out[key_node.value] = _value(value_node, text, first)
    return out


def _value(node: Any, text: str, first: int) -> Value:
    if node.id == "mapping":
        return _map(node, text, first)
    if node.id == "sequence":
        items = [_item(child, first) for child in node.value]
        if not node.flow_style:
            return items
        flow = Flow(items)
        flow.raw = text[node.start_mark.index : node.end_mark.index]
        return flow
    return str(node.value)


def _item(node: Any, first: int) -> str:
    """One list item as text: a nested list joined with commas; a map is refused."""
    if node.id == "mapping":
        raise FrontMatterError(
            first + node.start_mark.line, "a list of maps is not supported here; write plain items"
        )
    if node.id == "sequence":
        return ", ".join(_item(child, first) for child in node.value)
    return str(node.value)


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def text_of(value: Value | None) -> str:
    """A field as one string ('' when missing; a list joined with commas)."""
    if value is None or isinstance(value, dict):
        return ""
    if isinstance(value, Flow):
        return value.raw
    return ", ".join(value) if isinstance(value, list) else value.strip()


def names_of(value: Value | None) -> tuple[str, ...] | None:
    """A field listing names (`a, b`, `a b`, `[a, b]` or `- a` lines); None when missing."""
    if value is None or isinstance(value, dict):
        return None
    items = value if isinstance(value, list) else _split_names(value)
    return tuple(v for v in (_unquote(i) for i in items) if v)


def _split_names(text: str) -> list[str]:
    """`Read, Grep` or `Bash(git add:*) Read`: commas, or spaces outside parentheses."""
    if "," in text:
        return [part.strip() for part in _outside_parens(text, ",")]
    return [part for part in _outside_parens(text, " ") if part.strip()]


def _outside_parens(text: str, sep: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == sep and depth <= 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [*out, cur]
