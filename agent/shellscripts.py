"""sed and awk programs: whether a script given to a read-only command stays read-only.

sed is safe when its script only prints, deletes or substitutes in memory (no `e`, `w`, `r`,
`-i`, `-f`); awk when its program has no `system()`, pipes, redirections, `getline` or loaded
code. Used by shellrisk.escape.
"""

from __future__ import annotations

import re


def sed_escape(args: list[str | None]) -> str:
    """Why a sed invocation edits files, reads a script or runs commands ("" when it does not)."""
    scripts: list[str] = []
    it = iter(args)
    for a in it:
        if a is None:
            return "sed with arguments decided at run time"
        if a in ("-e", "--expression"):
            scripts.append(next(it, None) or "")
        elif a.startswith("--expression="):
            scripts.append(a.split("=", 1)[1])
        elif (
            a in ("-f", "--file")
            or a.startswith(("--file=", "-i", "--in-place"))
            or (a.startswith("-") and not a.startswith("--") and ("i" in a or "f" in a))
        ):
            return f"sed {a} edits files or reads a script"
        elif not a.startswith("-") and not scripts:
            scripts.append(a)
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


def awk_escape(args: list[str | None]) -> str:
    """Why an awk invocation loads code, runs commands or writes files ("" when it does not)."""
    for a in args:
        if a is None:
            return "awk with arguments decided at run time"
        if a.startswith(("-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec")):
            return f"awk {a} loads code from a file"
    program, skip = "", False
    for a in args:
        if skip:
            skip = False
        elif a in ("-F", "-v", "--field-separator", "--assign"):
            skip = True
        elif a and not a.startswith("-"):
            program = a
            break
    if _AWK_BAD.search(program):
        return "awk program runs commands, writes files or chooses its own input files"
    return ""
