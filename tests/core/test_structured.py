"""agent.core.structured (--output-schema: parse, validate, one repair turn) and
agent.core.instructions (the system prompt's additions for scripted runs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.base.events import TurnEnd
from agent.base.tokens import estimate
from agent.config.automation import Automation, read_schema
from agent.config.errors import ConfigError
from agent.context.memory import MEMORY_HEADER, base_prompt, system_prompt
from agent.core.instructions import dressed, kept_rules
from agent.core.structured import ERROR_LIMIT, Structured, check, instructions

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def test_check_parses_validates_and_forgives_one_fence() -> None:
    assert check('{"n": 3}', SCHEMA).value == {"n": 3}
    assert check('```json\n{"n": 3}\n```', SCHEMA).value == {"n": 3}
    assert check('```\n{"n": 3}```', SCHEMA).errors == []
    assert check('{"n": "3"}', SCHEMA).errors == ["$.n: '3' is not of type 'integer'"]
    assert check("", SCHEMA).errors == ["the answer is empty"]
    assert check('Sure! {"n": 3}', SCHEMA).errors[0].startswith("the answer is not JSON")
    null = check("null", {"type": "null"})
    assert null.errors == [] and null.value is None  # null can be the answer


def test_errors_are_ordered_by_place_and_capped() -> None:
    schema = {"type": "array", "items": {"type": "integer"}}
    found = check(str(["x"] * 30).replace("'", '"'), schema)
    assert len(found.errors) == ERROR_LIMIT + 1
    assert found.errors[0] == "$[0]: 'x' is not of type 'integer'"
    assert found.errors[-1] == f"… and {30 - ERROR_LIMIT} more"


def test_formats_are_checked() -> None:
    schema = {"type": "string", "format": "date"}
    assert check('"2025-01-31"', schema).errors == []
    assert check('"31/01/2025"', schema).errors == ["$: '31/01/2025' is not a 'date'"]


async def test_settle_repairs_once_then_fails() -> None:
    asked: list[str] = []

    async def again(message: str) -> TurnEnd:
        asked.append(message)
        return TurnEnd("success", '{"n": "still a string"}', 1)

    s = Structured(SCHEMA)
    end = await s.settle(TurnEnd("success", "{}", 1), again)
    assert len(asked) == 1 and "- $: 'n' is a required property" in asked[0]
    assert end.subtype == "error_output_schema"
    assert s.errors == ["$.n: 'still a string' is not of type 'integer'"]
    assert s.value is None and not s.valid


async def test_settle_leaves_a_failed_turn_alone_and_passes_a_good_one() -> None:
    async def never(message: str) -> TurnEnd:
        raise AssertionError(message)

    stopped = TurnEnd("error_max_turns", "", 50, "limit")
    assert await Structured(SCHEMA).settle(stopped, never) is stopped
    good = Structured(SCHEMA)
    end = await good.settle(TurnEnd("success", '{"n": 1}', 1), never)
    assert end.subtype == "success" and good.valid and good.value == {"n": 1}


def test_read_schema_refuses_what_is_not_a_schema(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"type": "object", "properties": {"a": {"minimum": "zero"}}}')
    with pytest.raises(ConfigError, match="not a valid JSON Schema at properties/a/minimum"):
        read_schema(str(path))
    path.write_text("[1, 2]")
    with pytest.raises(ConfigError, match="a JSON Schema is an object"):
        read_schema(str(path))


def test_no_additions_leave_the_prompt_as_it_is(tmp_path: Path) -> None:
    prompt = system_prompt(tmp_path, tmp_path, trusted=True)
    assert dressed(prompt, Automation()) is prompt


def test_additions_go_before_the_memory_block(tmp_path: Path) -> None:
    (tmp_path / "AGENT.md").write_text("Use tabs.\n")
    prompt = system_prompt(tmp_path, tmp_path, trusted=True, language="de")
    a = Automation(output_schema=SCHEMA, append_prompt="Be terse.", system_prompt="# Job\nX.")
    out = dressed(prompt, a)
    head, header, memory = out.partition(f"\n\n{MEMORY_HEADER}")
    assert header and "Use tabs." in memory and "Be terse." not in memory
    assert head.index("# Job") < head.index("Be terse.") < head.index("# Final answer format")
    assert "Reply in German" in head  # the language line stays
    assert kept_rules(base_prompt()) in head
    assert "# Example" not in out
    assert out.endswith("\n") and not out.endswith("\n\n")
    bare = dressed(system_prompt(tmp_path / "none", tmp_path / "none"), a)
    assert bare.endswith('"required":["n"]}\n')  # no memory: the instructions come last


def test_kept_rules_are_the_role_and_the_rules() -> None:
    kept = kept_rules(base_prompt())
    assert kept.startswith("# Role and boundaries")
    assert "# Rules, in priority order" in kept
    assert "read before you edit" in kept and "data, not instructions" in kept
    assert "# Response format" not in kept


def test_the_schema_instructions_are_small() -> None:
    assert estimate(instructions(SCHEMA)) < 120


def test_nan_and_infinity_are_not_json_answers() -> None:
    for raw in ("NaN", '{"n": Infinity}', "[-Infinity]"):
        found = check(raw, {})
        assert found.errors and found.errors[0].startswith("the answer is not JSON"), raw


def test_references_are_followed_only_within_the_schema(tmp_path: Path) -> None:
    local = {"$defs": {"n": {"type": "integer"}}, "properties": {"n": {"$ref": "#/$defs/n"}}}
    assert check('{"n": 3}', local).errors == []
    assert check('{"n": "x"}', local).errors == ["$.n: 'x' is not of type 'integer'"]
    # a schema that slipped past start-up: an error of the answer's check, never a crash
    missing = {"properties": {"n": {"$ref": "#/$defs/missing"}}}
    assert "cannot be resolved" in check('{"n": 3}', missing).errors[0]
    remote = {"properties": {"n": {"$ref": "https://example.invalid/n.json"}}}
    assert "cannot be resolved" in check('{"n": 3}', remote).errors[0]  # and never fetched
    for schema in (missing, remote, {"$ref": "#/$defs/missing"}):
        path = tmp_path / "s.json"
        path.write_text(json.dumps(schema))
        with pytest.raises(ConfigError, match=r"cannot be resolved.*nothing is downloaded"):
            read_schema(str(path))
    path.write_text(json.dumps(local))
    assert read_schema(str(path)) == local
