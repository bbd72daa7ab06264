"""Build a working Agent from a Config: client, tools, permission gate, system prompt."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from agent.actions.tool import ActionRunner
from agent.base.events import FanOut, Notice, Sink, TurnEnd
from agent.base.messages import Message
from agent.base.record import RESULT_CAP, Image, Middleware, Tool, ToolContext
from agent.base.shelf import Shelf, listed
from agent.config.load import Config
from agent.config.modes import PermissionMode
from agent.context.compaction import Policy
from agent.context.economy import Economy
from agent.context.memory import env_block, system_prompt
from agent.context.mentions import prompt_images, without_attachments
from agent.context.repomap import RepoMapper
from agent.context.spill import SPILL_ROOM
from agent.core.dispatch import Dispatcher
from agent.core.instructions import dressed
from agent.core.llm import LLM
from agent.core.loop import Agent
from agent.core.window import kept_policy
from agent.hooks.checks import for_session as checks_for
from agent.hooks.hooks import Hooks
from agent.lsp.layer import for_session as lsp_for
from agent.mcp.mentions import attach_resources
from agent.mcp.tools import McpTools
from agent.mcp.tools import start as start_mcp
from agent.permissions.audit import Audit, Denials
from agent.permissions.gate import GRANT, Gate, session_gate
from agent.permissions.request import Asker
from agent.sandbox.runtime import Sandbox, for_session, sandbox_of
from agent.session.checkpoints import Snapshots
from agent.session.opening import Opened, open_store
from agent.session.recorder import SessionRecorder
from agent.session.store import SessionFile
from agent.skills.catalog import Catalog
from agent.skills.session import for_session as skills_for
from agent.tools import stop_background as stop_commands
from agent.tools.session import session_context
from agent.workflows.planning import Review
from agent.workflows.registry import session_tools
from agent.workflows.setup import attach as attach_workflows
from agent.workflows.setup import stop_background

PLAN_ON = (
    "[Plan mode is on: use only read-only tools (read_file, glob, grep, read-only commands); "
    "do not edit files or run anything that changes state, those calls will be denied. "
    "Investigate, then hand in a short step-by-step plan with exit_plan_mode.]"
)
PLAN_OFF = "[Plan mode is off: you may now make changes.]"


@dataclass
class Run:
    agent: Agent
    session_id: str
    denials: Denials
    cfg: Config
    hooks: Hooks
    gate: Gate
    store: SessionFile
    recorder: SessionRecorder
    first_turn: bool = True
    context: list[str] = field(default_factory=list)  # from SessionStart hooks
    actions: ActionRunner | None = None  # project actions, for /actions and /run
    mcp: McpTools | None = None  # MCP servers, for /mcp, the init event and shutdown
    planning: bool = False  # the last message went out in plan mode
    moved_from: str = ""  # a resumed session last ran in this other directory
    language: str = ""  # the reply language (`language` setting, /lang): in the system prompt
    repo_map: RepoMapper | None = None  # the repository map the first message carries, /map
    skills: Catalog = field(default_factory=Catalog)  # listed in the first message, /skills

    def moved_note(self) -> str:
        """Tells the model (once) that a resumed session now works in another directory."""
        moved, self.moved_from = self.moved_from, ""
        where = f"This session ran in {moved} until now; it continues in {self.cfg.cwd}"
        return f"[{where}. Files and paths here may differ: re-read before editing.]" * bool(moved)

    def user_message(self, prompt: str, repo_map: str = "") -> str:
        """The first message of a session carries the environment block and the repository
        map (a later one the map, when it was not ready for the first), and hook context; in
        plan mode every message says so, and the first one after it says it is over."""
        plan, was = self.gate.mode == "plan", self.planning
        self.planning = plan
        note = PLAN_ON if plan else PLAN_OFF if was else ""
        for n in (note, self.moved_note()):
            prompt = f"{n}\n\n{prompt}" if n else prompt
        extra = "".join(f"{c}\n\n" for c in self.context)  # SessionStart hooks' output
        self.context = []
        if self.first_turn:
            self.first_turn = False
            env = env_block(self.cfg.cwd, self.cfg.root)
            blocks = [env, repo_map, self.skills.block(), f"{extra}{prompt}"]
            return "\n\n".join(b for b in blocks if b)
        return "\n\n".join(b for b in (repo_map, f"{extra}{prompt}") if b)

    async def turn(
        self, prompt: str, images: list[Image] | None = None, words: str | None = None
    ) -> TurnEnd:
        """One user turn: the prompt as user_message dresses it, with the images it names and
        `images` (pasted in an editor); `words` (default: the prompt) label it in pickers."""
        label = without_attachments(prompt if words is None else words).strip()
        mapper = self.repo_map  # the first message's map, or a later one's when it was late
        wait = self.cfg.options.repo_map_wait
        block = await mapper.block(prompt, wait) if mapper is not None else ""
        pictures = await asyncio.to_thread(prompt_images, prompt, self.agent.ctx)
        prompt, more = await attach_resources(prompt, self.mcp, self.agent.ctx)  # @server:uri
        pictures += more + [i for i in images or [] if self.agent.ctx.images]
        grant = GRANT.get()  # a command's or skill's allowed-tools, for this turn alone
        around = (lambda: self.gate.start_turn(grant), self.gate.end_turn)
        message = self.user_message(prompt, block)
        return await self.agent.run_turn(message, pictures, around, label)

    def set_mode(self, mode: PermissionMode) -> None:
        """Shift-Tab: the permission mode the gate and hooks use, recorded in the session."""
        if mode != self.gate.mode:
            self.recorder.change("mode", mode)
        self.gate.mode = self.hooks.mode = mode
        if self.agent.shelf is not None:  # the tools for that mode (exit_plan_mode)
            self.agent.shelf.enter(mode)

    def system_prompt(self) -> str:
        """The system prompt as it would be built now (memory files re-read, the language)."""
        return _system_prompt(self.cfg, self.language)

    def replace_history(self, history: list[Message]) -> None:
        """Put `history` (no system prompt) in the agent after /rewind or /resume."""
        self.agent.messages[1:] = history
        self.first_turn = not history  # back at the start: the next message carries the env block
        self.agent.meter.reset()  # the history changed under the reported usage

    async def start(self, source: str = "") -> None:
        """Fire SessionStart ("startup", or "resume" for a continued session); what the hooks
        print joins the next user message."""
        source = source or ("startup" if self.first_turn else "resume")
        out = await self.hooks.session_start(source)
        self.context += out.context

    async def end(self, reason: str = "exit") -> None:
        """The session's whole end, in order (subagents use the client: they stop first)."""
        if self.repo_map is not None:
            self.repo_map.close()
        await stop_background(self.agent)  # subagents, /loop runs
        await asyncio.to_thread(stop_commands)
        for part in (self.mcp, self.agent.ctx.lsp):  # MCP and language servers
            if part is not None:
                await part.aclose()
        await self.agent.llm.aclose()
        await self.hooks.session_end(reason)
        self.sandbox().close()  # its placeholders go once no command runs

    def init_event(self) -> dict[str, Any]:
        mcp = self.mcp.statuses() if self.mcp is not None else []
        return {
            "type": "system", "subtype": "init", "session_id": self.session_id,
            "cwd": str(self.cfg.cwd), "model": self.agent.llm.model,
            "tools": listed(self.agent.tools, self.agent.shelf), "mcp_servers": mcp,
            "permission_mode": self.cfg.permission_mode, "sandbox": self.sandbox().status(),
            "skills": sorted(self.skills.skills),
            "plugins": [{"name": p.name, "path": str(p.root)} for p in self.cfg.plugins.found],
        }  # fmt: skip

    def sandbox(self) -> Sandbox:
        """The session's OS sandbox (agent.sandbox)."""
        return sandbox_of(self.agent.ctx.sandbox) or Sandbox()


def _system_prompt(cfg: Config, language: str) -> str:
    built = system_prompt(cfg.cwd, cfg.root, trusted=cfg.trusted, language=language)
    return dressed(built, cfg.automation)  # --system-prompt-file, --output-schema…


def _pipeline(
    cfg: Config,
    store: SessionFile,
    tools: dict[str, Tool],
    snapshots: Snapshots,
    out: Sink,
    asker: Asker | None,
) -> tuple[Gate, Hooks, tuple[Middleware, ...]]:
    """The per-call layers (seam 1). Audit outermost (it records denials too); PreToolUse hooks
    before the permission prompt, as in Claude Code, so that a hook's allow/deny can skip or
    settle it; snapshots last, so only calls that really run are recorded."""
    gate = session_gate(cfg, tools, out, asker)
    hooks = Hooks(
        dict(cfg.options.hooks),
        session_id=store.id,
        cwd=cfg.cwd,
        sink=out,
        transcript_path=str(store.path),
        mode=cfg.permission_mode,
        tools=tools,
    )
    # what each call edits, and every allowed directory (where bash deletions are tracked)
    snapshots.workspace, snapshots.tools = gate.ws, tools
    return gate, hooks, (Audit(cfg.root, store.id, out), hooks, gate, snapshots)


def _economy(cfg: Config, store: SessionFile, gate: Gate) -> Economy:
    """What keeps tool results small (setting toolResults); long outputs go to the session
    folder, where the session's read-only tools may read them."""
    economy = Economy.of(cfg.options.tool_results, None if store.error else store.put_output)
    if economy.spill is not None:
        gate.allow_reads(store.blob_dir)
    return economy


def build(cfg: Config, sink: Sink, asker: Asker | None = None, resume_id: str | None = None) -> Run:
    """Everything a session needs, wired at the three seams; `resume_id` continues one."""
    opened, recorder, denials, out = _recorded(cfg, sink, resume_id)
    store, snapshots, history = opened.store, opened.snapshots, opened.history
    skills = skills_for(cfg.root, cfg.trust, out, cfg.plugins.found)
    tools, actions, (agent_defs, def_warnings) = session_tools(cfg, store.id, out, skills)
    gate, hooks, layers = _pipeline(cfg, store, tools, snapshots, out, asker)
    box = for_session(cfg, gate.read_denials(), out)  # what it lacks is said once
    # connects in the background; tools join at a turn boundary
    shelf = Shelf.of(tools, history, cfg.permission_mode)  # None: every tool is sent
    mcp = start_mcp(cfg, tools, out, box if box.mcp else None, shelf)
    economy = _economy(cfg, store, gate)
    room = SPILL_ROOM if economy.spill is not None else RESULT_CAP
    ctx = session_context(cfg, store.id, out, room)
    _share_box(box, ctx, gate, hooks, actions)
    checks = checks_for(cfg.options.checks, cfg.cwd, tools, out, box, cfg.trusted)
    ctx.lsp, diagnosing = lsp_for(cfg, tools, box, asker)  # servers start when a file needs them
    layers = (*layers, *(m for m in (checks, diagnosing) if m is not None))  # innermost: real calls
    prompt = _system_prompt(cfg, cfg.options.language)
    agent = Agent(
        llm=LLM(cfg),
        tools=tools,
        dispatcher=Dispatcher(tools, layers),
        sink=out,
        ctx=ctx,
        system_prompt=prompt,
        max_steps=cfg.max_steps,
        messages=[{"role": "system", "content": prompt}, *history],
        compaction=kept_policy(cfg, Policy.from_config(cfg)),  # the server's, once known
        hooks=hooks if hooks.specs else None,
        tool_sync=mcp.sync if mcp is not None else None,
        shelf=shelf,
        economy=economy,
        checks=checks,
    )
    attach_workflows(
        agent,
        layers,
        cfg,
        hooks=hooks,
        defs=agent_defs,
        resumed=store.path if resume_id else None,
        warnings=def_warnings,
    )
    recorder.start(cfg.cwd, agent.llm.model, resumed_from=resume_id or "")
    run = Run(agent, store.id, denials, cfg, hooks, gate, store, recorder, actions=actions, mcp=mcp)
    run.first_turn, run.language, run.skills = not history, cfg.options.language, skills
    _finish(run, opened.ran_in)
    return run


def _recorded(
    cfg: Config, sink: Sink, resume_id: str | None
) -> tuple[Opened, SessionRecorder, Denials, FanOut]:
    """The session's store (new, or the one resumed) and where its events go: the caller's
    sink, the permission denials and the session recorder."""
    c = cfg.claude  # --session-id, --fork-session
    opened = open_store(cfg.root, resume_id, cfg.options.retention, c.session_id, c.fork_session)
    recorder = SessionRecorder(opened.store, cfg.provider, opened.snapshots)
    denials = Denials()
    out = FanOut(sink, denials, recorder)
    recorder.report_to(out)  # a session file that cannot be written any more is said once
    if opened.pruned:
        out.emit(Notice(opened.pruned))
    return opened, recorder, denials, out


def _share_box(
    box: Sandbox, ctx: ToolContext, gate: Gate, hooks: Hooks, actions: ActionRunner | None
) -> None:
    """The session's sandbox, for the tools, the gate (fewer prompts), actions and hooks."""
    ctx.sandbox, gate.sandboxed = box, box.runs_unasked
    ctx.denied_reads = tuple(gate.read_denials())  # the map and outlines skip them too
    if actions is not None:
        actions.sandbox = box
    hooks.box = box if box.hooks else None


def _finish(run: Run, ran_in: str) -> None:
    """What needs the Run itself: skills and plan approval through its gate and modes, the
    repository map warming up, the note for a session resumed elsewhere."""
    cfg, ctx = run.cfg, run.agent.ctx
    run.skills.unlock = run.gate
    ctx.planning = Review(run.gate, run.set_mode)  # exit_plan_mode: approve, then leave plan
    run.repo_map = RepoMapper(cfg.cwd, cfg.options.repo_map_tokens, ctx)
    run.repo_map.warm()  # reads the project's code while the user types
    if ran_in and ran_in != str(cfg.cwd):
        run.moved_from = ran_in
