"""Claude Code's flags on agent's command line (agent.cli), as the Claude Agent SDKs pass them
to the CLI they spawn. Hidden from `--help`, which points to docs/reference/cli.md (made from
CLAUDE_HELP); what they do is agent.config.claude. Only argparse's own module is imported,
when called."""

from __future__ import annotations

from typing import Any

THINKING = ("adaptive", "enabled", "disabled")
NO_EFFECT = "accepted with Claude Code's spelling; no effect here, said on stderr"
# What each does, for the reference (docs/reference/cli.md): --help keeps them hidden
CLAUDE_HELP = {
    "--allowedTools": "the same rules as --allowed-tools (commas or spaces between rules)",
    "--disallowedTools": "the same rules as --disallowed-tools",
    "--input-format": "stream-json: a program drives a long-lived session over stdin/stdout "
    "(with --output-format stream-json; the Claude Agent SDKs' control protocol)",
    "--system-prompt": "TEXT replaces the built-in persona (the tools' rules, memory files and "
    'the environment block stay); "" leaves no persona',
    "--json-schema": "as --output-schema, the schema given inline",
    "--tools": 'the built-in tools offered: "default" (all), "" (none) or names and patterns',
    "--agents": "subagent definitions as JSON, as .agent/agents/*.md files are read",
    "--mcp-config": 'MCP servers {"mcpServers": …} as JSON or a file, for this run (repeatable)',
    "--strict-mcp-config": "only the --mcp-config servers",
    "--settings": "one more settings layer (JSON or a file), over the settings files",
    "--setting-sources": "which settings files are read: user, project, local (comma-separated)",
    "--permission-prompt-tool": "stdio: the driving program answers permission requests",
    "--include-partial-messages": "stream-json also carries stream_event lines",
    "--session-id": "the new session's id (a UUID not in use)",
    "--fork-session": "with --resume/--continue: continue in a new session with a copy",
    "--thinking": "adaptive or enabled turn reasoning on as --think does; disabled leaves it off",
    "--max-thinking-tokens": "N > 0 turns reasoning on as --think does (the budget is not sent)",
}
for _flag in (
    "--fallback-model", "--effort", "--thinking-display", "--task-budget", "--resume-session-at",
    "--resume-drops-turn", "--betas", "--plugin-dir", "--include-hook-events", "--session-mirror",
):  # fmt: skip
    CLAUDE_HELP[_flag] = NO_EFFECT


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
