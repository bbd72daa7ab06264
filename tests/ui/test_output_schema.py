"""`--output-schema` end to end against the scripted fake: the model is told the schema, a valid
answer is the `structured_output`, an invalid one gets one repair turn, and one still invalid
ends with exit 56 and the errors; stdout holds exactly what the README promises."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent, user_texts

from agent.ui.oneshot import result_line
from agent.ui.process import EXIT_OUTPUT_SCHEMA

SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"enum": ["approve", "request_changes"]},
        "files": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["verdict", "files"],
    "additionalProperties": False,
}
GOOD = {"verdict": "approve", "files": ["notes.txt"]}


def schema_file(tmp_path: Path, schema: Any = SCHEMA) -> str:
    path = tmp_path / "verdict.schema.json"
    path.write_text(json.dumps(schema))
    return str(path)


def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_a_valid_answer_is_the_structured_output(
    fake: FakeOpenAI, fake_env: dict, project: Path, tmp_path: Path
) -> None:
    fake.script(tool_calls([("read_file", {"path": "notes.txt"})]), text(json.dumps(GOOD)))
    r = run_agent(
        fake_env, project, "--output-format", "json", "--output-schema", schema_file(tmp_path), "q"
    )
    assert r.returncode == 0, r.stderr
    result = events(r.stdout)[-1]
    assert result["subtype"] == "success"
    assert result["structured_output"] == GOOD
    assert "errors" not in result
    assert result["num_turns"] == 2  # no repair turn
    system = fake.requests[0]["messages"][0]["content"]
    assert "# Final answer format" in system
    assert json.dumps(SCHEMA, separators=(",", ":")) in system


def test_text_mode_prints_the_value_alone_and_the_answer_on_stderr(
    fake: FakeOpenAI, fake_env: dict, project: Path, tmp_path: Path
) -> None:
    fake.script(text("```json\n" + json.dumps(GOOD, indent=2) + "\n```", pieces=3))
    r = run_agent(fake_env, project, "--output-schema", schema_file(tmp_path), "q")
    assert r.returncode == 0, r.stderr
    assert r.stdout == json.dumps(GOOD, separators=(",", ":")) + "\n"  # one line, compact
    assert "```json" in r.stderr  # the answer as the model wrote it


def test_an_invalid_answer_is_repaired_in_one_more_turn(
    fake: FakeOpenAI, fake_env: dict, project: Path, tmp_path: Path
) -> None:
    fake.script(text('{"verdict": "maybe"}'), text(json.dumps(GOOD)))
    r = run_agent(
        fake_env, project, "--output-format", "json", "--output-schema", schema_file(tmp_path), "q"
    )
    assert r.returncode == 0, r.stderr
    result = events(r.stdout)[-1]
    assert result["subtype"] == "success"
    assert result["structured_output"] == GOOD
    assert result["num_turns"] == 2
    repair = user_texts(fake.requests[1])[-1]
    assert repair.startswith("[agent] Your final answer does not match the required JSON Schema")
    assert "- $: 'files' is a required property" in repair
    assert "- $.verdict: 'maybe' is not one of ['approve', 'request_changes']" in repair
    # the repair turn continues the same conversation
    assert any(m["content"] == '{"verdict": "maybe"}' for m in fake.requests[1]["messages"])


def test_an_answer_still_invalid_fails_with_its_own_exit_code(
    fake: FakeOpenAI, fake_env: dict, project: Path, tmp_path: Path
) -> None:
    fake.script(text("Looks good to me!"), text('{"verdict": "approve", "files": [1]}'))
    r = run_agent(
        fake_env, project, "--output-format", "json", "--output-schema", schema_file(tmp_path), "q"
    )
    assert r.returncode == EXIT_OUTPUT_SCHEMA == 56
    result = events(r.stdout)[-1]
    assert result["type"] == "result"
    assert result["subtype"] == "error_output_schema"
    assert result["is_error"] is True
    assert result["structured_output"] is None
    assert result["errors"] == ["$.files[0]: 1 is not of type 'string'"]
    assert "after one repair turn" in result["error"]
    assert result["result"] == '{"verdict": "approve", "files": [1]}'
    assert "the answer is not JSON" in user_texts(fake.requests[1])[-1]


def test_text_mode_failure_leaves_stdout_empty(
    fake: FakeOpenAI, fake_env: dict, project: Path, tmp_path: Path
) -> None:
    fake.script(text("no"), text("still no"))
    r = run_agent(fake_env, project, "--output-schema", schema_file(tmp_path), "q")
    assert r.returncode == 56
    assert r.stdout == ""
    assert "does not match --output-schema" in r.stderr


def test_stream_json_result_carries_the_structured_output(
    fake: FakeOpenAI, fake_env: dict, project: Path, tmp_path: Path
) -> None:
    fake.script(text(json.dumps(GOOD)))
    schema = schema_file(tmp_path)
    r = run_agent(
        fake_env, project, "--output-format", "stream-json", "--output-schema", schema, "q"
    )
    assert r.returncode == 0, r.stderr
    kinds = [e["type"] for e in events(r.stdout)]
    assert kinds == ["system", "assistant", "result"]
    assert events(r.stdout)[-1]["structured_output"] == GOOD


def test_without_the_flag_nothing_changes(fake: FakeOpenAI, fake_env: dict, project: Path) -> None:
    fake.script(text("plain"))
    r = run_agent(fake_env, project, "--output-format", "json", "q")
    result = events(r.stdout)[-1]
    assert "structured_output" not in result and "budget" not in result
    assert "# Final answer format" not in fake.requests[0]["messages"][0]["content"]


def test_a_bad_schema_is_a_usage_error_before_anything_is_sent(
    fake_env: dict, project: Path, tmp_path: Path
) -> None:
    bad = schema_file(tmp_path, {"type": "objekt"})
    r = run_agent(fake_env, project, "--output-format", "json", "--output-schema", bad, "q")
    assert r.returncode == 2
    result = events(r.stdout)[-1]
    assert result["subtype"] == "error_during_execution"
    assert "not a valid JSON Schema at type" in result["error"]
    missing = run_agent(fake_env, project, "--output-schema", str(tmp_path / "nope.json"), "q")
    assert missing.returncode == 2
    assert "cannot read it" in missing.stderr
    (tmp_path / "x.json").write_text("{oops")
    broken = run_agent(fake_env, project, "--output-schema", str(tmp_path / "x.json"), "q")
    assert broken.returncode == 2 and "not JSON" in broken.stderr


def test_json_stdout_is_json_lines_with_exactly_the_promised_result(
    fake: FakeOpenAI, fake_env: dict, project: Path, tmp_path: Path
) -> None:
    promised = set(result_line("success", ""))  # the README's result line
    fake.script(text(json.dumps(GOOD)))
    schema = schema_file(tmp_path)
    flags = ("--output-format", "json", "--output-schema", schema, "--max-tokens-total", "90000")
    r = run_agent(fake_env, project, *flags, "q")
    lines = events(r.stdout)  # every line is JSON
    assert lines[0]["type"] == "system" and lines[-1]["type"] == "result"
    # tool_search: the rare built-ins wait behind it (issue 46)
    assert set(lines[-1]) == promised | {"structured_output", "budget", "tool_search"}
    fake.script(text("no"), text("no"))
    r = run_agent(fake_env, project, "--output-format", "json", "--output-schema", schema, "q")
    extra = {"structured_output", "errors", "error", "tool_search"}
    assert set(events(r.stdout)[-1]) == promised | extra


def test_a_schema_with_a_reference_that_cannot_be_resolved_is_refused_at_start_up(
    fake: FakeOpenAI, fake_env: dict, project: Path, tmp_path: Path
) -> None:
    for schema in ({"$ref": "#/$defs/missing"}, {"$ref": "https://example.invalid/s.json"}):
        bad = schema_file(tmp_path, schema)
        r = run_agent(fake_env, project, "--output-format", "json", "--output-schema", bad, "q")
        assert r.returncode == 2, r.stderr
        result = events(r.stdout)[-1]
        assert result["subtype"] == "error_during_execution"
        assert "cannot be resolved" in result["error"]
    assert fake.requests == []  # nothing was sent


def test_nan_is_not_an_answer_and_never_reaches_stdout(
    fake: FakeOpenAI, fake_env: dict, project: Path, tmp_path: Path
) -> None:
    fake.script(text("NaN"), text("NaN"))
    r = run_agent(fake_env, project, "--output-schema", schema_file(tmp_path, {}), "q")
    assert r.returncode == EXIT_OUTPUT_SCHEMA, r.stderr
    assert r.stdout == ""
