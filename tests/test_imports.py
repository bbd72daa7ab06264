"""Import discipline: the loop knows no UI; start-up paths import nothing heavy."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("openai", "mcp", "rich", "prompt_toolkit", "httpx", "httpx2", "pydantic")


def modules_after(code: str) -> set[str]:
    # after a marker: what the code prints (--help's text) is not module names
    listing = "import sys; print('\\n@modules@'); print('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\n{listing}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(out.stdout.rsplit("@modules@", 1)[-1].split())


def test_loop_imports_no_ui_or_commands() -> None:
    mods = modules_after("import agent.core.loop")
    for bad in (
        "rich",
        "prompt_toolkit",
        "agent.ui.render",
        "agent.cli",
        "agent.ui.line_repl",
        "agent.ui.oneshot",
        "openai",
        "mcp",
    ):
        assert bad not in mods, bad


def test_tools_import_cheaply() -> None:
    mods = modules_after("from agent.tools import builtin_tools; builtin_tools()")
    assert not [m for m in HEAVY if m in mods]


def test_version_path_imports_nothing_heavy() -> None:
    mods = modules_after(
        "import sys; sys.argv=['agent','--version']\nfrom agent.cli import main; main()"
    )
    assert not [m for m in HEAVY if m in mods]
    assert "agent.config.load" not in mods
    assert "argparse" not in mods


def test_help_path_imports_nothing_heavy() -> None:
    mods = modules_after(
        "import sys; sys.argv=['agent','--help']\nfrom agent.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    )
    assert not [m for m in HEAVY if m in mods]


def test_no_import_cycles_deferred_imports_included() -> None:
    """The layers contract (import-linter, run by .ci/run) forbids upward imports; within a
    layer, no module may reach back to itself either — imports inside functions included."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "bench" / "shape.py"
    spec = importlib.util.spec_from_file_location("shape", path)
    assert spec is not None and spec.loader is not None
    shape = importlib.util.module_from_spec(spec)
    sys.modules["shape"] = shape  # dataclasses look their module up while the file runs
    spec.loader.exec_module(shape)
    assert shape.cycles(shape.load()) == []
