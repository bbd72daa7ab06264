"""The terminal edge of the rich front ends: a Console that never writes a control character
of the text it prints, and Markdown whose links show where they go.

Text that did not come from the agent (the model's answer, tool output, file lines in a diff,
names) passes agent.base.visible before rich lays it out, so its width is right. The Console
applies the same function once more to every segment of text it writes — whatever printed it,
a slash command included — and keeps only its own control segments (rich's cursor moves for
the live region) and styles: nothing in the text can move the cursor, clear the screen, set the
title, write the clipboard (OSC 52), end a bracketed paste or open a hyperlink (OSC 8).

Markdown links are shown as `label (target)` unless the label is the target itself, and never
as terminal hyperlinks: a link labelled `https://docs.python.org` cannot lead elsewhere unseen.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from agent.base.visible import visible


def safe_console(**options: Any) -> Any:
    """A rich Console (same options) that writes no control character of the text it prints
    to a terminal; to a file or a pipe (`file`, else stdout, is not a terminal) all of it."""
    out = options.get("file") or sys.stdout
    if options.get("force_terminal") or out.isatty():
        return _safe_class()(**options)
    from rich.console import Console  # deferred: see _safe_class

    return Console(**options)


@functools.cache
def _safe_class() -> type:
    from rich.console import Console  # deferred: ~60 ms (rich): front ends load it when drawn

    class SafeConsole(Console):
        def _render_buffer(self, buffer: Iterable[Any]) -> str:
            return str(super()._render_buffer(guarded(buffer)))

    return SafeConsole


def guarded(segments: Iterable[Any]) -> Iterator[Any]:
    """rich Segments with their text made visible and links kept only where the text shown is
    the target itself; rich's own control segments pass as they are."""
    from rich.segment import Segment  # deferred: loaded with rich.console

    for seg in segments:
        text, style, control = seg
        if control:
            yield seg
            continue
        clean = visible(text)
        if style is not None and style.link and style.link != clean.strip():
            style = style.update_link(None)
        yield Segment(clean, style) if (clean, style) != (text, seg.style) else seg


def markdown(text: str, code_theme: str) -> Any:
    """`text` (from the model) as rich Markdown: controls made visible, each link shown with its
    target after the label (unless the label is the target), no terminal hyperlinks."""
    from rich.markdown import Markdown  # deferred: ~40 ms: loaded in the background at start

    md = Markdown(visible(text), code_theme=code_theme, hyperlinks=False)
    for token in md.parsed:
        if token.children:
            token.children = _plain_same_links(token.children)
    return md


def _plain_same_links(children: list[Any]) -> list[Any]:
    """Inline tokens with the links whose label is their own target turned into plain text
    (rich would print `url (url)`); other links are left for rich: `label (target)`."""
    out: list[Any] = []
    i = 0
    while i < len(children):
        tok = children[i]
        close = _link_close(children, i) if tok.type == "link_open" else -1
        if close > 0:
            inner = children[i + 1 : close]
            label = "".join(t.content for t in inner if t.type in ("text", "code_inline"))
            href = str(tok.attrs.get("href", ""))
            if label and href in (label, f"mailto:{label}"):
                out += inner
                i = close + 1
                continue
        out.append(tok)
        i += 1
    return out


def _link_close(children: list[Any], start: int) -> int:
    for j in range(start + 1, len(children)):
        if children[j].type == "link_close":
            return j
    return -1
