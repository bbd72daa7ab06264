"""Completion at the prompt: `/commands` (help as meta), `@path` mentions of project files and
`@server:uri` mentions of MCP resources (a template with its `{parameters}` to fill in)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from prompt_toolkit.completion import Completer, Completion

from agent.base.visible import visible
from agent.base.words import first_line

MAX_SHOWN = 40
MAX_PATHS = 50_000  # files offered for @ completion
_MENTION = re.compile(r"(?:^|(?<=\s))@([^\s@]*)$")


def rank_paths(paths: Iterable[str], frag: str, limit: int = MAX_SHOWN) -> list[str]:
    """Paths for `@frag`: path prefix, then name prefix, then substring, then subsequence."""
    low = frag.lower()
    buckets: list[list[str]] = [[], [], [], []]
    sub = re.compile(".*?".join(map(re.escape, low))) if low else None
    for p in paths:
        lp = p.lower()
        name = lp.rstrip("/").rsplit("/", 1)[-1]
        if lp.startswith(low):
            buckets[0].append(p)
        elif name.startswith(low):
            buckets[1].append(p)
        elif low in lp:
            buckets[2].append(p)
        elif sub is not None and sub.search(lp):
            buckets[3].append(p)
    out: list[str] = []
    for b in buckets:
        out += sorted(b, key=lambda p: (p.count("/"), len(p), p))
        if len(out) >= limit:
            break
    return out[:limit]


def with_dirs(files: list[str]) -> list[str]:
    """Files plus their directories (with a trailing slash), directories first."""
    dirs: set[str] = set()
    for f in files:
        parts = f.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]) + "/")
    return sorted(dirs) + files


async def project_paths(cwd: Path) -> list[str]:
    """The project's files (gitignore-aware, as the glob tool sees them) and directories."""
    # deferred: ~45 ms (the tool context, ripgrep's listing): after the prompt is drawn
    from agent.tools.shared.listing import project_files

    files = await project_files(cwd)
    return with_dirs(sorted(files)[:MAX_PATHS])


class ReplCompleter(Completer):
    """Completes `/name` at the start of the input and `@path` or `@server:uri` anywhere."""

    def __init__(
        self,
        commands: Callable[[], dict[str, Any]],
        paths: Callable[[], list[str]],
        resources: Callable[[], list[tuple[str, str]]] = list,  # (`server:uri`, what it is)
    ) -> None:
        self.commands, self.paths, self.resources = commands, paths, resources

    def get_completions(self, document: Any, complete_event: Any) -> Iterator[Completion]:
        text = document.text_before_cursor
        if text.startswith("/") and not any(c.isspace() for c in text):
            yield from self._commands(text[1:])
            return
        m = _MENTION.search(text)
        if m:
            frag = m.group(1)
            about = dict(self.resources())  # ranked with the files: `@dem` finds demo:…
            for p in rank_paths([*self.paths(), *about], frag.lstrip('"')):
                shown = f'"{p}"' if any(c.isspace() for c in p) else p  # @"my notes.txt"
                # a file name or a server's description, drawn in the menu: made visible
                yield Completion(shown, start_position=-len(frag), display=visible(p, ""),
                                 display_meta=visible(about.get(p, ""), ""))  # fmt: skip

    def _commands(self, word: str) -> Iterator[Completion]:
        cmds = self.commands()
        names = {n: cmd for cmd in cmds.values() for n in (cmd.name, *cmd.aliases)}
        for name in sorted(names):
            if name.startswith(word):
                cmd = names[name]
                meta = first_line(cmd.help)
                if name != cmd.name:
                    meta = f"= /{cmd.name}: {meta}"
                if cmd.source != "built-in":
                    meta = f"{meta} ({cmd.source.split(':')[0]})"
                yield Completion(
                    "/" + name,
                    start_position=-len(word) - 1,
                    display=visible("/" + name, ""),
                    display_meta=visible(meta, ""),
                )
