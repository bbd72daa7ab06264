"""The tool record and what passes through the dispatch pipeline: a tool, its context and
result, a parsed call, and the middleware signature every layer implements (seam 1).

The vocabulary of every layer above it; it imports nothing of the project at run time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent.base.failure import Failure, FailureKind
from agent.base.messages import Message, image_message
from agent.config.modes import PermissionMode
from agent.config.view import WebSearch

if TYPE_CHECKING:
    from agent.base.events import Sink
    from agent.base.parts import (
        Background,
        CodeIntel,
        CommandBox,
        EditorIO,
        FileRecord,
        PlanReview,
        TodoStore,
        ToolShelf,
    )

RESULT_CAP = 12_000  # characters of any tool result that may enter the context

# (another value for the call's target argument, why the tool would act on it) -> None when
# allowed, else the reason it is not (ToolContext.judge_target)
TargetJudge = Callable[[str, str], Awaitable[str | None]]


@dataclass(frozen=True)
class Image:
    """An image a tool read, for a model that takes images (sent after the tool results)."""

    mime: str
    data: bytes
    name: str  # as the workspace shows it: what JSON output and transcripts say
    width: int = 0
    height: int = 0

    def url(self) -> str:
        import base64

        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode()}"


def images_message(images: list[Image]) -> Message:
    """The user message carrying images tools read (tool messages take text only)."""
    names = ", ".join(f"{i.name} ({i.width}×{i.height})" for i in images)
    return image_message(f"[the images read above: {names}]", [i.url() for i in images])


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns: text for the model, an error flag, an optional terminal summary."""

    output: str
    is_error: bool = False
    display: str | None = None  # one-line summary (or a diff) for the terminal, never sent
    final: str = ""  # the turn ends here with this as the reply (a plan no one can approve)
    image: Image | None = None  # an image read for a model that takes images (not in output)
    failure: Failure | None = None  # why it failed (an error result), for the audit and --verbose
    shown: str = ""  # output a front end may show under the summary (a command's), never sent


@dataclass
class ToolContext:
    """What a running tool may use: the workspace, the session id and an event sink."""

    cwd: Path
    session_id: str = ""
    sink: Sink | None = None
    # web_fetch and web_search: hosts settings open (webFetch), private hosts, their timeouts
    allowed_hosts: frozenset[str] = frozenset()
    allow_private_hosts: bool = False
    web_timeout: float | None = None
    web_search: WebSearch = field(default_factory=WebSearch)  # the search backend (webSearch)
    search_backend: str = ""  # "python": the pure-Python search even with ripgrep (tests)
    # Set by the permission gate for the call it lets run: judges one more target of that
    # call (the URL a redirect leads to) as it judged the first, asking when it must; returns
    # None when the call may go on there, else why not. None: no gate judged this call.
    judge_target: TargetJudge | None = None
    # Characters a tool may return: RESULT_CAP, or far more when the loop saves long results
    # to the session folder and sends their head and tail (agent.context.spill).
    result_room: int = RESULT_CAP
    # The session's own objects, as the tools see them (agent.base.parts); the packages that
    # own them set them when a session is assembled.
    todo: TodoStore | None = None
    subagents: Background | None = None  # the subagent runner (subagents.runner)
    loop: Background | None = None  # a /loop (workflows.repeat)
    sandbox: CommandBox | None = None  # the OS sandbox commands run in
    files: FileRecord | None = None  # what the file tools last saw of each file
    images: bool = False  # the model takes images: read_file returns them as images
    planning: PlanReview | None = None  # approving a plan, leaving plan mode
    editor: EditorIO | None = None  # an editor's buffers and terminals (ACP)
    # Folders the user added to the workspace (permissions.additionalDirectories, approvedDirs),
    # real paths: the only places outside `cwd` a listing follows a symbolic link into.
    added_dirs: tuple[str, ...] = ()
    # Absolute path globs that read deny rules forbid (Gate.read_denials): indexers skip them,
    # as read_file would refuse them.
    denied_reads: tuple[str, ...] = ()
    shelf: ToolShelf | None = None  # the conversation's deferred tools (tool_search loads them)
    lsp: CodeIntel | None = None  # the session's language servers (agent.lsp)


Execute = Callable[[dict[str, Any], ToolContext], Awaitable[ToolResult]]

# The id of the tool call running in this task (set by the dispatcher): what an editor shows a
# call's terminal under.
CALL_ID: ContextVar[str] = ContextVar("agent_call_id", default="")

# What a tool does, for the permission modes and checkpoints: `read` looks (auto-allowed inside
# the workspace), `edit` changes files (acceptEdits allows it; checkpoints snapshot the file),
# `exec` runs commands, `network` reaches out, `meta` only changes the agent's own state.
ToolKind = Literal["read", "edit", "exec", "network", "meta"]


@dataclass(frozen=True)
class Target:
    """What one call acts on, read from its arguments: the facts permissions judge a call by.

    `what`: a file, a folder searched below, several files (a patch: `files` reads them from the
    argument), a shell command, a URL the call sends data to, a project action id, or an MCP
    server (whose resource the call reads); `arg`
    names the argument holding it (`default` when absent) and `pattern_arg` a glob below a
    folder."""

    what: Literal["file", "folder", "files", "command", "url", "action", "server"]
    arg: str
    default: str = ""
    pattern_arg: str = ""
    # `files`: the paths the argument names (a patch's files); () when it cannot be read
    files: Callable[[str], tuple[str, ...]] | None = None
    # The value as the tool will act on it (a URL with its scheme and the host it connects
    # to), so that rules judge that and not another spelling of it; None: as written
    canonical: Callable[[str], str] | None = None

    def value(self, args: dict[str, Any]) -> str:
        raw = str(args.get(self.arg) or self.default)
        return self.canonical(raw) if self.canonical is not None else raw

    def paths(self, args: dict[str, Any]) -> tuple[str, ...]:
        """The files one call acts on: its file, or every file its argument names."""
        if self.files is None:
            return (self.value(args),)
        return self.files(self.value(args))

    def pattern(self, args: dict[str, Any]) -> str:
        return str(args.get(self.pattern_arg, "") or "") if self.pattern_arg else ""


@dataclass(frozen=True)
class Preview:
    """What an edit would do, worked out before it runs (for the permission prompt): the
    unified diff, or `failure` — the error the call will end with — or a `note` instead."""

    diff: str = ""
    failure: ToolResult | None = None
    note: str = ""


# (arguments, project root) -> the preview; None when it cannot be had cheaply
Previewer = Callable[[dict[str, Any], Path], Preview | None]


@dataclass(frozen=True)
class Tool:
    """One model-facing tool: its name, description and JSON Schema parameters, how it runs,
    and what the layers around it need to know without branching on its name."""

    name: str
    description: str
    parameters: dict[str, Any]
    run: Execute
    read_only: bool = False  # changes nothing: may run concurrently, allowed inside the workspace
    kind: ToolKind = "meta"
    target: Target | None = None
    aliases: tuple[str, ...] = ()  # other agents' names for it (Claude Code's Bash, Edit…)
    preview: Previewer | None = None
    serves: str = ""  # the tool whose output this one reads: it goes when that one is disabled
    # Its commands run in the session's OS sandbox unless this argument is false (then the
    # call is always asked about); "" = the tool runs nothing in a sandbox.
    sandbox_arg: str = ""
    finds_deferred: bool = False  # finds and loads deferred tools: offered while some wait
    # Used on few turns: waits behind the finder while tool search is on (agent.base.shelf),
    # loaded by a search, when the session enters `wanted_in`, or once `serves` is called
    rare: bool = False
    wanted_in: PermissionMode | None = None

    @property
    def reads_a_file(self) -> bool:
        """The registry's file reader: a read tool whose target is one file."""
        return self.kind == "read" and self.target is not None and self.target.what == "file"

    def edited_files(self, args: dict[str, Any]) -> tuple[str, ...]:
        """The files one call of an edit tool changes, as its arguments name them."""
        if self.kind != "edit" or self.target is None or self.target.what not in ("file", "files"):
            return ()
        return self.target.paths(args)

    def schema(self) -> dict[str, Any]:
        """The OpenAI `tools` entry for this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def error(
    what: str,
    *,
    can_retry: bool,
    hint: str = "",
    kind: FailureKind = "tool",
    exc: BaseException | None = None,
) -> ToolResult:
    """An error result the model can act on: what failed, how to fix it, whether to retry;
    `kind` and the exception caught (`exc`) go to the audit log, never to the model."""
    text = f"Error: {what}"
    if hint:
        text += f"\nHint: {hint}"
    text += f"\ncan_retry: {'true' if can_retry else 'false'}"
    return ToolResult(text, is_error=True, failure=Failure(kind, can_retry, exc))


def cap(text: str, limit: int = RESULT_CAP, *, how_to_see_more: str = "") -> str:
    """Keep the head and tail of `text` within `limit` chars, with a marker saying what was cut."""
    if len(text) <= limit:
        return text
    more = f" {how_to_see_more}" if how_to_see_more else ""
    # The marker counts against the limit, so a capped text is never re-capped downstream.
    room = max(limit - len(f"\n[... {len(text)} characters cut ...{more}]\n"), 0)
    marker = f"\n[... {len(text) - room} characters cut ...{more}]\n"
    head = (room * 2) // 3
    return text[:head] + marker + text[len(text) - (room - head) :]


# What became of a call: it ran, it was refused, or it was skipped (it could not have worked)
CallDecision = Literal["allow", "deny", "skip"]
# Who or what decided a call (the audit log's `source`): a permission rule, the mode, a
# read-only tool inside the workspace, a protected path, a path outside, the shell policy, the
# sandbox, a skill's or command's grant, the person asked, a hook; `invalid`: its arguments;
# `none`: nothing judged it (no permission layer)
DecidedBy = Literal[
    "none", "rule", "mode", "read-only", "protected", "outside", "shell", "sandbox", "grant",
    "user", "hook", "invalid", "",
]  # fmt: skip


@dataclass
class Call:
    """A tool call ready to run: parsed arguments, or the reason they could not be parsed."""

    id: str
    name: str
    args: dict[str, Any]
    raw: str = ""
    problem: str = ""
    # How it was decided, filled by the gate and the hooks layer, read by the audit log.
    decision: CallDecision = "allow"
    source: DecidedBy = "none"
    rule: str = ""  # the rule that decided, when one did
    reason: str = ""
    mode: PermissionMode | Literal[""] = ""  # the permission mode it was decided in
    trigger: str = "model"  # who asked: the model, the user (/run), a subagent
    hook_decision: tuple[str, str] | None = None  # a PreToolUse hook's (permission, reason)
    updated_by_hook: bool = False  # a hook rewrote the arguments
    started: bool = False  # shown to the user as started (dispatch)
    run_seconds: float = 0.0  # the tool's own time, without the time spent asking


Next = Callable[[Call, ToolContext], Awaitable[ToolResult]]
Middleware = Callable[[Call, ToolContext, Next], Awaitable[ToolResult]]
