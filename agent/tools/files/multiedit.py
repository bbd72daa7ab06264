"""Several edits to one file in one edit_file call (`edits`): the argument, checked, and the
edits applied in order, all or nothing."""

from __future__ import annotations

from agent.base.args import Args, needed
from agent.tools.files.matching import locate
from agent.tools.shared import textio
from agent.tools.shared.common import ToolError


class Edit(Args, closed=False):
    """One of edit_file's `edits`."""

    old_string: str
    new_string: str
    replace_all: bool = False


def text_of(value: str | None, name: str) -> str:
    """A text argument the call must have, without lone surrogates: written with
    surrogateescape, one would become a raw byte in the file."""
    text = needed(value, name)
    if textio.has_surrogates(text):
        raise ToolError(f"{name} contains a lone surrogate (\\ud800-\\udfff), which is not text")
    return text


def edit_list(edits: tuple[Edit, ...], single: bool) -> list[tuple[str, str, bool]]:
    """The `edits` argument as (old, new, replace_all) triples, or why it is not usable
    (`single`: old_string or new_string was given too)."""
    if single:
        raise ToolError("give either old_string/new_string or edits, not both")
    out = []
    for k, edit in enumerate(edits, 1):
        try:
            pair = text_of(edit.old_string, "old_string"), text_of(edit.new_string, "new_string")
        except ToolError as exc:
            raise ToolError(f"edit {k}: {exc.what}") from None
        out.append((*pair, edit.replace_all))
    return out


Span = tuple[int, int, int]  # (start, end, edit number) of text an edit put in


def _overlap(spans: list[Span], places: list[int], size: int) -> int:
    """The number of an earlier edit whose new text a match at `places` would cut into."""
    for start in places:
        for s, e, k in spans:
            if start < e and start + size > s:
                return k
    return 0


def _shift(spans: list[Span], places: list[int], delta: int) -> list[Span]:
    """Spans moved by the replacements at `places` before them."""
    out = []
    for s, e, k in spans:
        moved = delta * sum(1 for p in places if p < s)
        out.append((s + moved, e + moved, k))
    return out


def apply_edits(
    name: str, text: str, newline: str, stray: int, edits: list[tuple[str, str, bool]]
) -> str:
    """Several edits in order on one text, all or nothing: each sees the text the ones before
    it made, and may not rewrite what an earlier one put in. A ToolError names the edit that
    cannot apply (not found, not unique, overlapping) and says nothing was changed."""
    spans: list[Span] = []
    for k, (old, new, every) in enumerate(edits, 1):
        label = f"edit {k} of {len(edits)}"
        if not old or old == new:
            why = "old_string is empty" if not old else "old_string and new_string are identical"
            raise ToolError(f"{label}: {why}; nothing was changed")
        try:
            old, new, places = locate(name, text, newline, stray, old, new, every)
        except ToolError as exc:
            raise ToolError(f"{label}: {exc.what}; nothing was changed", hint=exc.hint) from None
        earlier = _overlap(spans, places, len(old))
        if earlier:
            raise ToolError(
                f"{label} overlaps the text edit {earlier} put in; nothing was changed",
                hint="make each edit change different text, or merge the two into one edit",
            )
        delta, parts, last = len(new) - len(old), [], 0
        for pos in places:
            parts += [text[last:pos], new]
            last = pos + len(old)
        text = "".join([*parts, text[last:]])
        spans = _shift(spans, places, delta)
        spans += [(p + i * delta, p + i * delta + len(new), k) for i, p in enumerate(places)]
    return text
