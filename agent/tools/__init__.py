"""The built-in tools, one subpackage per family, and the flat registry they join.

The families (files, patch, search, code, shell, web, tasks, discover) stand apart: none
imports another; what two of them need lives below them in `shared/` (an import-linter contract
in pyproject.toml holds both). Adding a tool = declaring its arguments (agent.base.args),
writing one `Tool` record (agent.base.record) in its family and listing it in `builtin_tools()`
(builtin.py); the record declares what the layers around it need (its kind, what its calls act
on, other names, an edit preview). Tools that belong to a feature (project actions, subagents)
live in that feature's package and join the same registry when the app assembles a session.

`session.py` makes a session's tool context. Importing this package costs nothing: a tool
module used alone (completion's file listing, the ACP's images check) loads only what it uses.

May import: code (tree-sitter tags), sandbox, permissions (paths, secrets), base, git, config.
"""

from __future__ import annotations

import sys


def stop_background() -> None:
    """Kill the processes bash started with run_in_background (if any were started)."""
    bg = sys.modules.get("agent.tools.shell.background")  # never loaded = nothing to stop
    if bg is not None:
        bg.shutdown()
