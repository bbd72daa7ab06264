"""Gitignore rules as ripgrep reads them, for the pure-Python search fallback.

The rules follow ripgrep's `ignore` crate so that both backends see the same files: a pattern
without a slash matches at any depth, a leading slash anchors it, a trailing slash limits it to
directories, `!` re-includes, the last matching line wins, `*`/`?` never cross `/`, `**` spans
directories only as a whole path component, and `{a,b}` alternates (as ripgrep, unlike git).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


def _class(glob: str, i: int) -> tuple[str, int] | None:
    """A `[...]` class starting at glob[i] as a regex class, and the index after it."""
    j = i + 1
    negate = j < len(glob) and glob[j] in "!^"
    if negate:
        j += 1
    start = j
    if j < len(glob) and glob[j] == "]":  # a leading ] is literal
        j += 1
    while j < len(glob) and glob[j] != "]":
        j += 1
    if j >= len(glob):
        return None  # unclosed: the [ is a literal (ripgrep's allow_unclosed_class)
    body = "".join("\\" + c if c in "\\^[]" else c for c in glob[start:j])
    return f"[{'^' if negate else ''}{body}]", j + 1


def _star(glob: str, i: int, depth: int) -> tuple[str, int]:
    """Translate `*` or `**` at glob[i]; `**` is recursive only as a whole path component."""
    if not glob.startswith("**", i):
        return "[^/]*", i + 1
    prev = glob[i - 1] if i else ""
    nxt = glob[i + 2] if i + 2 < len(glob) else ""
    opens = i == 0 or prev == "/" or (depth > 0 and prev in "{,")
    closes = nxt in ("", "/") or (depth > 0 and nxt in ",}")
    if not (opens and closes):
        return "[^/]*", i + 2
    if nxt == "/":
        return "(?:.*/)?", i + 3  # `**/`: zero or more directories
    return ".*", i + 2  # trailing `**`: everything below


def translate(glob: str) -> str:
    """A glob (globset syntax, literal separators, backslash escapes) as a regex body."""
    out: list[str] = []
    i, depth = 0, 0
    while i < len(glob):
        c = glob[i]
        if c == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        elif c == "*":
            piece, i = _star(glob, i, depth)
            out.append(piece)
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and (found := _class(glob, i)):
            out.append(found[0])
            i = found[1]
        elif c == "{":
            depth += 1
            out.append("(?:")
            i += 1
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
            i += 1
        elif c == "," and depth:
            out.append("|")
            i += 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out) + ")" * depth


@dataclass(frozen=True)
class Rule:
    regex: re.Pattern[str]
    whitelist: bool
    only_dir: bool


def parse_line(line: str) -> Rule | None:
    """One gitignore line as a rule, following ripgrep's GitignoreBuilder::add_line."""
    if line.startswith("#"):
        return None
    if not line.endswith("\\ "):
        line = line.rstrip()
    if not line:
        return None
    whitelist = absolute = only_dir = False
    if line.startswith(("\\!", "\\#")):
        line = line[1:]
        absolute = line.startswith("/")
    else:
        if line.startswith("!"):
            whitelist, line = True, line[1:]
        if line.startswith("/"):
            absolute, line = True, line[1:]
    if line.endswith("/"):
        only_dir, line = True, line[:-1]
        if line.endswith("\\"):
            line = line[:-1]
    if not absolute and "/" not in line and not (line == "**" or line.startswith("**/")):
        line = "**/" + line
    if line.endswith("/**"):
        line += "/*"  # everything inside the directory, not the directory itself
    try:
        regex = re.compile(translate(line))
    except re.error:
        return None  # ripgrep skips a glob it cannot parse
    return Rule(regex, whitelist, only_dir)


class IgnoreRules:
    """The rules of one ignore file (or one override set); the last matching rule wins."""

    def __init__(self, lines: Iterable[str]) -> None:
        rules = [parse_line(line) for line in lines]
        self.rules = [r for r in rules if r is not None]
        self.whitelists = sum(1 for r in self.rules if r.whitelist)
        # One combined regex answers "does anything match?" in C for the common no-match case.
        joined = "|".join(f"(?:{r.regex.pattern})" for r in self.rules)
        self.any = re.compile(joined) if self.rules else None

    @classmethod
    def from_file(cls, path: str) -> IgnoreRules | None:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            return None
        rules = cls(text.removeprefix("\ufeff").splitlines())
        return rules if rules.rules else None

    def match(self, rel: str, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included (`!`); None: no rule matches `rel`."""
        if self.any is None or not self.any.fullmatch(rel):
            return None
        for rule in reversed(self.rules):
            if (is_dir or not rule.only_dir) and rule.regex.fullmatch(rel):
                return not rule.whitelist
        return None
