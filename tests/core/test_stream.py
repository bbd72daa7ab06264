"""Pure delta assembly: dialects, splits, usage placements, cut streams and leaked markup."""

from __future__ import annotations

import itertools
import json
from types import SimpleNamespace
from typing import Any

import pytest
from fake_builders import DIALECTS, chunk, text, tool_calls
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.core.stream import Assembler, CutStream, StreamError, norm_usage


def ns(value: Any) -> Any:
    """Chunk dicts as attribute objects, as the SDK gives them (missing keys stay missing)."""
    if isinstance(value, dict):
        return SimpleNamespace(**{k: ns(v) for k, v in value.items()})
    if isinstance(value, list):
        return [ns(v) for v in value]
    return value


def assemble(chunks: list[dict[str, Any]], **kw: Any) -> Any:
    shown: list[str] = []
    asm = Assembler(on_text=shown.append, **kw)
    for c in chunks:
        c = dict(c)
        c.setdefault("usage", None)
        asm.feed(ns(c))
    reply = asm.finish()
    reply.shown = "".join(shown)  # type: ignore[attr-defined]
    return reply


def test_text_fragments_join_and_stream() -> None:
    reply = assemble(text("Hello, world!", pieces=5).chunks)
    assert reply.text == "Hello, world!"
    assert reply.shown == "Hello, world!"
    assert reply.finish_reason == "stop"
    assert reply.calls == []


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("interleave", [False, True])
def test_two_calls_in_every_dialect(dialect: str, interleave: bool) -> None:
    if interleave and dialect in ("no_index", "index0"):
        pytest.skip("these dialects cannot interleave: order is the only key")
    calls = [("read_file", {"path": "a.py", "limit": 5}), ("grep", {"pattern": "x|y"})]
    turn = tool_calls(calls, pieces=4, dialect=dialect, interleave=interleave)
    reply = assemble(turn.chunks)
    assert [(c.name, json.loads(c.arguments)) for c in reply.calls] == calls
    assert len({c.id for c in reply.calls}) == 2
    assert reply.finish_reason == "tool_calls"


@pytest.mark.parametrize("mode", ["separate", "last"])
def test_usage_in_either_place(mode: str) -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 7,
        "total_tokens": 107,
        "prompt_cache_hit_tokens": 60,
        "completion_tokens_details": {"reasoning_tokens": 3},
    }
    reply = assemble(text("hi", usage=usage, usage_mode=mode).chunks)
    assert reply.usage == {
        "input_tokens": 100,
        "output_tokens": 7,
        "cached_tokens": 60,
        "reasoning_tokens": 3,
    }


def test_openai_cached_tokens() -> None:
    u = ns(
        {
            "prompt_tokens": 50,
            "completion_tokens": 1,
            "prompt_tokens_details": {"cached_tokens": 32},
        }
    )
    assert norm_usage(u)["cached_tokens"] == 32


def test_stream_without_finish_reason_is_cut() -> None:
    turn = text("partial answer", pieces=3, finish=None, usage=None)
    with pytest.raises(CutStream):
        assemble(turn.chunks)


def test_missing_ids_get_stable_ones() -> None:
    frag = {"index": 0, "function": {"name": "glob", "arguments": '{"pattern": "*"}'}}
    chunks = [chunk({"tool_calls": [frag]}), chunk(finish="tool_calls")]
    reply = assemble(chunks, step=4)
    assert reply.calls[0].id == "call_4_0"


def test_error_object_inside_stream() -> None:
    with pytest.raises(StreamError, match="overloaded"):
        assemble([{"object": "error", "message": "overloaded", "choices": []}])


def test_reasoning_from_both_field_names() -> None:
    chunks = [
        chunk({"reasoning_content": "let me "}),
        chunk({"reasoning": "think"}),
        chunk({"content": "42"}),
        chunk(finish="stop"),
    ]
    reply = assemble(chunks)
    assert reply.reasoning == "let me think"
    assert reply.text == "42"


DSML = (
    'Let me look.\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name="read_file">\n'
    '<｜DSML｜parameter name="path" string="true">src/app.py</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="limit" string="false">20</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n</｜DSML｜tool_calls>"
)


@pytest.mark.parametrize("pieces", [1, 3, 17, len(DSML)])
def test_dsml_leak_becomes_calls_and_is_never_shown(pieces: int) -> None:
    reply = assemble(text(DSML, pieces=pieces).chunks)
    assert reply.shown == "Let me look.\n"
    assert "DSML" not in reply.text
    assert [(c.name, json.loads(c.arguments)) for c in reply.calls] == [
        ("read_file", {"path": "src/app.py", "limit": 20})
    ]
    assert reply.finish_reason == "tool_calls"


def test_ascii_bars_and_json_tool_call_markup() -> None:
    leaked = 'ok <tool_call>{"name": "glob", "arguments": {"pattern": "*.py"}}</tool_call>'
    reply = assemble(text(leaked, pieces=7).chunks)
    assert reply.calls[0].name == "glob"
    ascii_form = DSML.replace("｜", "|")
    assert assemble(text(ascii_form, pieces=9).chunks).calls[0].name == "read_file"


def test_unparseable_markup_is_reported() -> None:
    reply = assemble(text("x <｜DSML｜tool_calls> garbage", pieces=4).chunks)
    assert reply.malformed
    assert not reply.calls
    assert "DSML" not in reply.shown


def test_lone_angle_bracket_text_is_shown() -> None:
    reply = assemble(text("if a < b and c <d> then <", pieces=6).chunks)
    assert reply.shown == "if a < b and c <d> then <"


def _cuts(s: str, points: list[int]) -> list[str]:
    cuts = sorted({p % (len(s) + 1) for p in points} | {0, len(s)})
    return [s[a:b] for a, b in itertools.pairwise(cuts) if b > a] or [""]


@settings(max_examples=150, deadline=None)
@given(
    content=st.text(max_size=60),
    args=st.lists(
        st.dictionaries(st.text(min_size=1, max_size=5), st.text(max_size=20), max_size=3),
        max_size=3,
    ),
    points=st.lists(st.integers(min_value=0, max_value=500), max_size=12),
)
def test_any_split_assembles_the_same_reply(
    content: str, args: list[dict], points: list[int]
) -> None:
    """However a server splits text and arguments into chunks, the reply is the same."""
    chunks = [chunk({"role": "assistant"})]
    chunks += [chunk({"content": piece}) for piece in _cuts(content, points) if piece]
    for i, a in enumerate(args):
        raw = json.dumps(a)
        parts = _cuts(raw, points)
        first = {
            "index": i,
            "id": f"c{i}",
            "type": "function",
            "function": {"name": f"t{i}", "arguments": parts[0]},
        }
        chunks.append(chunk({"tool_calls": [first]}))
        chunks += [
            chunk({"tool_calls": [{"index": i, "function": {"arguments": p}}]}) for p in parts[1:]
        ]
    chunks.append(chunk(finish="tool_calls" if args else "stop"))
    reply = assemble(chunks)
    assert reply.text == content
    assert [json.loads(c.arguments) for c in reply.calls] == args
    assert [c.id for c in reply.calls] == [f"c{i}" for i in range(len(args))]
    if "<" not in content:
        assert reply.shown == content


def test_shown_tells_whether_a_delta_reached_the_screen() -> None:
    asm = Assembler()
    asm.feed(ns({**chunk({"role": "assistant"}), "usage": None}))
    asm.feed(ns({**chunk({"content": "<｜DS"}), "usage": None}))  # held back: may be markup
    assert not asm.shown  # a retry from here has nothing on screen to discard
    asm.feed(ns({**chunk({"content": "x is fine"}), "usage": None}))
    assert asm.shown
    thinking = Assembler()
    thinking.feed(ns({**chunk({"reasoning_content": "hmm"}), "usage": None}))
    assert thinking.shown
