"""A reply the output token limit cut off: which of its tool calls still run, what the model and
the user are told (each their own words), and whether it was a repetition loop.

The calls complete before the first cut one run as usual; the cut one and any after it are
dropped, and the model is told which, each name once. A reply that went round in circles until
the limit is named as such: asking for "smaller parts" would not help a loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.base.record import Call

MIN_LOOP = 120  # characters a repeated run must cover before it counts as a loop
LOOP_TIMES = 6  # consecutive repetitions of the same run


@dataclass
class Cut:
    run: list[Call]  # complete calls before the first cut one: they run
    dropped: list[Call]  # the cut call and any after it: never run
    loop: bool  # the reply repeated itself up to the limit


def split(finish_reason: str | None, calls: list[Call], text: str) -> Cut | None:
    """The cut calls of a reply stopped by the output limit; None when no call was cut."""
    if finish_reason != "length":
        return None
    first = next((i for i, c in enumerate(calls) if c.problem), None)
    if first is None:
        return None
    dropped = calls[first:]
    return Cut(calls[:first], dropped, any(repeating(s) for s in (text, *_raw(dropped))))


def _raw(calls: list[Call]) -> list[str]:
    return [c.raw for c in calls]


def repeating(text: str) -> bool:
    """Whether `text` ends in the same run of characters repeated LOOP_TIMES times or more."""
    tail = text[-4000:]
    for period in range(1, len(tail) // LOOP_TIMES + 1):
        span = period * LOOP_TIMES
        if span < MIN_LOOP:
            continue
        run = tail[-span:]
        if run[period:] == run[:-period]:
            return True
    return False


def _names(calls: list[Call]) -> str:
    return ", ".join(dict.fromkeys(c.name for c in calls))


def model_note(cut: Cut) -> str:
    """What the model is told (it joins the history as the next user message)."""
    ran = f"The calls before it ran ({_names(cut.run)}). " if cut.run else ""
    if cut.loop:
        return (
            f"Your reply repeated the same text until it hit the output token limit, inside "
            f"the arguments of {_names(cut.dropped)}; that call was not run. {ran}Do not repeat "
            "yourself: write the content once, or say what blocks you."
        )
    return (
        f"Your reply hit the output token limit while writing the arguments of "
        f"{_names(cut.dropped)}; that call was not run. {ran}Retry it with smaller arguments "
        "(for a large file: write a first part, then add the rest with edits)."
    )


def user_note(cut: Cut) -> str:
    """What the user is told."""
    why = "went round in circles until" if cut.loop else "was cut at"
    ran = f"; {_names(cut.run)} ran" if cut.run else ""
    return (
        f"the model's reply {why} its output token limit inside {_names(cut.dropped)}, which "
        f"was not run{ran}; it was asked to continue"
    )


def notes(cut: Cut | None, malformed: str) -> tuple[str, str]:
    """(what the model is told, what the user is told) of a reply that could not be used: cut
    by the output limit, or a tool call that arrived as malformed text."""
    if cut is not None:
        return model_note(cut), user_note(cut)
    return (
        f"Your tool call arrived as text markup and {malformed}; nothing was executed. Call "
        "tools through the function-calling interface.",
        f"the model's tool call arrived as text and {malformed}; it was told",
    )
