"""Front matter: the `---` block of YAML at the top of a Markdown file (skills, commands, agent
definitions), read without a YAML library.

The subset read is what these files use: `key: value` (plain, 'single' or "double" quoted),
block scalars (`|`, `>`, with `-`/`+`), lists (`[a, b]` or `- item` lines) and nested maps
(indented keys, kept as a dict). Anything else is a `FrontMatterError` naming the line, never a
guess: a caller skips the file and says why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Union

Value = Union[str, list[str], dict[str, "Value"]]  # noqa: UP007 (a runtime alias on 3.10)
_KEY = re.compile(r"([A-Za-z_][\w.-]*)\s*:(?:\s+(.*)|\s*)$")
_ITEM = re.compile(r"-(?:\s+(.*)|\s*)$")


class Flow(list[str]):
    """A `[a, b]` list, which also keeps the text it was written as: `argument-hint: [n]` is
    shown as written, `tools: [a, b]` read as names."""

    raw: str = ""


class FrontMatterError(ValueError):
    """Front matter that cannot be read; `line` is 1-based in the whole file."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}")
        self.line, self.problem = line, problem


@dataclass
class _Lines:
    rows: list[str]
    first: int  # file line number of rows[0]
    at: int = 0

    def indent(self, i: int) -> int:
        row = self.rows[i]
        return len(row) - len(row.lstrip(" "))

    def blank(self, i: int) -> bool:
        text = self.rows[i].strip()
        return not text or text.startswith("#")

    def skip_blank(self) -> None:
        while self.at < len(self.rows) and self.blank(self.at):
            self.at += 1

    def fail(self, problem: str, i: int | None = None) -> FrontMatterError:
        return FrontMatterError(self.first + (self.at if i is None else i), problem)


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
    """The map written in `rows` (YAML subset above)."""
    for i, row in enumerate(rows):
        if row[: len(row) - len(row.lstrip(" \t"))].count("\t"):
            raise FrontMatterError(first_line + i, "a tab in the indentation (use spaces)")
    src = _Lines(rows, first_line)
    src.skip_blank()
    if src.at >= len(rows):
        return {}
    out = _map(src, src.indent(src.at))
    src.skip_blank()
    if src.at < len(rows):
        raise src.fail("indented less than the keys before it, or more than it may be")
    return out


def _map(src: _Lines, indent: int) -> dict[str, Value]:
    out: dict[str, Value] = {}
    while True:
        src.skip_blank()
        if src.at >= len(src.rows) or src.indent(src.at) != indent:
            return out
        m = _KEY.match(src.rows[src.at].strip())
        if not m:
            raise src.fail(f"expected `key: value`, found {src.rows[src.at].strip()!r}")
        key, rest = m.group(1), (m.group(2) or "").strip()
        if key in out:
            raise src.fail(f"the key {key!r} appears twice")
        src.at += 1
        out[key] = _value(src, rest, indent, src.at - 1)


def _value(src: _Lines, rest: str, indent: int, row: int) -> Value:
    """The value after `key:` (`rest`, on `row`), with the deeper lines that belong to it."""
    if rest[:1] in ("|", ">") and re.fullmatch(r"[|>][-+]?", _strip_comment(rest)):
        return _block(src, _strip_comment(rest), indent)
    if rest and not rest.startswith("#"):
        return _scalar(src, rest, row)
    src.skip_blank()
    if src.at >= len(src.rows):
        return ""
    deeper = src.indent(src.at)
    text = src.rows[src.at].strip()
    if text.startswith("-") and _ITEM.match(text) and deeper >= indent:
        return _list(src, deeper)
    if deeper > indent:
        return _map(src, deeper)
    return ""


def _list(src: _Lines, indent: int) -> list[str]:
    out: list[str] = []
    while True:
        src.skip_blank()
        if src.at >= len(src.rows) or src.indent(src.at) != indent:
            return out
        m = _ITEM.match(src.rows[src.at].strip())
        if not m:
            return out
        item = (m.group(1) or "").strip()
        if _KEY.match(item) and not item.startswith(("'", '"')):
            raise src.fail("a list of maps is not supported here; write plain items")
        src.at += 1
        value = _scalar(src, item, src.at - 1) if item else ""
        out.append(", ".join(value) if isinstance(value, list) else str(value))


def _block(src: _Lines, style: str, indent: int) -> str:
    """A `|` (lines kept) or `>` (lines folded) scalar; `-` strips the final newline."""
    rows: list[str] = []
    body_indent: int | None = None
    while src.at < len(src.rows):
        row = src.rows[src.at]
        if row.strip():
            here = src.indent(src.at)
            if here <= indent:
                break
            body_indent = here if body_indent is None else body_indent
            if here < body_indent:
                raise src.fail("a block scalar's line is indented less than its first line")
            rows.append(row[body_indent:])
        else:
            rows.append("")
        src.at += 1
    while rows and not rows[-1]:
        rows.pop()
    if style.startswith(">"):
        text = re.sub(r"(?<=\S)\n(?=\S)", " ", "\n".join(rows))
    else:
        text = "\n".join(rows)
    return text if style.endswith("-") else text + "\n" if text else ""


def _scalar(src: _Lines, text: str, row: int) -> Value:
    """A one-line value: quoted, a `[flow, list]`, or plain (a trailing ` # comment` dropped)."""
    if text.startswith('"'):
        try:
            value, end = json.JSONDecoder().raw_decode(text)
        except ValueError:
            raise src.fail("a double-quoted value that does not close on its line", row) from None
        _only_comment(src, text[end:], row)
        return str(value)
    if text.startswith("'"):
        m = re.match(r"'((?:[^']|'')*)'", text)
        if not m:
            raise src.fail("a single-quoted value that does not close on its line", row)
        _only_comment(src, text[m.end() :], row)
        return m.group(1).replace("''", "'")
    if text.startswith("["):
        inner = _strip_comment(text)
        if not inner.endswith("]"):
            raise src.fail("a `[` list that does not close on its line", row)
        flow = Flow(_unquote(v) for v in inner[1:-1].split(",") if v.strip())
        flow.raw = inner
        return flow
    if text.startswith("{"):
        raise src.fail("`{...}` maps are not supported here; write indented keys", row)
    return _strip_comment(text)


def _only_comment(src: _Lines, rest: str, row: int) -> None:
    if rest.strip() and not rest.strip().startswith("#"):
        raise src.fail(f"unexpected text after a quoted value: {rest.strip()!r}", row)


def _strip_comment(text: str) -> str:
    return re.split(r"\s+#", text, maxsplit=1)[0].strip()


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
