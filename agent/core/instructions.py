"""The system prompt of a scripted run: the built-in prompt (agent.context.memory) with what the
command line adds — `--system-prompt-file`, `--append-system-prompt` and the `--output-schema`
instructions.

`--system-prompt-file` (or `--system-prompt TEXT`) replaces the built-in prompt's response
format and example with the file's text (`--system-prompt ""`: with nothing); its role and
boundaries and its rules (safety, reading before editing, the dedicated tools) stay, so the
tools are used as safely as ever. The additions go before the memory block: /context counts
what follows the memory header as memory, and subagents, which inherit only the memory, never
get them (a subagent must not answer its parent in JSON).
"""

from __future__ import annotations

import re

from agent.config.automation import Automation
from agent.context.memory import MEMORY_HEADER, base_prompt
from agent.core.structured import instructions

KEPT = ("# Role and boundaries", "# Rules")  # the built-in sections a prompt file keeps
_SECTION = re.compile(r"(?m)^(?=# )")


def kept_rules(base: str) -> str:
    """The sections of the built-in prompt that `--system-prompt-file` keeps."""
    return "\n\n".join(s.rstrip() for s in _SECTION.split(base) if s.startswith(KEPT))


def dressed(prompt: str, automation: Automation) -> str:
    """`prompt` (a session's system prompt as agent.context.memory builds it) with the run's
    additions; `prompt` itself when there are none."""
    a = automation
    schema = instructions(a.output_schema) if a.output_schema is not None else ""
    if a.system_prompt is None and not (a.append_prompt or schema):
        return prompt
    head, header, memory = prompt.partition(f"\n\n{MEMORY_HEADER}")
    if a.system_prompt is not None:  # "" (Claude Code's `--system-prompt ""`): no persona
        base = base_prompt().rstrip()
        persona = f"\n\n{a.system_prompt}" if a.system_prompt else ""
        head = head.replace(base, f"{kept_rules(base)}{persona}", 1)
    head = head.rstrip("\n") + "".join(f"\n\n{x}" for x in (a.append_prompt, schema) if x)
    return f"{head}{header}{memory}" if header else f"{head}\n"
