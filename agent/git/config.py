"""git's config file syntax, read the way git 2.39 reads it (config.c `git_parse_source`).

Used to learn which repository-local settings would make git run a command (agent.git.safe), so
it has to see exactly the names git sees: `[core] fsmonitor = x` on one line, `[core
"x"]`-style subsections whose case matters, the legacy `[section.sub]` form whose case does
not, quotes, escapes and backslash-continued values, `;`/`#` comments, CRLF and a leading BOM.
Where git would stop with "bad config line", parsing stops too and `bad` says so.

`plain(name, value)` is the allow-list of settings a repository's own config may hold for git
to run in it without asking: see PLAIN.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

_SPACE = " \t\n\r"  # git's isspace (sane_ctype): no \v or \f
_ALPHA = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_KEYCHAR = _ALPHA | frozenset("0123456789-")
_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "\\": "\\", '"': '"'}


@dataclass
class Parsed:
    """Variables in file order: (name, value); value None for a bare `key` (boolean true)."""

    entries: list[tuple[str, str | None]] = field(default_factory=list)
    bad: bool = False  # git refuses this file


class _Reader:
    """git's get_next_char: CRLF reads as LF, and the end of the text as a final LF."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.eof = text, 0, False

    def next(self) -> str:
        if self.pos >= len(self.text):
            self.eof = True
            return "\n"
        c = self.text[self.pos]
        self.pos += 1
        if c == "\r" and self.text.startswith("\n", self.pos):
            self.pos += 1
            return "\n"
        return c


def parse(text: str) -> Parsed:
    out = Parsed()
    r = _Reader(text.removeprefix("\ufeff"))
    section, comment = "", False
    while True:
        c = r.next()
        if c == "\n":
            if r.eof:
                return out
            comment = False
        elif comment or c in _SPACE:
            continue
        elif c in "#;":
            comment = True
        elif c == "[":
            head = _section(r)
            if not head:
                break
            section = head + "."
        elif c in _ALPHA:
            entry = _variable(r, section + c.lower())
            if entry is None:
                break
            # git hands names and values on as C strings: a NUL ends them
            out.entries.append(
                (entry[0].split("\0")[0], None if entry[1] is None else entry[1].split("\0")[0])
            )
        else:
            break
    out.bad = True
    return out


def _section(r: _Reader) -> str:
    """`[name]`, `[name "sub"]` (sub kept as written) or `[name.sub]` (all lower case); "" bad."""
    name = ""
    while True:
        c = r.next()
        if r.eof:
            return ""
        if c == "]":
            return name
        if c in _SPACE:
            return _subsection(r, name, c)
        if c not in _KEYCHAR and c != ".":
            return ""
        name += c.lower()


def _subsection(r: _Reader, name: str, c: str) -> str:
    while True:
        if c == "\n":
            return ""
        c = r.next()
        if c not in _SPACE:
            break
    if c != '"':
        return ""
    sub = ""
    while True:
        c = r.next()
        if c == "\n":
            return ""
        if c == '"':
            break
        if c == "\\":
            c = r.next()
            if c == "\n":
                return ""
        sub += c
    return f"{name}.{sub}" if r.next() == "]" else ""


def _variable(r: _Reader, name: str) -> tuple[str, str | None] | None:
    """The rest of the name after its first letter, then `= value` or nothing; None: bad."""
    while True:
        c = r.next()
        if r.eof or c not in _KEYCHAR:
            break
        name += c.lower()
    while c in " \t":
        c = r.next()
    if c == "\n":
        return name, None
    if c != "=":
        return None
    value = _value(r)
    return None if value is None else (name, value)


def _value(r: _Reader) -> str | None:
    quote = comment = False
    out, spaces = "", 0
    while True:
        c = r.next()
        if c == "\n":
            return None if quote else out
        if comment:
            continue
        if c in _SPACE and not quote:
            spaces += 1 if out else 0  # leading blanks go, inner ones stay
            continue
        if not quote and c in "#;":
            comment = True
            continue
        out, spaces = out + " " * spaces, 0
        if c == "\\":
            c = r.next()
            if c == "\n":
                continue  # a continued line
            if c not in _ESCAPES:
                return None
            out += _ESCAPES[c]
        elif c == '"':
            quote = not quote
        else:
            out += c


def split(name: str) -> tuple[str, str | None, str]:
    """(section, subsection or None, key) of a variable name as git splits it."""
    section, _, rest = name.partition(".")
    sub, dot, key = rest.rpartition(".")
    return section, (sub if dot else None), key


def plain(name: str, value: str | None) -> bool:
    """Whether this setting is on the allow-list (a name in PLAIN, with a value it accepts)."""
    section, sub, key = split(name)
    check = PLAIN.get(f"{section}.{key}" if sub is None else f"{section}.*.{key}")
    return check is not None and check(value)


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
PLAIN_SCHEMES = frozenset({"https", "http", "ssh", "git", "file", "git+ssh", "ssh+git"})


def plain_url(value: str | None) -> bool:
    """A URL git contacts with its own transports: https, http, ssh, git, file, scp-like
    `user@host:path` or a local path. Never `<helper>::…` (`ext::` runs any command, `fd::`…)
    or an unknown `<scheme>://`, which git hands to a `git-remote-<scheme>` helper."""
    if not value or value.startswith("-") or "::" in value or "\n" in value:
        return False
    scheme = _SCHEME.match(value)
    return scheme is None or scheme.group(1).lower() in PLAIN_SCHEMES


def _any(value: str | None) -> bool:
    return True


def _false(value: str | None) -> bool:
    return value is not None and value.strip().lower() in ("false", "no", "off", "0")


# What `git init` (also --shared), `git clone` (--bare, --mirror, --recurse-submodules), `git
# submodule`, `git remote`, `git branch -u`, `git sparse-checkout`, `git maintenance register`
# and `git config user.*` write, and a few preferences: nothing here names a program, a helper,
# a hook directory, a file to include or a remote transport git would run, and nothing makes a
# reading command fetch (no partial clone). A setting missing here costs one permission prompt;
# one wrongly here runs a stranger's command.
PLAIN: dict[str, Callable[[str | None], bool]] = {
    "core.repositoryformatversion": lambda v: (v or "").strip() in ("0", "1"),
    **dict.fromkeys(
        (
            "core.filemode",
            "core.bare",
            "core.logallrefupdates",
            "core.ignorecase",
            "core.precomposeunicode",
            "core.symlinks",
            "core.autocrlf",
            "core.eol",
            "core.safecrlf",
            "core.worktree",  # followed by the scan (agent.git.safe) like git follows it
            "core.sparsecheckout",
            "core.sparsecheckoutcone",
            "core.untrackedcache",
            "core.sharedrepository",  # git init --shared, with receive.denynonfastforwards
            "receive.denynonfastforwards",
            "maintenance.auto",  # git maintenance register
            "maintenance.strategy",
            "extensions.objectformat",
            "extensions.worktreeconfig",  # config.worktree is read whether or not it is set
            "user.name",
            "user.email",
            "init.defaultbranch",
            "pull.rebase",
            "pull.ff",
            "push.default",
            "push.autosetupremote",
            "fetch.prune",
            "submodule.active",
            "remote.*.fetch",
            "remote.*.push",
            "remote.*.tagopt",
            "remote.*.mirror",
            "remote.*.prune",
            "remote.*.gh-resolved",  # GitHub CLI's default-repository mark
            "branch.*.merge",
            "branch.*.rebase",
            "branch.*.description",
            "branch.*.vscode-merge-base",  # VS Code's
            "submodule.*.active",
            "submodule.*.branch",
        ),
        _any,
    ),
    "core.fsmonitor": _false,
    **dict.fromkeys(
        (
            "remote.*.url",
            "remote.*.pushurl",
            "branch.*.remote",  # a remote's name, or a URL
            "branch.*.pushremote",
            "submodule.*.url",
        ),
        plain_url,
    ),
}
