"""Finding a risky option in a command's arguments the way the command itself would read them."""

from __future__ import annotations

import re

# Long options are matched as git (parse-options) and GNU getopt match them: any unambiguous
# prefix counts (`git grep --open-files-in=…`, `sort --o=FILE`), except where the prefix is an
# option of its own, which then wins (`git diff --text`, `tar --checkpoint`).
EXACT_OPTIONS = frozenset({"--text", "--checkpoint"})


def risky(args: list[str | None], flags: tuple[str, ...], past_dashes: bool = False) -> str:
    """The first flag of `flags` in `args`; options end at `--`, except for find, whose
    expression (`-exec`, `-delete`) follows its paths (`find -- . -delete`)."""
    short = {f[1] for f in flags if len(f) == 2}
    for a in args:
        if a is None or (a == "--" and not past_dashes):
            break
        head = a.split("=", 1)[0]
        hit = _long(head, flags) if head.startswith("--") else head if head in flags else ""
        if hit:
            return hit
        if short and len(a) > 2 and a[0] == "-" and a[1] != "-" and a[1] in short:
            return a[:2]  # value attached: -ofile
        if (
            short
            and re.fullmatch(r"-[A-Za-z]{2,}", a)
            and short & set(a[1:])
            and not any(len(f) > 2 and not f.startswith("--") for f in flags)
        ):
            return a  # clustered: -uo
    return ""


def _long(head: str, flags: tuple[str, ...]) -> str:
    """The risky long option `head` is, or abbreviates (shown as written and in full)."""
    if len(head) < 3 or head in EXACT_OPTIONS:
        return ""
    hit = next((f for f in flags if f.startswith(head)), "")
    return hit if hit in ("", head) else f"{head} ({hit})"
