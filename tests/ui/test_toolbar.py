"""The REPL's bottom line: every part when there is room, the least needed ones dropped in a
narrow terminal, and an unknown price said as `$—`."""

from __future__ import annotations

from agent.ui.keys import toolbar_text

MODEL = "deepseek-chat-with-a-long-name"


def bar(width: int, cost: float | None = None) -> str:
    return toolbar_text(
        MODEL, "acceptEdits", 0.12, cost, 0.5, sandbox="workspace-write", width=width
    )


def test_a_wide_terminal_shows_every_part() -> None:
    wide = bar(0, 0.0123)
    for part in (MODEL, "⏵ acceptEdits (shift-tab)", "sandbox workspace-write", "context 12%"):
        assert part in wide
    assert "$0.0123" in wide and "cache 50%" in wide


def test_an_unknown_price_is_a_dash() -> None:
    assert "$—" in bar(0) and "$?" not in bar(0)


def test_a_narrow_terminal_drops_the_least_needed_parts_first() -> None:
    at_100, at_70, at_50 = bar(100), bar(70), bar(50)
    assert "(shift-tab)" not in at_100 and "cache" not in at_100 and "sandbox" in at_100
    assert len(at_70) <= 70 and "sandbox" not in at_70 and MODEL[:20] in at_70
    assert len(at_50) <= 50 and "…" in at_50  # the model's name shortened last
    for line in (at_100, at_70, at_50):  # what is never dropped
        assert "⏵ acceptEdits" in line and "context 12%" in line and "$—" in line
