"""What a permission prompt shows of an AskRequest, the same in the REPL, the plain prompt and
an editor: the value that will be used (the full command, the resolved path, the URL, the
diff) rendered from that value itself, never from a summary.

A value a person approves must show as itself, character for character, or say that it
cannot: a command carrying `ESC [2K` and a carriage return would otherwise erase the line it
is on and draw a harmless command over the real one. So every character that would not show as
itself (escape sequences, control characters, bidi controls, invisible characters, bytes that
are not UTF-8) is shown as a visible code (agent.base.visible, strict), and a warning naming
them comes first, before the value. A value longer than LIMIT characters is cut with a marker
saying how many more there are (and the warning says so too); nothing is cut silently. A value
taller than a screen (its lines counted as the rows they wrap to) says so first too: its first
lines would scroll out of sight; so does a long run of spaces or tabs, shown counted. The
warning is said again next to the question. A tool with
no target of its own (an MCP tool) shows its arguments.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.base.visible import clip, hidden, visible

if TYPE_CHECKING:  # annotations only
    from agent.permissions.request import AskRequest

LIMIT = 4000  # characters of a command, path, URL or arguments shown before the marker
LINES = 24  # a value longer than a screen is said first: its top may scroll out of sight
WIDTH = 80  # columns assumed when counting the rows a value's lines wrap to
TAB = 8
BLANKS = 16  # a run of this many spaces or tabs is shown counted: it can push text away
_BLANK_RUN = re.compile(rf"[ \t]{{{BLANKS},}}")
REMINDER = "⚠ see the warning above the value before you answer"
DIFF_LINES = 120  # diff lines shown before the marker
PATHS = ("file", "folder", "files", "url")  # one-line values: a newline or tab in one is odd


@dataclass(frozen=True)
class Shown:
    """A request as a prompt shows it; every field is safe to print as it is."""

    warning: str  # said first, before the value ("" when it shows as itself)
    label: str  # "command" or "target", and how many lines when more than one
    value: str  # the command, path or URL, visible and whole (or marked where cut)
    reason: str
    args: str  # the arguments, for a tool whose target says nothing of them ("" otherwise)
    body: str  # a plan, shown as text
    diff: str
    remember: tuple[str, ...]
    reminder: str = ""  # said again next to the question when there is a warning


def noun(what: str) -> str:
    """What a target is, in a sentence."""
    return {"command": "command", "url": "URL", "action": "action"}.get(
        what, "path" if what in PATHS else "value"
    )


def keep(what: str) -> str:
    """The layout characters a value of this kind may hold and still show as itself."""
    return "" if what in PATHS else "\n\t"


def unshowable(value: str, what: str) -> list[str]:
    """What in a target would not show as itself (agent.base.visible.hidden), in words."""
    return hidden(value, keep(what))


def warning(kinds: list[str], subject: str) -> str:
    """What a prompt says first about a value holding characters it cannot show as they are."""
    if not kinds:
        return ""
    listed = ", ".join(kinds[:-1]) + (" and " if len(kinds) > 1 else "") + kinds[-1]
    return (
        f"there are {listed} in the {subject}: they are shown below as codes (␛, ␍, \\u202e…), "
        "not as a terminal would draw them, and what you approve is exactly what is shown"
    )


def shown(req: AskRequest) -> Shown:
    """What every prompt shows of `req`."""
    what = req.what if req.what in PATHS or req.what in ("command", "action") else ""
    value = visible(req.target, keep(what), strict=True)
    args = ""
    if not (what or req.diff or req.body) and req.args:  # an MCP tool and the like
        args = visible(json.dumps(req.args, ensure_ascii=False), "", strict=True)
    diff = req.diff.replace("\r\n", "\n")  # a CRLF file's lines: shown as lines
    odd = unshowable(req.target, what)
    rest = [*hidden(diff), *hidden(req.body, strict=False)]
    rest += hidden("\n".join(_strings(req.args))) if args else []
    subject = noun(what)
    if rest and not odd:
        subject = "change" if req.diff else "plan" if req.body else "arguments"
    said = [warning(list(dict.fromkeys([*odd, *rest])), subject)]
    for name, text in ((noun(what), value), ("arguments", args)):
        if len(text) > LIMIT:
            said.append(f"the {name} is long: {len(text) - LIMIT:,} characters are not shown")
    value, blanks = _counted_blanks(clip(value, LIMIT))
    if blanks:
        said.append(f"{blanks} shown counted (⟨…⟩): they could push the rest out of sight")
    lines = value.count("\n") + 1
    if rows(value) > LINES:  # its first lines scroll out of sight
        said.append(f"the {noun(what)} fills {rows(value):,} rows of a {WIDTH}-column screen: read "
                    "all of it, not only the last lines")  # fmt: skip
    label = "command" if what == "command" else "target"
    return Shown(
        "warning: " + "; ".join(x for x in said if x) if any(said) else "",
        f"{label} ({lines} lines)" if lines > 1 else label,
        value,
        visible(req.reason),
        clip(args, LIMIT),
        visible(req.body),
        _lines(visible(diff, strict=True)),
        tuple(visible(r, "", strict=True) for r in req.remember),
        REMINDER if any(said) else "",
    )


def rows(text: str, width: int = WIDTH) -> int:
    """The screen rows `text` takes on a terminal `width` columns wide (tabs at 8)."""
    return sum(max(1, math.ceil(len(line.expandtabs(TAB)) / width)) for line in text.split("\n"))


def _counted_blanks(value: str) -> tuple[str, str]:
    """`value` with each long run of spaces and tabs shown as its count, and what was counted."""
    runs: list[str] = []

    def count(m: re.Match[str]) -> str:
        run = m.group(0)
        kind = "tabs" if set(run) == {"\t"} else "spaces" if set(run) == {" "} else "blanks"
        runs.append(f"{len(run)} {kind}")
        return f"⟨{len(run)} {kind}⟩"

    out = _BLANK_RUN.sub(count, value)
    return out, ("runs of " + ", ".join(runs)) if runs else ""


def _strings(value: object) -> list[str]:
    """The strings in a JSON value, keys included (JSON escapes their controls as \\u001b:
    shown, but a warning must still say they are there)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _lines(diff: str) -> str:
    lines = diff.splitlines()
    if len(lines) <= DIFF_LINES:
        return diff
    return "\n".join([*lines[:DIFF_LINES], f"... ({len(lines) - DIFF_LINES} more diff lines)"])
