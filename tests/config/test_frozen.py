"""agent.config.frozen: records that behave as frozen dataclasses (the events, the settings
view) without the cost of defining one."""

from __future__ import annotations

from typing import Any

import pytest

from agent.config.frozen import Frozen, field


class Point(Frozen):
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)


class Labelled(Point):
    label: str = ""


class Pair(Frozen):
    n: int
    s: str


def test_fields_defaults_and_fresh_factories() -> None:
    a, b = Point(1), Point(1, y=2)
    assert (a.x, a.y, a.tags, b.y) == (1, 0, [], 2)
    assert a.tags is not Point(1).tags  # a fresh list each time
    assert Labelled(1, 2, ["t"], "here").label == "here" and Labelled._fields[-1] == "label"
    for args, kwargs in (((), {}), ((1, 2, [], 4), {}), ((1,), {"z": 1}), ((1,), {"x": 2})):
        with pytest.raises(TypeError):  # missing, too many, unknown, given twice
            Point(*args, **kwargs)


def test_frozen_equal_hashable_and_shown() -> None:
    p = Point(1, 2)
    with pytest.raises(AttributeError):
        p.x = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del p.y  # type: ignore[misc]
    assert p == Point(1, 2) and p != Point(1, 3) and p != Labelled(1, 2)
    assert hash(Pair(1, "a")) == hash(Pair(1, "a")) != hash(Pair(2, "a"))
    assert repr(p) == "Point(x=1, y=2, tags=[])"


def test_patterns_match_by_position() -> None:
    def where(value: Any) -> str:
        match value:
            case Point(x, y):
                return f"{x},{y}"
        return ""

    assert where(Point(3, 4)) == "3,4"
