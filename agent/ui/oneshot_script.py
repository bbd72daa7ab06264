"""What a one-shot run does for the program that reads it: the `--output-schema` check and its
repair turn, the `result` event's `structured_output`, `errors` and `budget`, the parsed value
alone on stdout in text mode, and `--output-last-message FILE`.

In text mode with `--output-schema`, stdout carries the parsed value as one line of JSON and
nothing else; the model's answer as it wrote it goes to stderr with the tool activity.
"""

from __future__ import annotations

import json
import sys
from argparse import Namespace
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from agent.base.events import TurnEnd
from agent.base.visible import json_escaped, visible
from agent.config.load import Config
from agent.core.structured import FAILED, Structured
from agent.ui.process import EXIT_MAX_BUDGET, EXIT_MAX_TOKENS, EXIT_OUTPUT_SCHEMA

if TYPE_CHECKING:  # annotations only
    from agent.app import Run

EXIT_BY_SCRIPT_SUBTYPE = {
    "error_max_budget_usd": EXIT_MAX_BUDGET,
    "error_max_tokens_total": EXIT_MAX_TOKENS,
    FAILED: EXIT_OUTPUT_SCHEMA,
}


def answer_out(args: Namespace, stdout: IO[str]) -> IO[str]:
    """Where text mode writes the model's answer: stdout, or stderr when stdout is kept for the
    structured output."""
    if args.output_format == "text" and getattr(args, "output_schema", None):
        return sys.stderr
    return stdout


@dataclass
class Script:
    """The script options of one one-shot run."""

    structured: Structured | None = None
    last_message: str = ""  # --output-last-message FILE ("" = none)
    text_mode: bool = True

    @classmethod
    def of(cls, args: Namespace, cfg: Config) -> Script:
        schema = cfg.automation.output_schema
        return cls(
            Structured(schema) if schema is not None else None,
            getattr(args, "output_last_message", None) or "",
            args.output_format == "text",
        )

    async def settle(self, run: Run, end: TurnEnd) -> TurnEnd:
        """The end of the run once its answer is checked against the schema (one repair turn)."""
        if self.structured is None:
            return end
        return await self.structured.settle(end, run.turn)

    def result_fields(self, run: Run) -> dict[str, Any]:
        """What the `result` event adds: `structured_output` (with --output-schema; null without
        a valid answer), `errors` (when it did not validate), `budget` (with a cap)."""
        fields: dict[str, Any] = {}
        s = self.structured
        if s is not None:
            fields["structured_output"] = s.value if s.valid else None
            if s.errors:
                fields["errors"] = s.errors
        budget = run.agent.llm.budget
        if budget is not None:
            fields["budget"] = budget.report()
        return fields

    def deliver(self, end: TurnEnd, stdout: IO[str]) -> None:
        """The parsed value on stdout (text mode), the last message to its file."""
        s, value = self.structured, None
        if s is not None and s.valid:
            value = json.dumps(s.value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
            value = json_escaped(value)  # the same value; nothing a terminal would interpret
        if self.text_mode and value is not None:
            stdout.write(value + "\n")
            stdout.flush()
        elif self.text_mode and end.subtype == FAILED:  # (the loop's own ends say theirs)
            print(f"error: {visible(end.error or '')}", file=sys.stderr)
        if self.last_message:
            text = value if value is not None else end.text
            try:
                Path(self.last_message).write_text(text + "\n" if text else "", encoding="utf-8")
            except OSError as e:
                print(f"agent: warning: --output-last-message: {visible(str(e))}", file=sys.stderr)
