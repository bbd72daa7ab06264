"""Command line: parse flags, then run one-shot or the REPL. `--version` imports nothing heavy."""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

from agent import __version__
from agent.config.claude_args import add_claude_flags
from agent.config.modes import MODES, SANDBOX_MODES
from agent.ui.process import EXIT_OK, EXIT_USAGE, exit_on_signals, exits_said, leave
from agent.ui.stdin import read_prompt

EPILOG = """examples:
  agent                                   the interactive REPL in this project
  agent "why does test_login fail?"       one question, the answer on stdout
  agent --output-format json "review the diff" > out.jsonl   in CI: JSON Lines, exit code
  agent mcp serve | add | add-json | get | list | remove     MCP (agent mcp --help)

{exits}
Scripts and CI: docs/ci.md. Every flag, Claude Code's too (--system-prompt, --allowedTools…):
docs/reference/cli.md.

environment (also from ~/.agent/.env): DEEPSEEK_API_KEY, OPENAI_API_KEY, GROQ_API_KEY,
OPENROUTER_API_KEY, OLLAMA_API_KEY, VLLM_API_KEY, LLAMACPP_API_KEY (providers' keys);
AGENT_API_KEY, AGENT_BASE_URL, AGENT_MODEL (any endpoint); AGENT_SANDBOX (as --sandbox);
AGENT_CACHE_DIR, AGENT_STATE_DIR (where the tag cache and the sessions are kept)."""


def parser() -> Any:
    import argparse

    p = argparse.ArgumentParser(
        prog="agent",
        usage="agent [options] [prompt ...]",
        allow_abbrev=False,  # `--system-prompt` must never turn into another flag
        description="A terminal coding agent for any OpenAI-compatible API.",
        epilog=EPILOG.replace("{exits}", exits_said(90)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("prompt", nargs="*", help='the question; "-" reads it from stdin')
    p.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        default="text",
        help="one-shot output; json: JSON Lines of every event (CI)",
    )
    p.add_argument("--think", action="store_true", help="use the provider's reasoning model")
    p.add_argument("--model", help="model name (overrides AGENT_MODEL and settings)")
    p.add_argument("--base-url", help="OpenAI-compatible base URL (overrides AGENT_BASE_URL)")
    p.add_argument("--provider", help="deepseek, openai, groq, openrouter, ollama, vllm, …")
    p.add_argument("--max-turns", type=int, metavar="N", help="model steps per turn (default 200)")
    p.add_argument(
        "-c", "--continue", dest="cont", action="store_true", help="continue the latest session"
    )
    p.add_argument("-r", "--resume", nargs="?", const="", metavar="ID", help="resume a session")
    _permission_flags(p, MODES)
    _script_flags(p)
    _session_flags(p)
    add_claude_flags(p)  # what the Claude Agent SDKs pass (hidden: docs/reference/cli.md)
    p.add_argument(
        "-v", "--verbose", action="store_true", help="print the model and session id at start"
    )
    p.add_argument("--version", action="version", version=f"agent {__version__}")
    return p


def _session_flags(p: Any) -> None:
    """Where the session runs: its MCP servers, the editor protocol, the sandbox, trust."""
    p.add_argument("--no-mcp", action="store_true", help="start no MCP servers")
    p.add_argument(
        "--acp",
        action="store_true",
        help="serve the Agent Client Protocol on stdio (editors)",
    )
    p.add_argument(
        "--sandbox",
        choices=SANDBOX_MODES,
        metavar="MODE",
        help=f"commands' OS sandbox: {', '.join(SANDBOX_MODES)}",
    )
    p.add_argument(
        "--trust-project",
        action="store_true",
        help="trust the project (settings, hooks, MCP) for this run",
    )


def _permission_flags(p: Any, modes: tuple[str, ...]) -> None:
    """--permission-mode, --allowed-tools, --disallowed-tools, --worktree."""
    p.add_argument(  # Claude Code's `auto` too (agent.config.claude.permission_mode)
        "--permission-mode",
        choices=(*modes, "auto"),
        metavar="MODE",
        help=f"one of {', '.join(modes)}",
    )
    p.add_argument(
        "--allowed-tools",
        action="append",
        default=[],
        metavar="RULE",
        help="allow rule(s); repeat the flag or separate with commas",
    )
    p.add_argument(
        "--disallowed-tools",
        action="append",
        default=[],
        metavar="RULE",
        help="deny rule(s); repeat the flag or separate with commas",
    )
    p.add_argument(
        "--worktree",
        nargs="?",
        const="",
        metavar="NAME",
        help="work in a new git worktree (kept if it has changes)",
    )


def _script_flags(p: Any) -> None:
    """The flags for scripts and CI (docs/ci.md); paths are taken from where agent started."""
    p.add_argument("-p", "--print", dest="print_mode", action="store_true", help="never the REPL")
    p.add_argument("--output-schema", type=_path, metavar="FILE", help="JSON Schema of the answer")
    p.add_argument(
        "--output-last-message",
        type=_output_file,
        metavar="FILE",
        help="also write the answer to FILE",
    )
    p.add_argument("--max-budget-usd", type=float, metavar="USD", help="stop before passing USD")
    p.add_argument("--max-tokens-total", type=int, metavar="N", help="stop before passing N tokens")
    p.add_argument("--append-system-prompt", metavar="TEXT", help="add TEXT to the system prompt")
    p.add_argument(
        "--system-prompt-file",
        type=_path,
        metavar="FILE",
        help="FILE replaces the prompt's persona",
    )
    p.add_argument(
        "--add-dir",
        action="append",
        type=_directory,
        metavar="DIR",
        help="one more directory the tools may read and write",
    )


def _path(value: str) -> str:
    return os.path.abspath(os.path.expanduser(value))


def _output_file(value: str) -> str:
    path = _path(value)
    if not os.path.isdir(os.path.dirname(path)):  # said before the run, not after it
        import argparse

        raise argparse.ArgumentTypeError(f"{value}: its directory does not exist")
    return path


def _directory(value: str) -> str:
    path = _path(value)
    if not os.path.isdir(path):
        import argparse

        raise argparse.ArgumentTypeError(f"{value}: not a directory")
    return path


ONE_SHOT_FLAGS = {  # flags that make no sense in the REPL
    "print_mode": "-p/--print",
    "output_schema": "--output-schema",
    "json_schema": "--json-schema",
    "output_last_message": "--output-last-message",
}


# `agent mcp WORD …` is a subcommand only when WORD is one of these: `agent mcp is great` and
# `agent "mcp list"` stay one-shot prompts.
MCP_COMMANDS = ("serve", "add", "add-json", "get", "list", "remove", "-h", "--help")


def unknown_flag(p: Any, argv: list[str]) -> str:
    """A long flag the parser does not know, said with the nearest one it does ("" when all
    are known): argparse would only say "unrecognized arguments"."""
    import difflib

    known = [o for o in p._option_string_actions if o.startswith("--")]
    for word in argv:
        if word == "--":
            break  # what follows is the prompt
        flag = word.split("=", 1)[0]
        if flag.startswith("--") and flag not in known:
            # compared without the dashes every flag shares
            near = difflib.get_close_matches(flag[2:], [k[2:] for k in known], n=1, cutoff=0.6)
            return f"unknown flag {flag}" + (f"; did you mean --{near[0]}?" if near else "")
    return ""


def run() -> NoReturn:
    """The `agent` command: the command line, then out without the interpreter's teardown
    (agent.ui.process.leave)."""
    leave(main())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv in (["--version"], ["-V"]):  # the fast path: no argparse, nothing else
        print(f"agent {__version__}")
        return EXIT_OK
    if argv[:1] == ["mcp"] and argv[1:2] and argv[1] in MCP_COMMANDS:
        # deferred: ~75 ms (settings, start-up, the mcp command line): only for `agent mcp …`
        from agent.mcpcli.main import main as mcp_main

        return mcp_main(argv[1:])
    p = parser()
    fmt = _format_asked(argv)
    if fmt != "text":  # a usage error still ends with the result line a wrapper waits for
        p.error = lambda message: _usage_error(p, fmt, message)
    unknown = unknown_flag(p, argv)
    if unknown:  # one line (a newer SDK's flag): no usage to scroll past
        raise SystemExit(_fail(fmt, unknown))
    args = p.parse_args(argv)
    exit_on_signals()
    for flag in ("resume", "worktree"):  # `agent -r "a question"`: a sentence is the prompt
        value = getattr(args, flag)
        if value and any(c.isspace() for c in value):
            args.prompt.insert(0, value)
            setattr(args, flag, "")
    return _front_end(p, args)


def _front_end(p: Any, args: Any) -> int:
    """What the arguments ask for: a program's session (the Claude Agent SDKs), an editor's
    (ACP), the REPL or a one-shot run — in a new worktree with --worktree."""
    if args.input_format == "stream-json":  # a program drives the session (Claude Agent SDK)
        if args.output_format != "stream-json":
            p.error("--input-format stream-json needs --output-format stream-json")
        # deferred: ~220 ms (the whole session): only when a program drives the agent
        from agent.sdk.main import serve

        return serve(args)
    if args.acp:
        if args.prompt:
            p.error("--acp takes no prompt: the editor sends the prompts")
        # deferred: ~390 ms (the ACP package, pydantic models): only in this mode
        from agent.editor.stdio import main as serve_acp

        return serve_acp(args)
    prompt = read_prompt(args.prompt)
    needs_prompt = [flag for name, flag in ONE_SHOT_FLAGS.items() if getattr(args, name)]
    if prompt is None and needs_prompt:
        p.error(f'{needs_prompt[0]} runs one-shot: give a prompt (agent -p "question") or pipe one')
    if args.worktree is not None:  # made before either front end starts, entered by it
        fmt = args.output_format
        # deferred: ~45 ms: only with --worktree
        from agent.subagents.worktree import with_worktree

        return with_worktree(args, lambda: _run(args, prompt), lambda why: _fail(fmt, why))
    return _run(args, prompt)


def _run(args: Any, prompt: str | None) -> int:
    if prompt is None:
        # deferred: ~60 ms (prompt_toolkit): the chosen front end only
        from agent.ui.repl import run_repl

        return run_repl(args)
    # deferred: ~70 ms: the chosen front end only
    from agent.ui.oneshot import run_oneshot

    return run_oneshot(args, prompt)


def _format_asked(argv: list[str]) -> str:
    for i, a in enumerate(argv):
        if a.startswith("--output-format="):
            return a.split("=", 1)[1]
        if a == "--output-format" and i + 1 < len(argv):
            return argv[i + 1]
    return "text"


def _usage_error(p: Any, fmt: str, message: str) -> Any:
    p.print_usage(sys.stderr)
    raise SystemExit(_fail(fmt, message))


def _fail(fmt: str, message: str) -> int:
    """Said before a run starts: on stderr, and as the result line JSON output ends with."""
    # deferred: ~70 ms: the chosen front end only
    from agent.ui.oneshot import _fail_early, make_renderer

    if fmt in ("json", "stream-json"):
        return _fail_early(make_renderer(fmt, False), fmt, message, EXIT_USAGE)
    return _fail_early(None, "text", message, EXIT_USAGE)
