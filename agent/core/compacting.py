"""The loop's side of compaction (agent.context.compaction): the history as compaction sees
it, the context window, and /compact. A base of agent.core.loop.Agent, which holds the state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent.base.events import CompactTrigger, Sink
from agent.base.messages import Message
from agent.base.tokens import Meter
from agent.context.compaction import Conversation, Policy, compact
from agent.core.llm import LLM
from agent.core.stream import Reply
from agent.hooks.hooks import Hooks


class Compacting:
    """What compaction needs of the loop; the attributes are the Agent's own."""

    messages: list[Message]
    schemas: list[dict[str, Any]]
    meter: Meter
    sink: Sink
    hooks: Hooks | None
    compaction: Policy | None
    llm: LLM
    _count: Callable[[Reply], None]  # the Agent's: what a request cost

    def conversation(self) -> Conversation:
        """The history as compaction sees it (agent.context.compaction)."""
        return Conversation(
            self.messages,
            self.schemas,
            self.meter,
            self.sink,
            self._ask_without_tools,
            self._pre_compact if self.hooks is not None else None,
        )

    def window(self) -> int:
        """The context window in tokens: the server's once known, else the configured one."""
        policy = self.compaction
        return policy.context_limit if policy else self.llm.cfg.provider.context_limit

    async def compact(self, focus: str = "", trigger: CompactTrigger = "manual") -> bool:
        """Compact now (/compact): with the session's policy, or the provider's window."""
        policy = self.compaction or Policy(self.window())
        return await compact(self.conversation(), policy, focus, trigger)

    async def _ask_without_tools(self, request: list[Message], sink: Sink) -> tuple[str, bool]:
        reply = await self.llm.complete(request, [], sink, 0)
        self._count(reply)  # its cost is real
        return ("" if reply.calls else reply.text), reply.finish_reason == "length"

    async def _pre_compact(self, trigger: CompactTrigger, focus: str) -> list[str]:
        """Fire the PreCompact hook; what it adds joins the summarisation instructions."""
        return await self.hooks.pre_compact(trigger, focus) if self.hooks is not None else []
