"""User commands: `.agent/commands/*.md` (project) and `~/.agent/commands/*.md` (user).

A file `fix.md` becomes `/fix`; `frontend/test.md` becomes `/frontend:test`. Optional front
matter gives `description` (the /help text) and `argument-hint`. The body is the prompt sent
through the loop, with `$ARGUMENTS` replaced by everything after the name and `$1`…`$9` by the
individual words (shell-style quoting groups words).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from agent.commands.command import Command, Ctx, Handler
from agent.context.mentions import attach

MAX_BYTES = 200_000  # a command file larger than this is skipped
_POSITIONAL = re.compile(r"\$([1-9])")


def parse_file(text: str) -> tuple[dict[str, str], str]:
    """(front matter fields, body); a file without front matter is all body."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text.strip()
    meta: dict[str, str] = {}
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return meta, "\n".join(lines[i + 1 :]).strip()
        key, sep, value = line.partition(":")
        if sep:
            meta[key.strip().lower()] = value.strip().strip("\"'")
    return {}, text.strip()  # no closing fence: treat it all as the body


def split_args(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:  # an unbalanced quote: plain words
        return args.split()


def expand(body: str, args: str) -> str:
    """The prompt for `/name args`: placeholders filled, or the arguments appended."""
    words = split_args(args)
    used = "$ARGUMENTS" in body or bool(_POSITIONAL.search(body))
    out = body.replace("$ARGUMENTS", args)
    out = _POSITIONAL.sub(
        lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", out
    )
    if args and not used:
        out = f"{out}\n\n{args}"
    return out


def _files(base: Path) -> list[tuple[str, Path]]:
    if not base.is_dir():
        return []
    out = []
    for path in sorted(base.rglob("*.md")):
        rel = path.relative_to(base).with_suffix("")
        name = ":".join(rel.parts)
        if re.fullmatch(r"[A-Za-z][\w:.-]*", name):
            out.append((name, path))
    return out


def load_user_commands(root: Path, home: Path | None = None) -> list[Command]:
    """Project commands first (they win a name clash), then the user's."""
    home = home or Path.home()
    seen: set[str] = set()
    out: list[Command] = []
    for base, label in (
        (root / ".agent" / "commands", "project"),
        (home / ".agent" / "commands", "user"),
    ):
        for name, path in _files(base):
            if name in seen:
                continue
            try:
                if path.stat().st_size > MAX_BYTES:
                    continue
                meta, body = parse_file(path.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
            seen.add(name)
            help = meta.get("description") or next(
                (ln.strip("# ").strip() for ln in body.splitlines() if ln.strip()), name
            )
            out.append(
                Command(
                    name, help, _runner(body), meta.get("argument-hint", ""), f"{label}: {path}"
                )
            )
    return out


def _runner(body: str) -> Handler:
    async def run(ctx: Ctx, args: str) -> None:

        await ctx.turn(attach(expand(body, args), ctx.cfg.cwd))  # `/explain @src/app.py`

    return run
