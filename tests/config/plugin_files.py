"""A realistic Claude Code plugin with one of each part, written where a test wants it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from helpers import MCP_SERVERS

GUARD = """\
import json, sys
event = json.load(sys.stdin)
if event["tool_name"] == "write_file":
    print("myplugin guard: no writes here", file=sys.stderr)
    sys.exit(2)
"""


def write_plugin(folder: Path, name: str = "myplugin", version: str = "1.2.0") -> Path:
    """`folder` as the plugin `name`: a command, a skill, an agent, a hook using
    ${CLAUDE_PLUGIN_ROOT} and an MCP server (tests/mcp_servers/demo.py) marking its start."""
    meta = {"name": name, "version": version, "description": "a plugin for the tests"}
    files = {
        ".claude-plugin/plugin.json": json.dumps(meta),
        "commands/hello.md": "---\ndescription: Say hello\n---\nGreet $ARGUMENTS warmly.\n",
        "skills/greeting/SKILL.md": (
            "---\nname: greeting\ndescription: How to greet people in this team.\n---\n"
            "Say hello first.\n"
        ),
        "agents/greeter.md": (
            "---\nname: greeter\ndescription: Writes greetings for the team.\ntools: Read\n---\n"
            "You write greetings.\n"
        ),
        "hooks/guard.py": GUARD,
        "hooks/hooks.json": json.dumps({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [
            {"type": "command",
             "command": f"{sys.executable} ${{CLAUDE_PLUGIN_ROOT}}/hooks/guard.py"}]}]}}),
        ".mcp.json": json.dumps({"mcpServers": {"plugdemo": {
            "command": sys.executable, "args": [str(MCP_SERVERS / "demo.py")],
            "env": {"MCP_DEMO_MARKER": "${CLAUDE_PLUGIN_ROOT}/started"}, "timeout": 60}}}),
    }  # fmt: skip
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return folder
