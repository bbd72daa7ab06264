"""Permission rules: parse `tool`, `tool(specifier)`, `mcp__server`; compile once; match.

What a specifier means follows from what the tool's calls act on (its record's `target`):
- a command (bash): exact (`git status`) or a prefix of whole words (`npm test:*`, or
  `npm test *`). Matched per simple command on the words as the shell will see them.
- a file or a folder (read_file, write_file, edit_file, glob, grep): a path glob (`src/**`,
  `*.py`, `/tmp/**`, `~/notes/**`). Relative patterns are taken from the workspace root; a
  pattern without `/` matches at any depth (`*.py` = `**/*.py`). Matched against the resolved
  path.
- a URL (web_fetch): `domain:docs.python.org` matches exactly that host; `domain:*.python.org`
  matches its subdomains (not python.org itself). Exact by default so that allowing one host
  never allows a neighbour on a shared domain.
- an action (run_action): an action id (`run_action(smoke)`) or a glob of ids (`test-*`).
- mcp tools: `mcp__server` covers every tool of the server, `mcp__server__tool` one tool.
A tool's other names on its record (Claude Code's Bash, Read, Write, Edit…) name it too, case
aside. Rules are compiled against a Vocabulary of the registry; a specifier of a tool it does
not know is kept as text: it never allows, and still denies or asks.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent.base.record import Tool
from agent.permissions.paths import Workspace, within

LISTS = ("neverAllow", "ask", "alwaysAllow")


# The three lists a rule sits in (neverAllow, ask, alwaysAllow), as RuleSet names them
RuleKind = Literal["deny", "ask", "allow"]


@dataclass(frozen=True)
class Vocabulary:
    """What rules need to know of the tool registry: every name a tool goes by, and what its
    calls act on (which says how a specifier reads). Hashable: compiled rule sets are cached."""

    names: tuple[tuple[str, str], ...] = ()  # (lower-case name or alias, tool name)
    targets: tuple[tuple[str, str], ...] = ()  # (tool name, Target.what)

    @classmethod
    def of(cls, tools: Iterable[Tool]) -> Vocabulary:
        names: dict[str, str] = {}
        targets: list[tuple[str, str]] = []
        for t in tools:
            for n in (t.name, *t.aliases):
                names.setdefault(n.lower(), t.name)
            if t.target is not None:
                targets.append((t.name, t.target.what))
        return cls(tuple(sorted(names.items())), tuple(sorted(targets)))

    @functools.cached_property
    def _by_name(self) -> dict[str, str]:
        return dict(self.names)

    @functools.cached_property
    def _by_tool(self) -> dict[str, str]:
        return dict(self.targets)

    def tool(self, name: str) -> str:
        """Our name for `name` (an alias, any case); `name` itself when it names none."""
        return self._by_name.get(name.lower(), name)

    def target(self, tool: str) -> str:
        return self._by_tool.get(tool, "")


_RULE = re.compile(r"\s*([A-Za-z0-9_\-*]+)\s*(?:\((.*)\))?\s*", re.S)


@dataclass(frozen=True)
class Rule:
    """One compiled rule; `spec` None means the whole tool."""

    text: str
    tool: str
    spec: str | None = None
    words: tuple[str, ...] = ()  # a command tool's
    prefix: bool = False  # a command tool's
    path: Any = None  # compiled path matcher (file and folder tools)
    pattern: str = ""  # the absolute path pattern it matches (file and folder tools)
    domain: str = ""  # a URL tool's; leading "*." = subdomains
    valid: bool = True

    def covers_tool(self, name: str) -> bool:
        if self.tool == name:
            return True
        if self.tool.startswith("mcp__") and name.startswith(self.tool + "__"):
            return True
        return "*" in self.tool and re.fullmatch(self.tool.replace("*", ".*"), name) is not None


@dataclass
class RuleSet:
    """The three rule lists compiled for one workspace; `bad` lists rules that did not parse."""

    deny: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    allow: list[Rule] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)
    anchor: Path | None = None  # where relative path rules start: the project root
    _cache: dict[tuple[RuleKind, str], list[Rule]] = field(default_factory=dict, repr=False)
    _first: dict[str, dict[str, list[Rule]]] = field(default_factory=dict, repr=False)

    def for_tool(self, kind: RuleKind, name: str) -> list[Rule]:
        """The rules of one list that cover a tool (memoised: the set never changes)."""
        key = (kind, name)
        hit = self._cache.get(key)
        if hit is None:
            rules = {"deny": self.deny, "ask": self.ask, "allow": self.allow}[kind]
            hit = self._cache[key] = [r for r in rules if r.covers_tool(name)]
        return hit

    def command_allow(self, tool: str, first: str) -> list[Rule]:
        """Allow rules of a command tool whose first word is `first` (bare rules included)."""
        by_first = self._first.get(tool)
        if by_first is None:
            by_first = self._first[tool] = {}
            for r in self.for_tool("allow", tool):
                by_first.setdefault(r.words[0] if r.words else "", []).append(r)
        return by_first.get(first, []) + by_first.get("", [])


def parse_rule(text: str, ws: Workspace, vocab: Vocabulary | None = None) -> Rule:
    """Compile one rule; an unparseable rule comes back with valid=False."""
    m = _RULE.fullmatch(text)
    if not m:
        return Rule(text, "", valid=False)
    tool, spec = m.group(1), m.group(2)
    vocab = vocab or Vocabulary()
    tool = vocab.tool(tool) if not tool.startswith("mcp__") else tool
    if spec is None or spec.strip() in ("", "*", "**"):
        return Rule(text, tool)
    spec = spec.strip()
    what = vocab.target(tool)
    if what == "command":
        return _command_rule(text, tool, spec)
    if what in ("file", "folder", "files"):
        pattern = absolute_pattern(spec, ws)
        return Rule(text, tool, spec, path=_path_matcher(pattern), pattern=pattern)
    if what == "url" and spec.startswith("domain:"):
        return Rule(text, tool, spec, domain=spec[len("domain:") :].strip().lower().rstrip("."))
    return Rule(text, tool, spec)  # unknown specifier: never allows, still denies/asks


def _command_rule(text: str, tool: str, spec: str) -> Rule:
    prefix = spec.endswith((":*", " *"))
    body = spec[:-2].rstrip() if prefix else spec
    try:
        words = tuple(shlex.split(body))
    except ValueError:
        return Rule(text, tool, spec, valid=False)
    if not words:
        return Rule(text, tool)
    return Rule(text, tool, spec, words, prefix)


def absolute_pattern(spec: str, ws: Workspace) -> str:
    """A path rule's specifier as an absolute path glob: `~/` from home, a relative one from
    the workspace root, a bare name at any depth, a folder (`dir/`) with everything below."""
    if spec.startswith("~/"):
        pattern = str(ws.home / spec[2:])
    elif spec.startswith("/"):
        pattern = spec
    else:
        rel = spec[2:] if spec.startswith("./") else spec
        rel = rel if "/" in rel.rstrip("/") else "**/" + rel
        pattern = str(ws.root / rel)
    if spec.endswith("/") or pattern.endswith("/"):  # a directory: everything below it
        pattern = pattern.rstrip("/") + "/**"
    return pattern


def read_denials(rs: RuleSet, readers: Iterable[str]) -> list[str]:
    """The absolute path patterns that deny rules forbid the reading tools `readers` (a bare
    rule, which forbids the whole tool, names no path)."""
    return list(
        dict.fromkeys(r.pattern for name in readers for r in rs.for_tool("deny", name) if r.pattern)
    )


def _path_matcher(pattern: str) -> Any:
    from wcmatch import glob

    flags = glob.GLOBSTAR | glob.DOTGLOB | glob.FORCEUNIX | glob.BRACE
    return glob.compile(
        [pattern, pattern.rstrip("*/") if pattern.endswith("/**") else pattern], flags=flags
    )


def dir_rules(
    tools: tuple[str, ...], path: Path, folder: bool, anchor: Path, home: Path
) -> list[str]:
    """`d` (remember this directory): the folder (`path` itself for a tool that searches
    folders, else its parent), relative to where rules start (the project root, where
    settings.local.json lives) so the rule means the same from any directory; never one
    holding all of home (`~`, `/`): then the file alone, or nothing for a search."""
    where = path if folder else path.parent
    if within(home, (where,)):
        return [] if folder else [f"{t}({literal(str(path))})" for t in tools]
    try:
        rel = where.relative_to(anchor).as_posix()
        spec = "**" if rel == "." else f"{literal(rel)}/**"
    except ValueError:
        spec = f"{literal(where.as_posix().rstrip('/'))}/**"
    return [f"{t}({spec})" for t in tools]


def literal(path: str) -> str:
    """`path` as a path pattern that matches it alone: a `[`, `*` or `{` in a name is escaped."""
    return re.sub(r"([*?\[\]{}\\])", r"\\\1", path)


def path_match(rule: Rule, path: Path | str) -> bool:
    return rule.path is not None and bool(rule.path.match(str(path)))


def action_match(rule: Rule, action_id: str) -> bool:
    """`run_action(id)`: the action id, exactly or as a glob (`run_action(docs-*)`)."""
    import fnmatch

    return rule.spec is not None and fnmatch.fnmatchcase(action_id, rule.spec)


def domain_match(rule: Rule, host: str) -> bool:
    d = rule.domain
    if not d or not host:
        return False
    if d.startswith("*."):
        return host.endswith(d[1:])
    return host == d


def words_match(rule: Rule, argv: list[str | None], *, for_deny: bool) -> str:
    """'yes', 'maybe' (a run-time word could make it match) or 'no'."""
    if not rule.words:
        return "yes"
    if not argv:
        return "no"
    name = argv[0]
    if for_deny and name is not None:
        name = name.rsplit("/", 1)[-1]  # /usr/bin/curl and ./curl are curl to a deny rule
    words = [name, *argv[1:]]
    if not rule.prefix and len(words) != len(rule.words):
        return "maybe" if for_deny and None in words else "no"
    if len(words) < len(rule.words):
        return "no"
    verdict = "yes"
    for want, got in zip(rule.words, words, strict=False):
        if got is None:
            verdict = "maybe"
        elif got != want:
            return "no"
    return verdict


@functools.lru_cache(maxsize=64)
def _compile_cached(key: tuple[tuple[str, ...], ...], ws: Workspace, vocab: Vocabulary) -> RuleSet:
    rs = RuleSet(anchor=ws.root)
    for kind, texts in zip(("deny", "ask", "allow"), key, strict=True):
        for text in texts:
            rule = parse_rule(text, ws, vocab)
            if rule.valid:
                getattr(rs, kind).append(rule)
            else:
                rs.bad.append(text)
    return rs


def compile_rules(rules: dict[str, Any], ws: Workspace, vocab: Vocabulary) -> RuleSet:
    """The settings' rule lists as a RuleSet (cached per content, workspace and registry)."""
    key = tuple(tuple(str(r) for r in rules.get(k, ())) for k in LISTS)
    return _compile_cached(key, ws, vocab)


def bad_rules(path: Path, data: dict[str, Any], root: Path, vocab: Vocabulary) -> list[str]:
    """One warning per rule in a settings file that does not parse: it would be ignored,
    and a mistyped neverAllow rule must not fail silently."""
    perms = data.get("permissions")
    if not isinstance(perms, dict):
        return []
    ws = Workspace.make(root)
    out = []
    for key in LISTS:
        texts = perms.get(key)
        for i, text in enumerate(texts if isinstance(texts, list) else []):
            if not isinstance(text, str) or not parse_rule(text, ws, vocab).valid:
                out.append(
                    f"{path}: permissions.{key}[{i}] {text!r} is not a rule (write Tool or "
                    "Tool(pattern), e.g. bash(npm test:*)); it is ignored"
                )
    return out
