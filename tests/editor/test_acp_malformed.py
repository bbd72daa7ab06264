"""`agent --acp` fed what no editor should send (issue 38): a line of `[]`, `null` or `"text"`
ended the session (the acp package's reader died on it, the process still running, deaf);
now every malformed line gets its JSON-RPC error, id null, and the session goes on: the next
request is answered and a prompt in the session opened before still runs."""

from __future__ import annotations

import sys
from pathlib import Path

from acp_client import acp_env
from fake_openai import FakeOpenAI, text
from raw_rpc import MALFORMED, RawPeer

from agent.editor.wire import MAX_LINE


def test_malformed_lines_get_errors_and_the_session_goes_on(
    fake: FakeOpenAI, project: Path
) -> None:
    env = acp_env(fake, project.parent / "home")
    peer = RawPeer([sys.executable, "-m", "agent", "--acp", "--trust-project"], env, project)
    try:
        init = peer.call(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        assert "result" in init, init
        new = peer.call(2, "session/new", {"cwd": str(project), "mcpServers": []})
        session = new["result"]["sessionId"]
        huge = b'{"jsonrpc": "2.0", "id": 3, "method": "session/list", "params": {"x": "'
        huge += b"x" * (MAX_LINE + 1) + b'"}}'
        for n, (raw, code) in enumerate([*MALFORMED, (huge, -32600)], start=10):
            peer.line(raw)
            answer = peer.reply(None)
            assert answer["error"]["code"] == code, (raw[:60], answer)
            assert answer["jsonrpc"] == "2.0"
            assert "result" in peer.call(n, "session/list", {}), raw[:60]
        assert "over 16 MB was read past" in answer["error"]["message"]
        fake.script(text("still here"))
        prompt = [{"type": "text", "text": "are you there?"}]
        done = peer.call(99, "session/prompt", {"sessionId": session, "prompt": prompt})
        assert done["result"]["stopReason"] == "end_turn", done
        assert any(
            m.get("params", {}).get("update", {}).get("content", {}).get("text") == "still here"
            for m in peer.early
        )
    finally:
        assert peer.close() == 0
