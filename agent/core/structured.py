"""`--output-schema`: the run's final answer is a JSON value that matches a JSON Schema.

The model is told the schema in the system prompt (`instructions`, added only with the flag).
When the turn ends, its answer is parsed and validated; an answer that does not match gets one
repair turn — a user message listing the validation errors, through the same loop — and is
checked again. Still wrong, the run ends with the subtype `error_output_schema` and the errors.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agent.base.events import EndSubtype, TurnEnd
from agent.config.automation import schema_registry

FAILED: EndSubtype = "error_output_schema"
ERROR_LIMIT = 20  # validation errors listed; the rest are counted
_FENCE = re.compile(r"\A```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```\Z", re.S)


def instructions(schema: dict[str, Any]) -> str:
    """The system prompt's section for a run with an output schema."""
    return (
        "# Final answer format\n"
        "A program reads this run's final answer. Work with your tools as usual; then make your "
        "final answer (the reply without tool calls) a single JSON value that validates against "
        "this JSON Schema, and nothing else — no prose, no Markdown fence:\n"
        f"{json.dumps(schema, ensure_ascii=False, separators=(',', ':'))}"
    )


@dataclass
class Checked:
    """An answer checked against the schema: its value when `errors` is empty."""

    value: Any = None
    errors: list[str] = field(default_factory=list)


def check(text: str, schema: dict[str, Any]) -> Checked:
    """Parse `text` as JSON (one surrounding ``` fence is forgiven) and validate it."""
    raw = text.strip()
    fenced = _FENCE.match(raw)
    raw = fenced.group(1).strip() if fenced else raw
    try:
        value = json.loads(raw, parse_constant=_no_constant)
    except ValueError as e:
        said = "the answer is empty" if not raw else f"the answer is not JSON ({e})"
        return Checked(errors=[said])
    from jsonschema import validators  # deferred: ~60 ms: only with --output-schema
    from referencing.exceptions import Unresolvable

    kind = validators.validator_for(schema)
    checker = kind(schema, format_checker=kind.FORMAT_CHECKER, registry=schema_registry(schema))
    try:
        found = sorted(checker.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
    except Unresolvable as e:  # checked at start-up (agent.config.automation): not expected
        return Checked(errors=[f"the schema has a reference that cannot be resolved ({e})"])
    errors = [f"{e.json_path}: {e.message}" for e in found[:ERROR_LIMIT]]
    if len(found) > ERROR_LIMIT:
        errors.append(f"… and {len(found) - ERROR_LIMIT} more")
    return Checked(None if errors else value, errors)


def _no_constant(name: str) -> Any:
    """NaN and Infinity, which json.loads accepts: not JSON, and not for stdout."""
    raise ValueError(f"{name} is not a JSON value")


def repair_message(errors: list[str]) -> str:
    """The user message of the repair turn."""
    listed = "\n".join(f"- {e}" for e in errors)
    return (
        "[agent] Your final answer does not match the required JSON Schema:\n"
        f"{listed}\n"
        "Reply again with only the corrected JSON value."
    )


@dataclass
class Structured:
    """The schema of a run, and what its answer turned out to be."""

    schema: dict[str, Any]
    value: Any = None
    errors: list[str] = field(default_factory=list)
    valid: bool = False

    async def settle(self, end: TurnEnd, again: Callable[[str], Awaitable[TurnEnd]]) -> TurnEnd:
        """The run's end once its answer is checked; `again` runs the repair turn. A turn that
        did not succeed (turn limit, budget, failure) is reported as it is."""
        if end.subtype != "success":
            return end
        found = check(end.text, self.schema)
        if found.errors:
            end = await again(repair_message(found.errors))
            if end.subtype != "success":
                return end
            found = check(end.text, self.schema)
        self.value, self.errors, self.valid = found.value, found.errors, not found.errors
        if found.errors:
            why = "the final answer does not match --output-schema after one repair turn: "
            return TurnEnd(FAILED, end.text, end.num_turns, why + "; ".join(found.errors))
        return end
