"""Which language servers a session may use: the known ones (found on PATH or beside the
agent's own Python, never downloaded) and the `lsp` setting, in the shape opencode users know:

    "lsp": {"ty": {"disabled": true},
            "mine": {"command": ["my-server", "--stdio"], "extensions": [".foo"]}}

`"lsp": false` turns them all off. A known server's entry may change its command, extensions,
`env`, `initialization` (initializationOptions) and `settings` (workspace/configuration).
For Python the first installed of ty, basedpyright, pyright, pyrefly, jedi-language-server
and pylsp runs, with `ruff server` beside it for lint diagnostics. ty first, by measurement
(`python -m bench.lsp`): it starts in 6 ms and answers an edit's diagnostics in 5 ms, pulled
rather than waited for, in 35 MB of memory and a 40 MB wheel (basedpyright: 269 and 278 ms,
168 MB, and 280 MB installed with its Node); pyrefly, jedi and pylsp reported no type error.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

PY = (".py", ".pyi")
TS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
LANGUAGE_IDS = {
    ".py": "python", ".pyi": "python", ".ts": "typescript", ".tsx": "typescriptreact",
    ".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript",
    ".mts": "typescript", ".cts": "typescript", ".go": "go", ".rs": "rust",
}  # fmt: skip


class ServerSpec(NamedTuple):  # not a dataclass: ~5× cheaper to define (start-up)
    """A language server: how to start it and which files it takes."""

    name: str
    command: tuple[str, ...]
    extensions: tuple[str, ...]
    group: str = ""  # servers of one group stand in for each other: the first found runs
    runs: str = ""  # what of the project it runs or reads (/lsp, docs/code-intelligence.md)
    env: Mapping[str, str] = MappingProxyType({})
    init_options: dict[str, Any] | None = None
    settings: Any = None  # the answer to workspace/configuration
    navigates: bool = True  # answers definition, references, hover (ruff: diagnostics only)

    def language_of(self, path: Path) -> str:
        return LANGUAGE_IDS.get(path.suffix, path.suffix.lstrip("."))

    def takes(self, path: Path) -> bool:
        return path.suffix in self.extensions


PYTHON_RUNS = "reads pyproject.toml and its config; runs the project's Python to find imports"
KNOWN = (
    ServerSpec("ty", ("ty", "server"), PY, "python", PYTHON_RUNS),
    ServerSpec("basedpyright", ("basedpyright-langserver", "--stdio"), PY, "python", PYTHON_RUNS),
    ServerSpec("pyright", ("pyright-langserver", "--stdio"), PY, "python", PYTHON_RUNS),
    ServerSpec("pyrefly", ("pyrefly", "lsp"), PY, "python", PYTHON_RUNS),
    ServerSpec("jedi", ("jedi-language-server",), PY, "python", PYTHON_RUNS),
    ServerSpec("pylsp", ("pylsp",), PY, "python", "loads pylsp plugins; " + PYTHON_RUNS),
    ServerSpec(
        "ruff", ("ruff", "server"), PY, "python-lint", "reads ruff's settings", navigates=False
    ),
    ServerSpec(
        "typescript",
        ("typescript-language-server", "--stdio"),
        TS,
        "typescript",
        "loads the TypeScript and plugins named in tsconfig.json from node_modules",
    ),
    ServerSpec("gopls", ("gopls",), (".go",), "go", "runs the go tool (builds, go list)"),
    ServerSpec(
        "rust-analyzer",
        ("rust-analyzer",),
        (".rs",),
        "rust",
        "runs cargo: build scripts and proc macros",
    ),
)


def which(program: str) -> str | None:
    """A program on PATH, or beside the agent's own Python (a server installed with it); not
    a rustup proxy whose toolchain lacks it (~/.cargo/bin/rust-analyzer without the component
    answers every start with an error). Looked up once per PATH: every edit asks."""
    return _which(program, os.environ.get("PATH"))


@functools.lru_cache(maxsize=64)
def _which(program: str, path: str | None) -> str | None:
    found = shutil.which(program, path=path)
    if found:
        return None if _empty_proxy(found, program) else found
    beside = Path(sys.executable).parent / program
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None


@functools.lru_cache(maxsize=16)
def _empty_proxy(found: str, program: str) -> bool:
    """`found` is rustup standing in for `program`, and `rustup which` finds no such binary."""
    real = Path(os.path.realpath(found))
    if real.name != "rustup" or program == "rustup":
        return False
    env = {**os.environ, "RUSTUP_AUTO_INSTALL": "0"}  # never a toolchain download for this
    try:  # rustup's own lookup, away from any project's rust-toolchain.toml (cwd: its home)
        done = subprocess.run(
            [str(real), "which", program], capture_output=True, timeout=10, env=env,
            cwd=real.parent,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return True
    return done.returncode != 0


def configured(setting: Any) -> list[ServerSpec]:
    """The servers the `lsp` setting leaves or adds (the known ones in their order first);
    found or not is decided when one is needed. Bad entries were reported by agent.config."""
    if setting is False:
        return []
    entries = setting if isinstance(setting, dict) else {}
    out = []
    for spec in KNOWN:
        entry = entries.get(spec.name)
        if isinstance(entry, dict) and entry.get("disabled") is True:
            continue
        out.append(_apply(spec, entry) if isinstance(entry, dict) else spec)
    known = {s.name for s in KNOWN}
    for name, entry in entries.items():
        new = name not in known and isinstance(entry, dict) and not entry.get("disabled")
        if new and isinstance(entry.get("command"), list) and entry["command"]:
            out.append(
                _apply(ServerSpec(name, (), (), name, "comes from your lsp settings"), entry)
            )
    return out


def _apply(spec: ServerSpec, entry: dict[str, Any]) -> ServerSpec:
    command = entry.get("command")
    exts = entry.get("extensions")
    env = entry.get("env")
    return spec._replace(
        command=tuple(str(c) for c in command) if isinstance(command, list) else spec.command,
        extensions=tuple(str(e) for e in exts) if isinstance(exts, list) else spec.extensions,
        env={str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else spec.env,
        init_options=entry.get("initialization", spec.init_options),
        settings=entry.get("settings", spec.settings),
    )


def chosen(specs: list[ServerSpec], path: Path) -> list[ServerSpec]:
    """The installed servers for `path`: the first found of each group."""
    out: dict[str, ServerSpec] = {}
    for spec in specs:
        if spec.takes(path) and spec.group not in out and which(spec.command[0]):
            out[spec.group] = spec
    return list(out.values())
