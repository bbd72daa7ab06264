"""agent.base.words: the few text helpers every layer shares."""

from __future__ import annotations

from agent.base.words import first_line, plural, wrapped

URL = "https://example.com/authorize?client_id=abcdefghijklmnopqrstuvwxyz0123456789&state=x"


def test_wrapped_breaks_between_words_and_never_inside_one() -> None:
    text = f"open {URL} in a browser, then come back here and wait for the login to finish"
    lines = wrapped(text, 40).split("\n")
    assert URL in lines  # too long for a line, whole on one of its own: it can be copied
    assert all(len(ln) <= 40 for ln in lines if ln != URL)
    assert " ".join(lines) == text


def test_wrapped_keeps_short_lines_line_breaks_and_indents() -> None:
    assert wrapped("short\n\nlines", 10) == "short\n\nlines"
    assert wrapped("  a list item that is long enough", 16) == (
        "  a list item\n  that is long\n  enough"
    )
    assert wrapped("anything", 0) == "anything"


def test_plural_and_first_line() -> None:
    assert plural(1, "turn") == "1 turn" and plural(2, "turn") == "2 turns"
    assert first_line("One sentence\nwraps. Then more.") == "One sentence wraps."
