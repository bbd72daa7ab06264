"""The agent loop: stream a reply, run its tool calls, append the results, repeat.

It emits events to a sink and never prints. A turn ends when the model answers without tool
calls, when the step limit is reached, when the request fails for good, or on interruption —
and in every case the history stays a valid request for the next turn: every tool call answered,
and roles alternating (a turn without a reply ends on a placeholder assistant message).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from agent.base.events import (
    AssistantMessage,
    HistoryReplaced,
    MessageAdded,
    Notice,
    Sink,
    ToolEnd,
    TurnEnd,
    TurnStart,
    Usage,
)
from agent.base.messages import Message
from agent.base.record import Call, Image, Tool, ToolContext, ToolResult, images_message
from agent.base.shelf import Shelf
from agent.base.tokens import Meter, Totals
from agent.context.compaction import Policy, auto_compact, fit
from agent.context.economy import Economy
from agent.core.after import send_back
from agent.core.compacting import Compacting
from agent.core.cut import Cut, notes, repeating
from agent.core.cut import split as split_cut
from agent.core.dispatch import Dispatcher, prepare
from agent.core.errors import ContextOverflow, LLMError
from agent.core.llm import LLM
from agent.core.offering import Offering
from agent.core.stream import Reply
from agent.core.turn_state import (
    AGAIN,
    INTERRUPTED,
    INTERRUPTED_MARK,
    RETRY,
    Done,
    Next,
    Seen,
    TurnState,
    mark,
    needs_reply,
    no_reply,
    wire_calls,
)
from agent.core.window import learned, server_policy
from agent.hooks.checks import Checks
from agent.hooks.hooks import Hooks

RECOVERY_LIMIT = 2  # cut or malformed replies the loop re-prompts for within one turn


@dataclass
class Agent(Compacting, Offering):
    """One conversation: history, tools, the client, and where events go."""

    llm: LLM
    tools: dict[str, Tool]
    dispatcher: Dispatcher
    sink: Sink
    ctx: ToolContext
    system_prompt: str
    max_steps: int  # model requests in one turn (--max-turns, maxTurns: agent.config.load)
    messages: list[Message] = field(default_factory=list)
    totals: Totals = field(default_factory=Totals)
    hooks: Hooks | None = None  # UserPromptSubmit, Stop and PreCompact hooks
    compaction: Policy | None = None  # None = never compact automatically
    meter: Meter = field(default_factory=Meter)  # context size: reported usage + estimates
    tool_sync: Callable[[], bool] | None = None  # pulls tool-list changes (MCP) at turn start
    economy: Economy = field(default_factory=Economy)  # de-duplicate, spill, clear results
    checks: Checks | None = None  # lint/tests after a turn that changed files (setting checks)
    shelf: Shelf | None = None  # deferred tools and those tool_search loaded (agent.base.shelf)

    def __post_init__(self) -> None:
        if not self.messages:
            self.messages.append({"role": "system", "content": self.system_prompt})
        self._offer()  # fixed order, loads appended: cache-stable
        self.ctx.shelf = self.shelf  # the conversation's own: what its tool_search loads
        self._turn_lock = asyncio.Lock()  # turns never overlap (a /loop run waits for the user's)
        self._window_asked = False  # the server's real window: asked before the first request

    def _add(self, message: Message) -> None:
        """Append to the history; the session store records it from the event."""
        self.messages.append(message)
        self.sink.emit(MessageAdded(message))

    async def run_turn(
        self,
        content: str,
        images: list[Image] | None = None,
        around: tuple[Callable[[], None], Callable[[], None]] | None = None,
        words: str = "",
    ) -> TurnEnd:
        """Run one user turn to its end; returns (and emits) the TurnEnd. A second caller
        (a /loop run, a command) waits until the running turn has ended; `around`: what to do
        once the turn is this caller's, and when it ends (the turn's own permissions);
        `words`: the user's own, for pickers (TurnStart)."""
        async with self._turn_lock:
            if around is not None:
                around[0]()
            try:
                return await self._run_turn(content, images or [], words)
            finally:
                if around is not None:
                    around[1]()

    async def _run_turn(self, content: str, images: list[Image], words: str) -> TurnEnd:
        self._turn_tools()
        if self.hooks is not None:
            out = await self.hooks.prompt_submit(content)
            if out.blocked:
                why = f"the prompt was blocked by a UserPromptSubmit hook: {out.reason}"
                end = TurnEnd("error_during_execution", "", 0, why)
                self.sink.emit(end)
                return end
            content += "".join(f"\n\n{c}" for c in out.context)
        if not self._window_asked:
            self._window_asked = True
            self.compaction = await server_policy(self.llm, self.compaction)
        state = TurnState()
        self._close_turn(state, "[no reply]")  # never two user messages in a row
        start = len(self.messages)
        self.sink.emit(TurnStart(content, start, words))
        parts = [{"type": "image_url", "image_url": {"url": i.url()}} for i in images]
        self._add({"role": "user", "content": [{"type": "text", "text": content}, *parts]}
                  if parts else {"role": "user", "content": content})  # fmt: skip
        try:
            end = await self._steps(state)
            end = await self._stop_hooks(end, state)
            if state.oversized:  # kept, it would be sent (and refused) again next turn
                del self.messages[start:]
                self.sink.emit(HistoryReplaced(self.messages[1:], "oversized"))
            self._close_turn(state, mark(end))
        except asyncio.CancelledError:
            self._close_pending(state)
            self._close_turn(state, INTERRUPTED_MARK)
            end = TurnEnd("error_interrupted", state.last_text, state.steps, "interrupted")
            self.sink.emit(end)
            raise
        except Exception as e:  # a bug must not leave tool calls unanswered in the history
            why = f"internal error: {type(e).__name__}: {e}"
            self._close_pending(state, f"Error: the agent failed ({why}).\ncan_retry: true")
            self._close_turn(state, f"[no reply: the agent failed ({why})]")
            end = TurnEnd("error_during_execution", state.last_text, state.steps, why)
        self.sink.emit(end)
        return end

    def _close_turn(self, state: TurnState, mark: str) -> None:
        """A turn ending without a reply still ends on an assistant message: the text the user
        saw of the reply cut short, and why (strict chat templates need the alternation)."""
        if needs_reply(self.messages):
            self._add(no_reply(state.shown.text if state.shown else "", mark))
        state.shown = None

    async def _stop_hooks(self, end: TurnEnd, state: TurnState) -> TurnEnd:
        """Stop hooks and checks after edits may send the model back to work (agent.core.after)."""

        async def again(why: str) -> TurnEnd:
            self._add({"role": "user", "content": why})
            state.final = ""
            return await self._steps(state)

        return await send_back(end, self.hooks, self.checks, self.sink, again)

    async def _steps(self, state: TurnState) -> TurnEnd:
        """Steps until the turn ends: each step one request and the tools its reply calls."""
        nxt: Next = AGAIN
        while not isinstance(nxt, Done):
            if nxt is AGAIN:
                if state.steps >= self.max_steps:
                    msg = f"reached the turn limit ({self.max_steps}); raise it with --max-turns"
                    return TurnEnd("error_max_turns", state.last_text, state.steps, msg)
                state.steps += 1
            nxt = await self._step(state)
        return nxt.end

    async def _step(self, state: TurnState) -> Next:
        """One request and what its reply asks for; RETRY sends the same step again (the
        history was made to fit the server's window)."""
        self._loads()
        self.economy.clear(self.conversation(), self.window())
        await auto_compact(self.conversation(), self.compaction)
        state.shown = Seen(self.sink)
        try:
            reply = await self.llm.complete(self.messages, self.schemas, state.shown, state.steps)
        except ContextOverflow as e:
            fitted, self.compaction = await fit(self.conversation(), self.compaction, e.limit)
            learned(self.llm, self.compaction)
            if state.refit == state.steps or not fitted:
                state.oversized = True
                why = f"{e} — it cannot be made to fit: shorten the input (or /clear in the REPL)"
                return Done(TurnEnd("error_during_execution", state.last_text, state.steps, why))
            state.refit = state.steps  # the same step failing again means it cannot fit
            return RETRY
        except LLMError as e:  # a spending cap (agent.core.budget) has its own subtype
            return Done(TurnEnd(e.subtype, state.last_text, state.steps, str(e)))
        state.shown = None  # the reply joins the history whole
        self._count(reply)
        state.last_text = reply.text or state.last_text
        return await self._handle(reply, state)

    async def _handle(self, reply: Reply, state: TurnState) -> Next:
        """Add the reply to the history; run its tools; AGAIN when the model has more to do."""
        msg: Message = {"role": "assistant", "content": reply.text}
        if reply.reasoning:
            msg["reasoning_content"] = reply.reasoning
        calls = [prepare(c.id, c.name, c.arguments, self.tools) for c in reply.calls]
        cut = split_cut(reply.finish_reason, calls, reply.text)
        calls = cut.run if cut is not None else calls  # a cut call never runs
        if calls:
            msg["tool_calls"] = wire_calls(calls)
        self._add(msg)
        shown = [{"id": c.id, "name": c.name, "args": c.args} for c in calls]
        finish = reply.finish_reason or ""
        self.sink.emit(AssistantMessage(reply.text, reply.reasoning, shown, reply.usage, finish))
        if cut is not None or reply.malformed:
            if calls:
                await self._run_tools(calls, state)
            return AGAIN if self._recover(state, cut, reply) else _answered(reply, state)
        if reply.finish_reason == "length":
            why = "went round in circles until" if repeating(reply.text) else "was cut at"
            self.sink.emit(Notice(f"the model's reply {why} its output token limit"))
        if calls:
            await self._run_tools(calls, state)
        if (looped := state.looping()) is not None:  # the step limit is high: a loop ends here
            return Done(looped)
        return _answered(reply, state) if not calls or self._final(calls, state) else AGAIN

    def _final(self, calls: list[Call], state: TurnState) -> bool:
        """A tool that ends the turn (ToolResult.final): its text is the reply."""
        final = next((r.final for c in calls if (r := state.done.get(c.id)) and r.final), "")
        if final:
            state.final = final
            self._add({"role": "assistant", "content": final})
            self.sink.emit(AssistantMessage(final, "", [], None, "stop"))
        return bool(final)

    def _recover(self, state: TurnState, cut: Cut | None, reply: Reply) -> bool:
        """Tell the model what of its reply could not be used, instead of running it."""
        state.recoveries += 1
        if state.recoveries > RECOVERY_LIMIT:
            self.sink.emit(Notice("the model keeps sending unusable tool calls; stopping"))
            return False
        note, told = notes(cut, reply.malformed)
        self.sink.emit(Notice(told))
        self._add({"role": "user", "content": f"[agent] {note}"})
        return True

    async def _run_tools(self, calls: list[Call], state: TurnState) -> None:
        state.note_repeats(calls)
        state.pending = calls
        state.done = {}
        await self.dispatcher.run_all(calls, self.ctx, self.sink, state.done)
        self._ran([c.name for c in calls])
        for c in calls:
            self._add_result(c, state.done[c.id])
        pictures = [r.image for c in calls if (r := state.done[c.id]).image is not None]
        if pictures:  # after every result of the step: a tool message carries text only
            self._add(images_message(pictures))
        state.pending = []

    def _add_result(self, call: Call, result: ToolResult) -> None:
        tool, cwd = self.tools.get(call.name), self.ctx.cwd
        r = self.economy.result(call, tool, result, self.messages, cwd)
        self._add({"role": "tool", "tool_call_id": call.id, "content": r.output})

    def _close_pending(self, state: TurnState, why: str = INTERRUPTED) -> None:
        """Give every call of an interrupted step a result, so the history stays valid."""
        for c in state.pending:
            r = state.done.get(c.id)
            if r is None and c.started:  # a call shown as started is shown as ended
                self.sink.emit(ToolEnd(c.id, c.name, c.args, why, True, 0, None))
            self._add_result(c, r if r is not None else ToolResult(why, True))
        state.pending = []

    def _count(self, reply: Reply) -> None:
        u, price = reply.usage, self.llm.price()
        self.totals.add(u, price)
        self.meter.observe(u, len(self.messages) + 1)  # this request and the reply it gave
        if u:
            tokens = (u["input_tokens"], u["cached_tokens"], u["output_tokens"])
            self.sink.emit(Usage(**u, cost=None if price is None else price.cost(*tokens)))


def _answered(reply: Reply, state: TurnState) -> Done:
    """The model answered (or a tool's result is the answer): the turn succeeded."""
    text = state.final or reply.text
    return Done(TurnEnd("success", text, state.steps, truncated=reply.finish_reason == "length"))
