"""Tool calls that leak into `content` as markup: DeepSeek DSML and `<tool_call>{json}`.

Some servers return calls as text with finish_reason "stop". They must never be shown as a
finished answer: the stream holds such text back, and `parse` turns it into real calls (which
then pass the normal permission path) or reports it as malformed.
"""

from __future__ import annotations

import json
import re

from agent.base.messages import ToolCall

BARS = "|｜‖"
_B = f"[{BARS}]{{1,2}}"
MARKER = re.compile(rf"<{_B}DSML{_B}|<tool_call>")
_INVOKE = re.compile(
    rf'<{_B}DSML{_B}invoke\s+name="([^"]+)"\s*>(.*?)</{_B}DSML{_B}invoke>', re.DOTALL
)
_PARAM = re.compile(
    rf'<{_B}DSML{_B}parameter\s+name="([^"]+)"(?:\s+string="(true|false)")?\s*>(.*?)'
    rf"</{_B}DSML{_B}parameter>",
    re.DOTALL,
)
_JSON_CALL = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.DOTALL)
_PREFIXES = ("<|DSML|", "<tool_call>")


def _maybe_prefix(tail: str) -> bool:
    """Could `tail` (which starts with '<') grow into a marker with more chunks?"""
    if len(tail) > 14:
        return False
    norm = re.sub(f"[{BARS}]+", "|", tail)
    return any(p.startswith(norm) for p in _PREFIXES)


def split_safe(s: str) -> tuple[int, bool] | None:
    """None if `s` can be shown whole; else (index, is_marker): show s[:index] only.

    is_marker=True means leaked markup starts at index; False means s[index:] might become
    markup and must wait for the next chunk.
    """
    i = s.find("<")
    while i >= 0:
        if MARKER.match(s, i):
            return i, True
        if _maybe_prefix(s[i:]):
            return i, False
        i = s.find("<", i + 1)
    return None


def _param_value(raw: str, is_string: str | None) -> object:
    if is_string == "false":
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def parse(text: str) -> tuple[str, list[ToolCall], str]:
    """(text without the markup, the calls, and a malformed-reason or "")."""
    start = MARKER.search(text)
    if not start:
        return text, [], ""
    calls: list[ToolCall] = []
    end = start.start()
    for m in _INVOKE.finditer(text, start.start()):
        args = {p[0]: _param_value(p[2], p[1]) for p in _PARAM.findall(m.group(2))}
        calls.append(ToolCall("", m.group(1), json.dumps(args, ensure_ascii=False)))
        end = m.end()
    for m in _JSON_CALL.finditer(text, start.start()):
        try:
            obj = json.loads(m.group(1))
            args = obj.get("arguments", obj.get("parameters", {}))
            calls.append(ToolCall("", str(obj["name"]), json.dumps(args, ensure_ascii=False)))
            end = max(end, m.end())
        except (ValueError, KeyError, AttributeError):
            continue
    close = re.compile(rf"\s*</{_B}DSML{_B}(?:tool_calls|function_calls)>\s*").match(text, end)
    rest = text[close.end() if close else end :].strip() if calls else ""
    clean = (text[: start.start()].rstrip() + ("\n" + rest if rest else "")).strip()
    if not calls:
        return clean, [], "tool-call markup in the reply text could not be parsed"
    return clean, calls, ""
