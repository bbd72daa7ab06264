"""sed and awk programs: whether a script given to a read-only command stays read-only.

sed is safe when its script only prints, deletes or substitutes in memory (no `e`, `w`, `r`,
`-i`, `-f`); awk when its program has no `system()`, pipes, redirections, `getline` or loaded
code. Used by shellrisk.escape.
"""

from __future__ import annotations

import re

from agent.permissions.shell.parse import words

_SED_FLAGS = frozenset("nsEruz")
_SED_LONG_FLAGS = words(
    "--quiet --silent --regexp-extended --separate --unbuffered --null-data --posix --debug "
    "--sandbox --follow-symlinks --help --version"
)


def sed_escape(args: list[str | None]) -> str:
    """Why a sed invocation edits files, reads a script or runs commands ("" when it does not).

    Options are read the way GNU sed reads them, so that an option's value (`-l 5`) is never
    taken for the script and every `-e` script is checked."""
    scripts: list[str] = []
    given_e, ended, i = False, False, 0
    while i < len(args):
        a = args[i]
        i += 1
        if a is None:
            return "sed with arguments decided at run time"
        if ended or a == "-" or not a.startswith("-"):
            if not given_e and not scripts:
                scripts.append(a)  # the first operand is the script unless -e gave one
            continue
        if a == "--":
            ended = True
        elif a.startswith("--"):
            name, eq, value = a.partition("=")
            if name == "--expression":
                given_e = True
                scripts.append(value if eq else (args[i] or "") if i < len(args) else "")
                i += 0 if eq else 1
            elif name == "--line-length":
                i += 0 if eq else 1
            elif name not in _SED_LONG_FLAGS:
                return f"sed {name} edits files, reads a script or is unknown"
        else:
            for j, letter in enumerate(a[1:], 1):
                if letter in ("e", "l"):
                    rest = a[j + 1 :]
                    if not rest:
                        rest = (args[i] or "") if i < len(args) else ""
                        i += 1
                    if letter == "e":
                        given_e = True
                        scripts.append(rest)
                    break
                if letter not in _SED_FLAGS:
                    return f"sed -{letter} edits files, reads a script or is unknown"
    bad = next((s for s in scripts if not sed_script_safe(s)), None)
    return "" if bad is None else "sed script writes files or runs commands (e/w/r)"


_SED_ADDR = re.compile(
    r"\s*(\d+|\$|/(?:[^/\\]|\\.)*/I?|\\(.)(?:(?!\2).|\\.)*\2)?"
    r"(\s*,\s*(\d+|\$|/(?:[^/\\]|\\.)*/I?|[+~]\d+))?\s*!?\s*"
)


def sed_script_safe(script: str) -> bool:
    """True for scripts made only of commands that print, delete or substitute in memory."""
    i, n = 0, len(script)
    while i < n:
        m = _SED_ADDR.match(script, i)
        i = m.end() if m else i
        if i >= n:
            break
        c = script[i]
        if c in ";\n{}pdDnNgGhHxlPqQz=":
            i += 1
        elif c in "sy":
            end = _after_delims(script, i + 1, 3 if c == "s" else 2)
            if end < 0:
                return False
            flags = re.match(r"[0-9gpiImM]*", script[end:])
            i = end + (flags.end() if flags else 0)
            if c == "s" and i < n and script[i] not in " \t;\n}":
                return False  # e, w or an unknown flag
        elif c in ":btT":
            j = script.find(";", i)
            k = script.find("\n", i)
            ends = [x for x in (j, k) if x >= 0]
            i = min(ends) if ends else n
        else:
            return False  # a i c e r R w W F and anything unknown
    return True


def _after_delims(s: str, i: int, count: int) -> int:
    """Index after `count` unescaped occurrences of the delimiter at s[i] (-1: unterminated)."""
    if i >= len(s):
        return -1
    delim, i = s[i], i + 1
    seen = 1
    while i < len(s) and seen < count:
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == delim:
            seen += 1
        i += 1
    return i if seen == count else -1


# ARGV/ARGC: a program that adds its own input files reads paths no check has seen.
_AWK_BAD = re.compile(
    r"system|getline|\||>|print[f]?\s*>|ENVIRON|ARGV|ARGC|close|fflush|@load|@include"
)


_AWK_CODE = ("-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec", "-W")
_AWK_WRITES = ("-d", "--dump-variables", "-p", "--profile", "-o", "--pretty-print")


def awk_escape(args: list[str | None]) -> str:
    """Why an awk invocation loads code, runs commands or writes files ("" when it does not).
    Every program text is checked: the operand, and each `-e` / `--source` (gawk)."""
    for a in args:
        if a is None:
            return "awk with arguments decided at run time"
        if a.startswith(_AWK_CODE):  # -W: mawk's `-W exec FILE` runs a program file
            return f"awk {a} loads code from a file"
        if a.startswith(_AWK_WRITES):
            return f"awk {a} writes a file"
    programs: list[str] = []
    given, i = False, 0
    while i < len(args):
        a = args[i] or ""
        i += 1
        if a in ("-F", "-v", "--field-separator", "--assign"):
            i += 1
        elif a in ("-e", "--source"):
            given = True
            programs.append((args[i] or "") if i < len(args) else "")
            i += 1
        elif a.startswith("--source="):
            given = True
            programs.append(a.split("=", 1)[1])
        elif a.startswith("-e") and len(a) > 2:
            given = True
            programs.append(a[2:])
        elif a == "--":
            if not given and i < len(args):
                programs.append(args[i] or "")
            break
        elif not a.startswith("-") and not given:
            programs.append(a)
            break
    if any(_AWK_BAD.search(p) for p in programs):
        return "awk program runs commands, writes files or chooses its own input files"
    return ""
