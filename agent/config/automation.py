"""What a script or a CI job asks of a run besides the task: a JSON Schema the final answer must
match (`--output-schema`, or Claude Code's inline `--json-schema`), spending caps
(`--max-budget-usd`, `--max-tokens-total`) and the system prompt's additions
(`--system-prompt-file` or Claude Code's `--system-prompt TEXT`, `--append-system-prompt`).

Read and checked once, at start-up: a missing file, a schema that is not JSON or not a valid
JSON Schema, or a cap that is not a positive number stops the run with exit code 2 before
anything is sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.config.errors import ConfigError

if TYPE_CHECKING:  # annotations only
    from argparse import Namespace

    from agent.config.prices import Price


@dataclass(frozen=True)
class Automation:
    """The run's script options (all off by default)."""

    output_schema: dict[str, Any] | None = None  # the parsed --output-schema
    max_budget_usd: float | None = None
    max_tokens_total: int | None = None
    # --system-prompt TEXT or the text of --system-prompt-file: replaces the built-in persona
    # ("" = none at all); None = the built-in one
    system_prompt: str | None = None
    append_prompt: str = ""  # --append-system-prompt

    @property
    def capped(self) -> bool:
        """A spending cap is set."""
        return self.max_budget_usd is not None or self.max_tokens_total is not None

    def warnings(self, model: str, price: Price | None) -> tuple[str, ...]:
        """What to say at start: a dollar cap that cannot be kept, for want of a price."""
        if self.max_budget_usd is None or price is not None:
            return ()
        return (
            f"--max-budget-usd: no price is known for model {model}, so the budget cannot be "
            f"kept in dollars; only token counts are reported (set prices.{model} — or priceIn, "
            "priceCached, priceOut — in your settings, or cap tokens with --max-tokens-total)",
        )


def automation_from(args: Namespace) -> Automation:
    """The Automation of parsed command-line arguments (agent.cli); raises ConfigError."""
    schema_file = getattr(args, "output_schema", None)
    schema_text = getattr(args, "json_schema", None)  # Claude Code's inline --json-schema
    prompt_file = getattr(args, "system_prompt_file", None)
    prompt = getattr(args, "system_prompt", None)  # Claude Code's --system-prompt TEXT
    for a, b in (("output_schema", "json_schema"), ("system_prompt_file", "system_prompt")):
        if getattr(args, a, None) is not None and getattr(args, b, None) is not None:
            flags = " and ".join(f"--{n.replace('_', '-')}" for n in (a, b))
            raise ConfigError(f"{flags} say the same thing: give one of them")
    usd = getattr(args, "max_budget_usd", None)
    tokens = getattr(args, "max_tokens_total", None)
    if usd is not None and not usd > 0:
        raise ConfigError(f"--max-budget-usd must be a positive number of dollars, not {usd!r}")
    if tokens is not None and tokens < 1:
        raise ConfigError(f"--max-tokens-total must be a whole number of at least 1, not {tokens}")
    if prompt_file:
        prompt = _read_text(prompt_file, "--system-prompt-file")
    schema = read_schema(schema_file) if schema_file else None
    if schema_text is not None:
        schema = checked_schema(schema_text, "--json-schema")
    return Automation(
        output_schema=schema,
        max_budget_usd=usd,
        max_tokens_total=tokens,
        system_prompt=prompt.strip() if prompt is not None else None,
        append_prompt=(getattr(args, "append_system_prompt", None) or "").strip(),
    )


def _read_text(path: str, flag: str) -> str:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{flag} {path}: cannot read it ({e})") from None
    if not text.strip():
        raise ConfigError(f"{flag} {path}: the file is empty")
    return text.strip()


def read_schema(path: str) -> dict[str, Any]:
    """The JSON Schema in `path`, checked against its own meta-schema."""
    return checked_schema(_read_text(path, "--output-schema"), f"--output-schema {path}")


def checked_schema(text: str, where: str) -> dict[str, Any]:
    """The JSON Schema `text`, checked against its own meta-schema; `where` names it."""
    try:
        schema = json.loads(text)
    except ValueError as e:
        raise ConfigError(f"{where}: not JSON ({e})") from None
    if not isinstance(schema, dict):
        raise ConfigError(f"{where}: a JSON Schema is an object, not {text[:40]}")
    from jsonschema import exceptions, validators  # deferred: ~60 ms: only with --output-schema

    try:
        validators.validator_for(schema).check_schema(schema)
    except exceptions.SchemaError as e:
        place = "/".join(str(p) for p in e.absolute_path) or "the top level"
        raise ConfigError(f"{where}: not a valid JSON Schema at {place}: {e.message}") from None
    bad = unresolvable_ref(schema)
    if bad is not None:
        raise ConfigError(f"{where}: {bad}")
    return schema


_DATA_KEYWORDS = {"const", "enum", "default", "examples"}  # values, not schemas: no $ref there


def schema_registry(schema: dict[str, Any]) -> Any:
    """A `referencing` registry of `schema` and the resources it embeds, and nothing else: it
    retrieves nothing (a remote `$ref` is never downloaded)."""
    from jsonschema_specifications import REGISTRY as METASCHEMAS  # bundled, not fetched

    resource = _specification(schema).create_resource(schema)
    return METASCHEMAS.with_resource(resource.id() or "", resource).crawl()


def _specification(schema: dict[str, Any]) -> Any:
    from referencing.jsonschema import DRAFT202012, specification_with

    dialect = schema.get("$schema")
    return specification_with(dialect if isinstance(dialect, str) else "", default=DRAFT202012)


def unresolvable_ref(schema: dict[str, Any]) -> str | None:
    """Why a `$ref` of `schema` cannot be followed (one that points nowhere in it, or outside
    it: remote schemas are not fetched); None when every one can."""
    from referencing.exceptions import Unresolvable

    registry = schema_registry(schema)
    spec = _specification(schema)
    root = spec.create_resource(schema)

    def walk(node: Any, resolver: Any, where: str) -> str | None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                if (why := walk(item, resolver, f"{where}/{i}")) is not None:
                    return why
            return None
        if not isinstance(node, dict):
            return None
        if node is not schema and isinstance(node.get("$id"), str):
            resolver = resolver.in_subresource(spec.create_resource(node))
        for key in ("$ref", "$dynamicRef", "$recursiveRef"):
            ref = node.get(key)
            if isinstance(ref, str):
                try:
                    resolver.lookup(ref)
                except Unresolvable:
                    place = where or "the top level"
                    return (
                        f'the reference {key} "{ref}" at {place} cannot be resolved (only '
                        "references within the schema file are followed; nothing is downloaded)"
                    )
        for key, value in node.items():
            if key in _DATA_KEYWORDS:
                continue
            if (why := walk(value, resolver, f"{where}/{key}")) is not None:
                return why
        return None

    return walk(schema, registry.resolver(base_uri=root.id() or ""), "")
