"""Import discipline: the loop knows no UI; start-up paths import nothing heavy."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

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
    mods = modules_after("from agent.tools.builtin import builtin_tools; builtin_tools()")
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


def _shape() -> Any:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "bench" / "shape.py"
    spec = importlib.util.spec_from_file_location("shape", path)
    assert spec is not None and spec.loader is not None
    shape = importlib.util.module_from_spec(spec)
    sys.modules["shape"] = shape  # dataclasses look their module up while the file runs
    spec.loader.exec_module(shape)
    return shape


def test_no_import_cycles_deferred_and_type_only_imports_included() -> None:
    """The layers contract (import-linter, run by .ci/run) forbids upward imports; within a
    layer, no module may reach back to itself either — imports inside functions and imports
    for annotations only included."""
    shape = _shape()
    assert shape.cycles(shape.load()) == []


def test_the_shape_holds() -> None:
    """AGENT.md's figures: files of at most 300 lines, functions of at most 50, and at most 40
    deferred imports of the project's own modules, each saying why (`# deferred: ~N ms: …`)."""
    shape = _shape()
    mods = shape.load()
    assert [m.name for m in mods.values() if m.lines > shape.LONG_FILE] == []
    long = [f"{m.name}.{q}" for m in mods.values() for n, q in m.functions if n > 50]
    assert long == []
    assert sum(m.deferred for m in mods.values()) <= 40
    assert [(m.name, line) for m in mods.values() for line in m.unexplained] == []
