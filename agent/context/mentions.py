"""What the user attaches to a message: `@path` file contents and `!command` output (MCP
resources named `@server:uri` are attached by agent.mcp.mentions, in the same shape)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
from collections.abc import Callable
from pathlib import Path

from agent.base.events import Notice
from agent.base.record import Image, ToolContext, cap
from agent.permissions.paths import Workspace, check, protected
from agent.sandbox.runtime import Sandbox
from agent.tools.files.images import TYPES, dimensions, read_image
from agent.tools.shared.agentignore import for_search, note
from agent.tools.shared.common import ToolError
from agent.tools.shared.links import linked_out

FILE_CHARS = 50_000  # of one attached file
MAX_FILES = 10
DIR_ENTRIES = 200
SHELL_NOTE_CHARS = 4_000  # of a !command's output added to the next message
_MENTION = re.compile(r'(?<![\w@`])@(?:"([^"\n]+)"|([^\s`]+))')  # @path or @"a path"


def mention_words(text: str) -> list[str]:
    """What each `@` of `text` names, as written (`@"a b"` unquoted, trailing punctuation
    dropped)."""
    return [m.group(1) or m.group(2).rstrip(".,;:!?)]}'\"") for m in _MENTION.finditer(text)]


def mentioned(text: str, cwd: Path) -> list[Path]:
    """Existing files and directories named by `@path` in `text` (in order, no repeats)."""
    out: list[Path] = []
    for raw in mention_words(text):
        p = Path(os.path.expanduser(raw))
        p = p if p.is_absolute() else cwd / p
        if p.exists() and p not in out:
            out.append(p)
    return out[:MAX_FILES]


def _label(p: Path, cwd: Path) -> str:
    try:
        return p.relative_to(cwd).as_posix()
    except ValueError:
        return str(p)


def _listing(p: Path, cwd: Path) -> str:
    """A directory's entries, less those the agent's ignore files hide (.agentignore...)."""
    hide = for_search(cwd, p)
    names: list[str] = []
    by: list[str] = []  # the ignore files that hid each hidden entry
    for e in p.iterdir():
        found = hide.hidden_by(e.name, e.is_dir() and not e.is_symlink())
        if found:
            by.append(found)
        else:
            names.append(e.name + ("/" if e.is_dir() else ""))
    names.sort()
    more = f"\n… {len(names) - DIR_ENTRIES} more" if len(names) > DIR_ENTRIES else ""
    hidden = f"\n{note(len(by), by)}" if by else ""
    return "\n".join(names[:DIR_ENTRIES]) + more + hidden


def _content(p: Path, cwd: Path) -> str:
    outside = linked_out(p, cwd)
    if p.is_dir():
        if outside:  # a repository's `docs -> ~`: the user meant the project's folder
            return (
                f"(a symbolic link leads to {outside}, outside the workspace: its entries are "
                "not listed; mention that folder by its own path to attach them)"
            )
        return _listing(p, cwd)
    real = os.path.realpath(p)
    if outside or (real != os.path.abspath(p) and _asked(real)):
        return (  # a repository's `README.md -> ~/.aws/credentials`: not what the user meant
            f"(a symbolic link leads to {real}: it is not attached; mention that file by its "
            "own path to attach it)"
        )
    with open(p, "rb") as fh:
        data = fh.read(FILE_CHARS * 4 + 1)
    seen = dimensions(data) if p.suffix.lower() in TYPES else None
    if seen is not None:  # the image itself joins the message when the model takes images
        kind, w, h = seen
        return f"({kind} image, {w}×{h}; attached when the model takes images)"
    if b"\0" in data[:8192]:
        return "(binary file: not attached; use a tool to inspect it)"
    text = data.decode("utf-8", errors="replace")
    return cap(text, FILE_CHARS, how_to_see_more="read_file with offset/limit shows the rest")


def _asked(path: str) -> bool:
    """Whether read_file asks before reading `path` (a secret, the agent's settings)."""
    return bool(protected(path, Workspace.make(Path(path).parent)))


def attach(text: str, cwd: Path) -> str:
    """`text` plus the content of each file or directory it @mentions."""
    return _with(text, mentioned(text, cwd), cwd)


def _with(text: str, paths: list[Path], cwd: Path) -> str:
    """`text` plus the content of each of `paths`."""
    blocks = []
    for p in paths:
        try:
            body = _content(p, cwd)
        except OSError as e:
            body = f"(cannot read: {e.strerror})"
        kind = "directory" if p.is_dir() else "file"
        blocks.append(f'<{kind} path="{_label(p, cwd)}">\n{body.rstrip()}\n</{kind}>')
    return text if not blocks else text + "\n\n" + "\n\n".join(blocks)


def attach_unasked(text: str, ws: Workspace) -> tuple[str, list[str]]:
    """`attach` for a run no one can be asked in (a one-shot): only what read_file would read
    unasked — inside the workspace, nothing it protects — since the prompt may carry text a
    script took from elsewhere. The rest, and a mention that names nothing, are said."""
    cwd, kept, notes = ws.root, list[Path](), []
    for raw in dict.fromkeys(mention_words(text)):
        if ":" in raw and not os.path.exists(raw):  # `@server:uri`: an MCP resource's
            continue
        p = Path(os.path.expanduser(raw))
        p = p if p.is_absolute() else cwd / p
        verdict = check(str(p), ws)
        if not p.exists():
            notes.append(f"@{raw} names no file or folder here: not attached")
        elif not verdict.inside or verdict.secret:
            why = verdict.secret or "outside the workspace"
            notes.append(f"@{raw} not attached ({why}: read_file would ask first)")
        elif p not in kept:
            kept.append(p)
    return _with(text, kept[:MAX_FILES], cwd), notes


MAX_IMAGES = 5  # attached to one message


def prompt_images(text: str, ctx: ToolContext) -> list[Image]:
    """The images a message names — `@shot.png`, or a pasted path of an image file — read for
    a model that takes images (scaled like read_file's); one that cannot be is said why."""
    if not ctx.images:
        return []
    cwd = Path(ctx.cwd)
    named = [p for p in mentioned(text, cwd) if p.suffix.lower() in TYPES]
    for word in text.split():
        raw = word.strip("'\"")
        if Path(raw).suffix.lower() in TYPES and not raw.startswith("@"):
            p = Path(os.path.expanduser(raw))
            p = p if p.is_absolute() else cwd / p
            if p.is_file() and p not in named:
                named.append(p)
    found = []
    for p in named[:MAX_IMAGES]:
        try:
            image = read_image(p, ctx, _label(p, cwd)).image
        except (ToolError, OSError) as e:
            if ctx.sink is not None:
                ctx.sink.emit(
                    Notice(f"image not attached: {_label(p, cwd)}: {getattr(e, 'what', e)}")
                )
            continue
        if image is not None:
            found.append(image)
    return found


def shell_note(command: str, output: str, code: int | None) -> str:
    """How a `!command` joins the conversation: the user's own action, with its output."""
    status = "was interrupted" if code is None else f"exited {code}"
    body = cap(output.rstrip(), SHELL_NOTE_CHARS) or "(no output)"
    return f"I ran `{command}` myself; it {status}:\n```\n{body}\n```"


async def run_shell(
    command: str,
    cwd: Path,
    show: Callable[[str], None],
    out: list[str],
    box: Sandbox | None = None,
) -> int:
    """Run `command` with bash (in the session's sandbox `box`, as the agent's own commands);
    its output lines go to `show` and `out` as they come. Cancelling kills the process group."""
    argv = ["bash", "-c", command]
    proc = await asyncio.create_subprocess_exec(
        *(box.wrap(argv, cwd) if box is not None else argv),
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    assert proc.stdout is not None
    try:
        async for raw in proc.stdout:
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            out.append(line)
            show(line)
        return await proc.wait()
    except asyncio.CancelledError:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        raise


async def bang(
    command: str,
    cwd: Path,
    say: Callable[..., None],
    notes: list[str],
    box: Sandbox | None = None,
) -> None:
    """`!command` at the prompt: run it (in `box`), show its output, and add it to `notes` for
    the next message (what ran before an interrupt too)."""
    if not command:
        say("usage: !command (runs it in a shell; the output joins the next message)")
        return
    out: list[str] = []
    code: int | None = None
    try:
        code = await run_shell(command, cwd, say, out, box)
    finally:
        notes.append(shell_note(command, "\n".join(out), code))
        if code:
            say(f"exit {code}", "dim")


_PARTIAL = re.compile(r"\s*<(file|directory|resource)\b[^\n]*\Z")  # cut inside the opening tag
_ATTACHED = re.compile(
    r'\s*<(file|directory|resource) (?:path|server)="[^"]*"[^>\n]*>\n.*?(?:\n</\1>|\Z)', re.S
)


def without_attachments(text: str) -> str:
    """The user's words without the @file (and @server:uri) contents attached to them (for
    one-line summaries); a block cut short by a length limit goes too."""
    return _PARTIAL.sub("", _ATTACHED.sub("", text))
