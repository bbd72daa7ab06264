"""The one sanitiser at the terminal edge (agent.base.visible): nothing it returns can drive a
terminal — no C0 or C1 control, no escape sequence, no bidi control, no invisible format
character — whatever text the model, a tool, a file or a server hands it."""

from __future__ import annotations

import json
import re
import unicodedata

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from agent.base.visible import clip, hidden, json_escaped, visible

LAYOUT = "\n\t"
# Checked against Python's own Unicode table, not against the module's hand-written ranges:
# a format character those ranges missed fails here.
DANGEROUS = ("Cc", "Cf", "Cs", "Zl", "Zp")
JOINERS = "\u200c\u200d"  # ordinary text keeps these (emoji, Persian, Indic words)
hostile = st.lists(
    st.one_of(
        st.characters(),
        st.sampled_from(list("\x1b\x07\x9b\x9d\x90\r\n\x08\u202e\u2066\u200b\ufeff\udcff")),
        st.sampled_from(["\U000e0041", "\u200d", "\xa0", "\u3164", "\r\n", "\x1b[2K"]),
    )
).map("".join)


def interpretable(text: str, keep: str, allowed: str = "") -> list[str]:
    return [c for c in text if c not in keep + allowed and unicodedata.category(c) in DANGEROUS]


@settings(max_examples=300, deadline=None)  # no clock: it must pass under load
@given(hostile)
@example("\x1b]52;c;Y3VybA==\x07\x1b]0;title\x07\x1b[201~\x1b[2J\x9b2J\u202eabc")
def test_nothing_a_terminal_interprets_survives(text: str) -> None:
    shown = visible(text)
    assert interpretable(shown, LAYOUT, JOINERS) == []
    assert "\x1b" not in shown and "\r" not in shown
    assert hidden(shown, strict=False) == []
    assert visible(shown) == shown  # already visible: left alone


@settings(max_examples=300, deadline=None)
@given(hostile)
def test_strict_shows_every_character_as_itself(text: str) -> None:
    shown = visible(text, "", strict=True)
    assert interpretable(shown, "") == []
    assert all(c == " " or not c.isspace() for c in shown)  # no look-alike spaces either
    assert hidden(shown, "") == []
    assert (hidden(text, "") == []) == (shown == text)  # a warning exactly when it differs


def test_every_code_point_is_covered() -> None:
    """All of Unicode at once, against Python's table: the hand-written ranges miss nothing."""
    every = "".join(map(chr, range(0x110000)))
    assert interpretable(visible(every), LAYOUT, JOINERS) == []
    strict = visible(every, "", strict=True)
    assert interpretable(strict, "") == []
    assert [c for c in strict if c.isspace() and c != " "] == []


@settings(deadline=None)
@given(st.text(st.characters(blacklist_categories=(*DANGEROUS, "Cn"))))
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert visible(text) == text


def test_attack_sequences_show_as_text() -> None:
    assert visible("ls\x1b[2K\x1b[1G\rrm") == "ls␛[2K␛[1G␍rm"
    assert visible("\x1b]52;c;aGk=\x07") == "␛]52;c;aGk=␇"
    assert visible("\x1b]8;;https://evil\x1b\\docs\x1b]8;;\x1b\\") == (
        "␛]8;;https://evil␛\\docs␛]8;;␛\\"
    )
    assert visible("\x9b2J a\u202eb \U000e0041") == "\\x9b2J a\\u202eb \\U000e0041"
    assert visible("lone \udcff byte") == "lone \\udcff byte"  # encodable, never a crash
    assert visible("a\r\nb\tc\n") == "a\nb\tc\n"  # layout kept, CRLF a newline
    assert visible("a\nb\tc", "") == "a␊b␉c"  # on one line: newlines and tabs shown too
    assert visible("family 👨\u200d👩\u200d👧") == "family 👨\u200d👩\u200d👧"
    assert visible("family 👨\u200d👩", strict=True) == "family 👨\\u200d👩"
    assert visible("nb\xa0sp", strict=True) == "nb\\xa0sp"


def test_hidden_names_what_would_not_show() -> None:
    assert hidden("ls -la") == []
    assert hidden("ls\x1b[2K\rcurl") == ["terminal escape sequences", "control characters"]
    assert hidden("report\u202etxt.exe") == ["bidirectional-text controls"]
    assert hidden("a\udcffb") == ["bytes that are not valid UTF-8"]
    assert hidden("r\u200bm") == ["invisible or look-alike characters"]
    assert hidden("x\r\ny", strict=False) == []  # a CRLF shows as a line end


def test_clip_says_what_it_cut() -> None:
    assert clip("abcdef", 6) == "abcdef"
    assert clip("a" * 5000, 4000) == "a" * 4000 + "… (+1,000 more characters)"


@settings(deadline=None)
@given(st.recursive(hostile | st.integers(), lambda c: st.lists(c) | st.dictionaries(hostile, c)))
def test_json_escaped_keeps_the_value_and_drops_the_controls(value: object) -> None:
    raw = json.dumps(value, ensure_ascii=False)
    # a high then a low surrogate as two code points: no JSON text keeps them apart (any reader
    # joins the escaped pair into one character), and no decoded text holds them
    assume(re.search("[\ud800-\udbff][\udc00-\udfff]", raw) is None)
    safe = json_escaped(raw)
    assert json.loads(safe) == value
    assert interpretable(safe, "", JOINERS) == []
    safe.encode("utf-8")  # no lone surrogate left to fail the encoder
