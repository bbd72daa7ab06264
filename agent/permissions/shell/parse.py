"""Shell commands to simple commands, with a real parser (tree-sitter-bash).

`parse(text)` turns a command line into the simple commands it would run (argv words with their
literal values where the shell would not expand anything), the redirections, and the
constructs that make a static reading unreliable ("problems": command or process substitution,
arithmetic, function definitions, anything the parser itself marks as an error). A command with
problems can never be allowed by a rule; the commands inside a substitution are still listed so
that deny rules see them.

Why tree-sitter-bash rather than bashlex: it is maintained, parses in microseconds, imports in a
few milliseconds (bashlex builds its tables at import: ~70 ms), and knows `[[ ]]`, `case`,
`time` and friends that bashlex rejects. It is error-tolerant, so every ERROR/MISSING node is
treated as "does not parse".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


def words(text: str) -> frozenset[str]:
    """A set of names written as one space-separated string."""
    return frozenset(text.split())


# Nodes that only group other nodes: walk through them.
STRUCTURE = words(
    "program list pipeline redirected_statement negated_command subshell if_statement "
    "elif_clause else_clause while_statement for_statement do_group case_statement case_item "
    "compound_statement comment heredoc_start heredoc_end heredoc_content"
)
SUBSTITUTIONS = {
    "command_substitution": "command substitution",
    "process_substitution": "process substitution",
    "arithmetic_expansion": "arithmetic expansion",
    "function_definition": "a function definition",
    "c_style_for_statement": "an arithmetic for loop",
    "declaration_command": "export/declare/local",
    "unset_command": "unset",
}
WORDLIKE = words(
    "word string raw_string concatenation simple_expansion expansion number variable_name "
    "ansi_c_string translated_string extglob_pattern regex array"
)
REDIRECTS = ("file_redirect", "heredoc_redirect", "herestring_redirect")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # bash and the parser disagree on these (\r)
BRACE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")  # {a,b} and {1..3} expand; @{u} does not
_DIR_TILDE = re.compile(r"~([+-]\d*|\d+)(/|$)")  # ~+ ~- ~2: $PWD, $OLDPWD, the dir stack
_SIMPLE_EXPANSION = re.compile(r"^\$\{#?[A-Za-z_][A-Za-z0-9_]*\}$")
_PARSER: Any = None


@dataclass(frozen=True)
class Word:
    """One shell word: its value when static, None when it depends on run-time expansion."""

    value: str | None
    glob: bool = False  # unquoted * ? [ : the shell may expand it to file names
    raw: str = ""  # the source text of a word whose value is decided at run time

    @property
    def literal(self) -> bool:
        return self.value is not None


@dataclass
class Command:
    """A simple command: leading assignments, then argv (argv may be empty: `A=1`)."""

    argv: list[Word]
    assigns: list[tuple[str, Word]] = field(default_factory=list)
    nested: bool = False  # inside a substitution: listed for deny rules only


@dataclass(frozen=True)
class Redirect:
    op: str  # > >> &> &>> >| < <<< << >& <&
    target: Word

    @property
    def writes(self) -> bool:
        return ">" in self.op

    @property
    def fd_dup(self) -> bool:
        """`2>&1`, `>&2`, `<&0`, `>&-`: no file involved."""
        v = self.target.value
        return self.op in (">&", "<&") and v is not None and (v.isdigit() or v == "-")


@dataclass
class Parsed:
    """What a command line would run; `problems` non-empty means no rule may allow it."""

    text: str
    commands: list[Command] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    parsed: bool = True  # False: the parser rejected it (or it has control characters)


def _parser() -> Any:
    global _PARSER
    if _PARSER is None:
        import tree_sitter
        import tree_sitter_bash

        _PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return _PARSER


def parse(text: str) -> Parsed:
    """Parse one command line (never raises)."""
    out = Parsed(text)
    if _CONTROL.search(text):
        out.parsed = False
        out.problems.append("control characters in the command")
        return out
    try:
        tree = _parser().parse(text.encode("utf-8", "surrogateescape"))
    except Exception as e:  # a parser crash must not let anything through
        out.parsed = False
        out.problems.append(f"the shell parser failed: {e}")
        return out
    root = tree.root_node
    if root.has_error:
        out.parsed = False
        out.problems.append("the command does not parse as shell")
    _walk(root, out, nested=False)
    return out


def _text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", "surrogateescape")


def _walk(node: Any, out: Parsed, nested: bool) -> None:
    t = node.type
    if t == "command":
        _command(node, out, nested)
    elif t in REDIRECTS:
        _redirect(node, out, nested)
    elif t in ("variable_assignment", "variable_assignments"):
        _command(node, out, nested)  # `A=1` alone: a command with no argv
    elif t == "test_command":
        _test(node, out, nested)
    elif t in SUBSTITUTIONS:
        out.problems.append(SUBSTITUTIONS[t])
        for c in node.named_children:
            _walk(c, out, True)
    elif t == "compound_statement" and node.child_count and node.children[0].type == "((":
        out.problems.append("arithmetic evaluation")
    elif t in WORDLIKE:
        _word(node, out, nested)  # loop values, case patterns
    elif t in STRUCTURE or not node.is_named or t in ("ERROR", "heredoc_body"):
        for c in node.named_children:
            _walk(c, out, nested)
    else:
        out.problems.append(f"unsupported shell construct ({t})")
        for c in node.named_children:
            _walk(c, out, nested)


def _command(node: Any, out: Parsed, nested: bool) -> None:
    cmd = Command([], nested=nested)
    nodes = node.named_children if node.type != "variable_assignment" else [node]
    for c in nodes:
        t = c.type
        if t == "variable_assignment":
            name = c.child_by_field_name("name")
            value = c.child_by_field_name("value")
            word = _word(value, out, nested) if value is not None else Word("")
            cmd.assigns.append((_text(name) if name is not None else "", word))
        elif t == "variable_assignments":
            _command(c, out, nested)
        elif t == "command_name":
            cmd.argv.append(
                _word(c.named_children[0], out, nested) if c.named_children else Word(None)
            )
        elif t in REDIRECTS:
            _redirect(c, out, nested)
        elif t == "comment":
            continue
        else:
            cmd.argv.append(_word(c, out, nested))
    if not node.named_children or any(not c.is_named and c.type == "$" for c in node.children):
        cmd.argv.append(Word(None))  # `$"..."` and similar leave bare tokens: unknown
    out.commands.append(cmd)


def _redirect(node: Any, out: Parsed, nested: bool) -> None:
    op = next((_text(c) for c in node.children if not c.is_named), "")
    if node.type == "heredoc_redirect":
        for c in node.named_children:  # nested redirects and an unquoted body's substitutions
            if c.type != "heredoc_start":
                _walk(c, out, nested)
        return
    dest = node.child_by_field_name("destination")
    if node.type == "herestring_redirect":
        for c in node.named_children:
            _word(c, out, nested)
        return
    target = _word(dest, out, nested) if dest is not None else Word(None)
    out.redirects.append(Redirect(op, target))


def _test(node: Any, out: Parsed, nested: bool) -> None:
    """`[ ]` and `[[ ]]`: harmless tests, except `[[` arithmetic on expanded variables."""
    leaves: list[Any] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in SUBSTITUTIONS:
            _walk(n, out, nested)
            continue
        if n.type in ("simple_expansion", "expansion"):
            leaves.append(n)
        stack.extend(n.named_children)
    if leaves and node.children and node.children[0].type == "[[":
        out.problems.append("[[ ]] with expansions (arithmetic evaluation)")


def _word(node: Any, out: Parsed, nested: bool) -> Word:
    """The static value of a word node, recording substitutions found inside it."""
    t = node.type
    if t in ("word", "number", "variable_name"):
        return unquoted(_text(node))
    if t == "raw_string":
        return Word(_text(node)[1:-1])
    if t == "string":
        inner = [c for c in node.named_children if c.type != "string_content"]
        for c in inner:
            _word(c, out, nested)
        return Word(None, raw=_text(node)) if inner else Word(_dq_unescape(_text(node)[1:-1]))
    if t == "concatenation":
        return _concat(node, out, nested)
    if t == "expansion" and not _SIMPLE_EXPANSION.match(_text(node)):
        out.problems.append("parameter expansion with operators")
    if t in SUBSTITUTIONS:
        _walk(node, out, nested)
    else:
        for c in node.named_children:
            if c.type in SUBSTITUTIONS or c.named_child_count:
                _word(c, out, nested)
    return Word(None, raw=_text(node))


def _concat(node: Any, out: Parsed, nested: bool) -> Word:
    parts = [_word(c, out, nested) for c in node.named_children]
    if any(not c.is_named for c in node.children) or any(p.value is None for p in parts):
        return Word(None, raw=_text(node))
    bare = "".join(_text(c) for c in node.named_children if c.type == "word")
    if BRACE.search(bare):
        return Word(None, raw=_text(node))  # brace expansion turns one word into several
    return Word("".join(p.value or "" for p in parts), any(p.glob for p in parts))


def unquoted(raw: str) -> Word:
    """An unquoted word: backslashes removed; globs noted; brace expansion is not static."""
    if BRACE.search(raw) or _DIR_TILDE.match(raw):
        return Word(None, raw=raw)  # brace expansion makes several words; ~+ ~- ~1: other dirs
    out: list[str] = []
    glob = False
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            if raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
            continue
        glob = glob or ch in "*?["
        out.append(ch)
        i += 1
    return Word("".join(out), glob)


def _dq_unescape(s: str) -> str:
    """Inside double quotes a backslash only escapes $ ` " \\ and newline."""
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), s)
