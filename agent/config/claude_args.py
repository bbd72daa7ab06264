"""Claude Code's flags on agent's command line (agent.cli), as the Claude Agent SDKs pass them
to the CLI they spawn. Hidden from `--help`, which points to the README's table of them; what
they do is agent.config.claude. Only argparse's own module is imported, when called."""

from __future__ import annotations

from typing import Any

THINKING = ("adaptive", "enabled", "disabled")


def add_claude_flags(p: Any) -> None:
    """Add the flags to `p` (an argparse.ArgumentParser), each hidden from --help."""
    import argparse

    h = argparse.SUPPRESS
    # the same lists as --allowed-tools / --disallowed-tools, in Claude Code's spelling
    p.add_argument("--allowedTools", dest="allowed_tools", action="append", help=h)
    p.add_argument("--disallowedTools", dest="disallowed_tools", action="append", help=h)
    p.add_argument("--input-format", choices=("text", "stream-json"), default="text", help=h)
    p.add_argument("--system-prompt", metavar="TEXT", help=h)
    p.add_argument("--json-schema", metavar="JSON", help=h)
    p.add_argument("--tools", metavar="NAMES", help=h)
    p.add_argument("--agents", metavar="JSON", help=h)
    p.add_argument("--mcp-config", action="append", metavar="JSON", help=h)
    p.add_argument("--strict-mcp-config", action="store_true", help=h)
    p.add_argument("--settings", metavar="JSON", help=h)
    p.add_argument("--setting-sources", metavar="SOURCES", help=h)
    p.add_argument("--permission-prompt-tool", metavar="NAME", help=h)
    p.add_argument("--include-partial-messages", action="store_true", help=h)
    p.add_argument("--session-id", metavar="UUID", help=h)
    p.add_argument("--fork-session", action="store_true", help=h)
    p.add_argument("--thinking", choices=THINKING, metavar="MODE", help=h)
    p.add_argument("--max-thinking-tokens", type=int, metavar="N", help=h)
    # accepted with a note on stderr: nothing here matches them (agent.config.claude.NO_EFFECT)
    for flag in ("--fallback-model", "--effort", "--thinking-display", "--task-budget"):
        p.add_argument(flag, metavar="VALUE", help=h)
    for flag in ("--resume-session-at", "--resume-drops-turn"):
        p.add_argument(flag, metavar="VALUE", help=h)
    for flag in ("--betas", "--plugin-dir"):
        p.add_argument(flag, action="append", metavar="VALUE", help=h)
    for flag in ("--include-hook-events", "--session-mirror"):
        p.add_argument(flag, action="store_true", help=h)
