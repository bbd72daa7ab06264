"""Gitignore rules as ripgrep reads them, for the pure-Python search fallback and the agent's
ignore files: pathspec's "gitignore" pattern turns each glob into a regex (`*`, `?`, `**`,
classes, escapes); this module reads the lines around it as ripgrep's `ignore` crate does (`#`,
`!`, a leading or middle slash anchors, a trailing one means directories only, the last matching
line wins) and, where ripgrep differs from git, as ripgrep: `{a,b}` alternates, and `dir/**`
matches what lies inside dir but not dir itself. A path is matched by itself, not through its
parents as pathspec's PathSpec does: the walker never enters an ignored directory, and one that
a `!` or a higher-precedence file re-included must not hide what lies inside it.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass

MAX_GLOBS = 1024  # a line whose `{a,b}` groups spell out more is skipped
_ANY_DEPTH = "(?:.+/)?"  # how pathspec starts the regex of a pattern matching at any depth
# escapes, closed classes (a `{` inside is a literal), literal runs, anything else
_TOKEN = re.compile(r"\\.|\[[!^]?\]?[^]]*\]|[^\\[{},]+|.", re.S)


def compile_any(sources: list[str]) -> re.Pattern[str] | None:
    """One regex matching what any of `sources` matches; None for none. Python warns about a
    class like `[[]` or `[*--]` that a later version may read differently: ripgrep and
    today's Python read it alike, and the user need not see that."""
    if not sources:
        return None
    joined = sources[0] if len(sources) == 1 else "|".join(f"(?:{s})" for s in sources)
    if not any(s in joined for s in ("[[", "--", "&&", "~~", "||")):
        return re.compile(joined)  # the common case, without the cost of catch_warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile(joined)


def _spell(tokens: list[str], i: int = 0, nested: bool = False) -> tuple[list[str], int]:
    """The globs that `{a,b}` groups in tokens[i:] make, up to the `,` or `}` that ends an
    alternative when `nested`, and where that is. ValueError for an unbalanced brace."""
    found = [""]
    while i < len(tokens) and not (nested and tokens[i] in (",", "}")):
        if tokens[i] == "}":
            raise ValueError("unopened }")
        if tokens[i] != "{":
            found, i = [f + tokens[i] for f in found], i + 1
            continue
        alternatives: list[str] = []
        while i < len(tokens) and tokens[i] in ("{", ","):
            more, i = _spell(tokens, i + 1, True)
            alternatives += more
        if i == len(tokens):
            raise ValueError("unclosed {")
        # as ripgrep: an empty alternative is dropped, unless all are (`{,a}` is `a`)
        found = [f + a for f in found for a in [a for a in alternatives if a] or [""]]
        i += 1
        if len(found) > MAX_GLOBS:
            raise ValueError("too many alternatives")
    return found, i


@dataclass(frozen=True)
class Rule:
    regex: re.Pattern[str]  # fullmatch over the path relative to the rules' directory
    whitelist: bool
    only_dir: bool
    name: str | None = None  # a regex over the path's last part, when that alone decides


def _rule(glob: str, whitelist: bool, only_dir: bool) -> Rule | None:
    """One glob (anchored by a leading `/`, or starting `**/`) as a rule."""
    from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern  # ~10 ms: when used

    if glob.endswith("/**"):
        glob += "/*"  # inside the directory, not the directory itself (as ripgrep)
    try:
        source = GitIgnoreBasicPattern.pattern_to_regex(glob)[0]
        if source is None:
            return None
        # the regex is for `search`, anchored by a ^; one matching every path has none
        source = source[1:] if source.startswith("^") else f".*(?:{source})"
        regex = compile_any([source])
    except (ValueError, re.error):
        return None  # a dangling `\` or a bad range: ripgrep skips the line too
    assert regex is not None
    # at any depth and without a class (which might match a `/`): the name alone decides
    named = not glob.startswith("/") and "[" not in glob and source.startswith(_ANY_DEPTH)
    return Rule(regex, whitelist, only_dir, source[len(_ANY_DEPTH) :] if named else None)


@functools.lru_cache(maxsize=4096)  # the same lines recur in the ignore files of a tree
def parse_line(line: str) -> tuple[Rule, ...]:
    """One gitignore line as rules (one per `{a,b}` alternative), as ripgrep's
    GitignoreBuilder::add_line reads it."""
    if line.startswith("#"):
        return ()
    if not line.endswith("\\ "):
        line = line.rstrip()
    whitelist = line.startswith("!")  # `\!` and `\#` stay escaped: pathspec reads literals
    line = line[1:] if whitelist else line
    only_dir = line.endswith("/")
    if only_dir:
        line = line[:-1].removesuffix("\\")  # an escaped trailing slash too
    anchored = "/" in line  # a leading or middle slash: relative to the file's directory
    # pathspec splits at every `/`, an escaped one too
    tokens = [("/" if t == "\\/" else t) for t in _TOKEN.findall(line.removeprefix("/"))]
    try:
        globs = _spell(tokens)[0]
    except (ValueError, RecursionError):
        return ()  # ripgrep skips a glob it cannot parse
    rules = (_rule(("/" if anchored else "**/") + g, whitelist, only_dir) for g in globs if g)
    return tuple(rule for rule in rules if rule is not None)


class IgnoreRules:
    """The rules of one ignore file (or one override set); the last matching rule wins."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.rules = [rule for line in lines for rule in parse_line(line)]
        self.whitelists = sum(1 for r in self.rules if r.whitelist)
        # One combined regex answers "does anything match?" in C for the common no-match case.
        self.any = compile_any([r.regex.pattern for r in self.rules])

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
