"""The files a search sees below a folder: ripgrep's listing (gitignore-aware), Python's walk
when there is no ripgrep, less what the agent's ignore files hide; and the files an indexer may
read (the repository map, outline, symbols): those, less what read_file would ask about."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

from agent.base.record import ToolContext
from agent.git import index as git_index
from agent.permissions.paths import Workspace
from agent.tools.shared import links, secret_hits, walk
from agent.tools.shared.agentignore import AgentIgnore, for_search


class _Names:
    """ripgrep's `./name\\0` output a chunk at a time, as names less the hidden ones, in the
    thread reading it: the filtering then overlaps ripgrep's walk."""

    def __init__(self, hide: AgentIgnore, on_names: Callable[[list[str]], None] | None) -> None:
        self.hide, self.on_names = hide, on_names
        self.rest = b""
        self.kept: list[str] = []

    def __call__(self, chunk: bytes) -> None:
        data = self.rest + chunk
        end = data.rfind(b"\0")
        self.rest = data[end + 1 :]
        if end < 0:
            return
        # one decode, one replace, one split per chunk: per-name work doubles the cost
        names = os.fsdecode(data[:end]).replace("\0./", "\0").removeprefix("./").split("\0")
        kept = self.hide.keep(names)
        self.kept += kept
        if self.on_names is not None:
            self.on_names(kept)


async def list_files(
    ctx: ToolContext,
    root: Path,
    name_glob: str = "",
    on_names: Callable[[list[str]], None] | None = None,
    *,
    hide: AgentIgnore | None = None,
) -> list[str]:
    """Every file a search under `root` sees (gitignore-aware, less what the agent's ignore
    files hide: `hide`, by default those that apply to `root`), relative to `root`.

    `name_glob` is a prefilter on file names that ripgrep applies as a file type: unlike a
    `--glob`, a type never re-includes ignored files, so the result is a subset of the full list.
    `on_names` sees the names found, in a worker thread: as ripgrep lists them, or all at once
    from the fallback. A `root` a symbolic link takes out of the workspace is refused
    (links.enter): nothing below it is listed.
    """
    await asyncio.to_thread(links.enter, ctx, root, "a search")
    ignore = hide if hide is not None else await asyncio.to_thread(for_search, ctx.cwd, root)
    rg = walk.rg_for(ctx)
    if not rg:

        def fallback() -> list[str]:
            found = list(walk.Walker(root, [], prune=ignore.hidden).files())
            if on_names is not None:
                on_names(found)
            return found

        return await asyncio.to_thread(fallback)
    types = ["--type-add", f"pick:{name_glob}", "--type", "pick"] if name_glob else []
    args = ["--files", "--null", *walk.rg_base_args(root, []), *types, "./"]
    names = _Names(ignore, on_names)
    await walk.run_rg(rg, args, root, names)
    return names.kept


async def project_files(root: Path) -> list[str]:
    """Every file a search of the project at `root` sees (what `@` completes to)."""
    return await list_files(ToolContext(cwd=root), root)


async def indexable_files(ctx: ToolContext, root: Path, tracked: bool = False) -> list[str]:
    """The files an indexer reads below `root` (the repository map, outline, symbols): those a
    search sees, less those read_file asks about first (secret_hits.readable: the gate's rule),
    so that no definition in `.env.local.js` reaches the model through a map. `tracked`: the
    files git tracks, read from its index (no walk of the tree), where `root` has one."""
    listed = await asyncio.to_thread(_tracked, ctx, root) if tracked else None
    rels = listed if listed is not None else await list_files(ctx, root)

    def readable() -> list[str]:
        ws = Workspace.make(Path(ctx.cwd), ctx.added_dirs)
        return secret_hits.model_may_read(rels, root, ws, ctx.denied_reads)

    return await asyncio.to_thread(readable)


def _tracked(ctx: ToolContext, root: Path) -> list[str] | None:
    """The paths `root`'s git index lists, less what the agent's ignore files hide; None when
    it has no index this reader understands. Symbolic links among them are left to the reader
    (agent.code.index reads regular files only)."""
    try:
        data = (root / ".git" / "index").read_bytes()
    except OSError:
        return None
    paths = git_index.tracked(data)
    if paths is None:
        return None
    links.enter(ctx, root, "a search")
    return for_search(ctx.cwd, root).keep(paths)
