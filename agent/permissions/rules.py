"""Permission rules: parse `tool`, `tool(specifier)`, `mcp__server`; compile once; match.

Specifiers by tool:
- bash: a command, exact (`git status`) or a prefix of whole words (`npm test:*`, or
  `npm test *`). Matched per simple command on the words as the shell will see them.
- read_file, write_file, edit_file, glob, grep: a path glob (`src/**`, `*.py`, `/tmp/**`,
  `~/notes/**`). Relative patterns are taken from the workspace root; a pattern without `/`
  matches at any depth (`*.py` = `**/*.py`). Matched against the resolved path.
- web_fetch: `domain:docs.python.org` matches exactly that host; `domain:*.python.org` matches
  its subdomains (not python.org itself). Exact by default so that allowing one host never
  allows a neighbour on a shared domain.
- mcp tools: `mcp__server` covers every tool of the server, `mcp__server__tool` one tool.
- run_action: an action id (`run_action(smoke)`) or a glob of ids (`run_action(test-*)`).
Claude Code's tool names (Bash, Read, Write, Edit, Glob, Grep, WebFetch, WebSearch) are
accepted as aliases.
"""

from __future__ import annotations

import functools
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.permissions.paths import Workspace

FILE_TOOLS = frozenset({"read_file", "write_file", "edit_file", "glob", "grep"})
LISTS = ("neverAllow", "ask", "alwaysAllow")
ALIASES = {
    "bash": "bash",
    "read": "read_file",
    "write": "write_file",
    "edit": "edit_file",
    "multiedit": "edit_file",
    "glob": "glob",
    "grep": "grep",
    "webfetch": "web_fetch",
    "websearch": "web_search",
    "ls": "glob",
}
_RULE = re.compile(r"\s*([A-Za-z0-9_\-*]+)\s*(?:\((.*)\))?\s*", re.S)


@dataclass(frozen=True)
class Rule:
    """One compiled rule; `spec` None means the whole tool."""

    text: str
    tool: str
    spec: str | None = None
    words: tuple[str, ...] = ()  # bash
    prefix: bool = False  # bash
    path: Any = None  # compiled path matcher (file tools)
    domain: str = ""  # web_fetch; leading "*." = subdomains
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
    _cache: dict[tuple[str, str], list[Rule]] = field(default_factory=dict, repr=False)
    _first: dict[str, list[Rule]] | None = field(default=None, repr=False)

    def for_tool(self, kind: str, name: str) -> list[Rule]:
        """The rules of one list that cover a tool (memoised: the set never changes)."""
        key = (kind, name)
        hit = self._cache.get(key)
        if hit is None:
            rules: list[Rule] = getattr(self, kind)
            hit = self._cache[key] = [r for r in rules if r.covers_tool(name)]
        return hit

    def bash_allow(self, first: str) -> list[Rule]:
        """Allow rules for bash whose first word is `first` (bare `bash` rules included)."""
        if self._first is None:
            self._first = {}
            for r in self.for_tool("allow", "bash"):
                self._first.setdefault(r.words[0] if r.words else "", []).append(r)
        return self._first.get(first, []) + self._first.get("", [])

    def has_bash_deny(self) -> bool:
        return any(r.tool == "bash" for r in self.deny)


def parse_rule(text: str, ws: Workspace) -> Rule:
    """Compile one rule; an unparseable rule comes back with valid=False."""
    m = _RULE.fullmatch(text)
    if not m:
        return Rule(text, "", valid=False)
    tool, spec = m.group(1), m.group(2)
    tool = ALIASES.get(tool.lower(), tool) if not tool.startswith("mcp__") else tool
    if spec is None or spec.strip() in ("", "*", "**"):
        return Rule(text, tool)
    spec = spec.strip()
    if tool == "bash":
        return _bash_rule(text, spec)
    if tool in FILE_TOOLS:
        return Rule(text, tool, spec, path=_path_matcher(spec, ws))
    if tool == "web_fetch" and spec.startswith("domain:"):
        return Rule(text, tool, spec, domain=spec[len("domain:") :].strip().lower().rstrip("."))
    return Rule(text, tool, spec)  # unknown specifier: never allows, still denies/asks


def _bash_rule(text: str, spec: str) -> Rule:
    prefix = spec.endswith((":*", " *"))
    body = spec[:-2].rstrip() if prefix else spec
    try:
        words = tuple(shlex.split(body))
    except ValueError:
        return Rule(text, "bash", spec, valid=False)
    if not words:
        return Rule(text, "bash")
    return Rule(text, "bash", spec, words, prefix)


def _path_matcher(spec: str, ws: Workspace) -> Any:
    from wcmatch import glob

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
    flags = glob.GLOBSTAR | glob.DOTGLOB | glob.FORCEUNIX | glob.BRACE
    return glob.compile(
        [pattern, pattern.rstrip("*/") if pattern.endswith("/**") else pattern], flags=flags
    )


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
def _compile_cached(key: tuple[tuple[str, ...], ...], ws: Workspace) -> RuleSet:
    rs = RuleSet(anchor=ws.root)
    for kind, texts in zip(("deny", "ask", "allow"), key, strict=True):
        for text in texts:
            rule = parse_rule(text, ws)
            if rule.valid:
                getattr(rs, kind).append(rule)
            else:
                rs.bad.append(text)
    return rs


def compile_rules(rules: dict[str, Any], ws: Workspace) -> RuleSet:
    """The settings' rule lists as a RuleSet (cached per content and workspace)."""
    key = tuple(tuple(str(r) for r in rules.get(k, ())) for k in LISTS)
    return _compile_cached(key, ws)


def bad_rules(path: Path, data: dict[str, Any], root: Path) -> list[str]:
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
            if not isinstance(text, str) or not parse_rule(text, ws).valid:
                out.append(
                    f"{path}: permissions.{key}[{i}] {text!r} is not a rule (write Tool or "
                    "Tool(pattern), e.g. bash(npm test:*)); it is ignored"
                )
    return out
