"""`agent mcp SUBCOMMAND …`: the command line of `serve`, `add`, `add-json`, `get`, `list` and
`remove` (agent.cli sends argv here when argv[0] is `mcp` and argv[1] is one of its
MCP_COMMANDS)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from agent.base.visible import visible
from agent.config.load import ConfigError, Flags
from agent.config.mcpfiles import SCOPES
from agent.config.modes import MODES
from agent.config.settings import split_rules
from agent.mcpcli import servers
from agent.ui.process import EXIT_USAGE, exit_on_signals
from agent.ui.startup import configure

EPILOG = """examples:
  agent mcp add time -- uvx mcp-server-time            a stdio server (local scope)
  agent mcp add -s user -e TZ=UTC time -- uvx mcp-server-time
  agent mcp add -s project -t http -H 'Authorization: Bearer ${TOKEN}' docs https://example.com/mcp
  agent mcp list                                       every server, by file
  agent mcp remove time                                from the one scope that has it
  agent mcp serve --permission-mode acceptEdits        the agent's tools to another client

scopes: local = .agent/settings.local.json (you, this project; the default),
project = .mcp.json (shared; starts once the project is trusted), user = ~/.agent/settings.json"""
# Serving calls no model: the configuration is loaded with a keyless provider preset, so that
# no API key, model or endpoint is needed (and a broken provider setting cannot stop it).
NO_MODEL = "ollama"


class _Exact(argparse.ArgumentParser):
    """A parser that matches long flags whole: an abbreviation may name another flag."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        kw.setdefault("allow_abbrev", False)
        super().__init__(*args, **kw)


def parser() -> argparse.ArgumentParser:
    p = _Exact(
        prog="agent mcp",
        description="Serve the agent's tools over MCP, or manage the MCP servers it uses.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Exact)
    _serve_parser(sub.add_parser("serve", help="serve read, edit, glob, grep, bash… on stdio"))
    add = sub.add_parser(
        "add",
        help="add a server: NAME -- COMMAND [ARGS…], or NAME URL",
        usage="agent mcp add [-s SCOPE] [-e KEY=VALUE]… NAME -- COMMAND [ARGS…]\n"
        '       agent mcp add [-s SCOPE] -t http|sse [-H "NAME: VALUE"]… NAME URL',
    )
    _scope(add, "local")
    add.add_argument("-t", "--transport", choices=("stdio", "http", "sse"), help="default stdio")
    add.add_argument(
        "-e", "--env", action="append", default=[], metavar="KEY=VALUE", help="stdio: env var"
    )
    add.add_argument(
        "-H", "--header", action="append", default=[], metavar='"NAME: VALUE"', help="http, sse"
    )
    add.add_argument("name", help="letters, digits, - and _")
    add.add_argument("target", nargs="*", metavar="COMMAND|URL", help="the command, or the URL")
    add_json = sub.add_parser("add-json", help="add a server from its JSON definition")
    _scope(add_json, "local")
    add_json.add_argument("name")
    add_json.add_argument("json")
    sub.add_parser("get", help="show one server's definitions").add_argument("name")
    sub.add_parser("list", help="list the servers of every file")
    remove = sub.add_parser("remove", help="remove a server")
    _scope(remove, None)
    remove.add_argument("name")
    return p


def _scope(p: argparse.ArgumentParser, default: str | None) -> None:
    shown = f" (default {default})" if default else " (needed when several have NAME)"
    p.add_argument("-s", "--scope", choices=SCOPES, default=default, help=f"where{shown}")


def _serve_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("--permission-mode", choices=MODES, metavar="MODE", help=", ".join(MODES))
    for flag, what in (("--allowed-tools", "allow"), ("--disallowed-tools", "deny")):
        p.add_argument(flag, action="append", default=[], metavar="RULE", help=f"{what} rule(s)")
    p.add_argument(
        "--sandbox", choices=("off", "read-only", "workspace-write"), metavar="MODE", help="MODE"
    )
    p.add_argument("--add-dir", action="append", default=[], metavar="DIR", help="one more dir")
    p.add_argument("--trust-project", action="store_true", help="trust this project's settings")
    p.add_argument("--cwd", metavar="DIR", help="the project to serve (default: where it starts)")
    p.add_argument("-v", "--verbose", action="store_true", help="log each call on stderr")


def main(argv: list[str]) -> int:
    head, tail = _split(argv)
    p = parser()
    args, extra = p.parse_known_args(head)
    if extra:
        hint = " (a server's own options go after --: NAME -- COMMAND ARGS…)"
        p.error(f"unrecognized arguments: {' '.join(extra)}{hint if args.command == 'add' else ''}")
    try:
        if args.command == "serve":
            return _serve(args)
        return servers.run(args, tail, Path.cwd())
    except ConfigError as e:
        print(f"agent mcp: {visible(str(e))}", file=sys.stderr)  # it may quote a project file
        return EXIT_USAGE


def _split(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """`add NAME [options] -- COMMAND ARGS…`: what follows `--` is the server's command line,
    options like `-y` included, never the agent's."""
    if argv[:1] == ["add"] and "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1 :]
    return argv, None


def _serve(args: argparse.Namespace) -> int:
    cwd = Path(os.path.abspath(os.path.expanduser(args.cwd))) if args.cwd else None
    if cwd is not None and not cwd.is_dir():
        raise ConfigError(f"--cwd {args.cwd}: not a directory")
    dirs = tuple(os.path.abspath(os.path.expanduser(d)) for d in args.add_dir)
    for d in dirs:
        if not os.path.isdir(d):
            raise ConfigError(f"--add-dir {d}: not a directory")
    flags = Flags(
        provider=NO_MODEL,
        permission_mode=args.permission_mode,
        allowed_tools=split_rules(args.allowed_tools),
        disallowed_tools=split_rules(args.disallowed_tools),
        trust_project=args.trust_project,
        no_mcp=True,  # the agent's own MCP servers are not re-served
        verbose=args.verbose,
        sandbox=args.sandbox,
        add_dirs=dirs,
    )
    cfg = configure(flags, None, cwd)
    exit_on_signals()  # SIGTERM from the client: background commands are stopped on the way out
    # deferred: ~520 ms (the mcp SDK, pydantic, the tool modules): only when serving
    from agent.mcpcli.serve import serve

    return serve(cfg, args.verbose)
