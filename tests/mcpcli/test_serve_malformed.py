"""`agent mcp serve` fed what no MCP client should send (issue 38): the SDK dropped a
malformed line without a word; now each gets its JSON-RPC error (Parse error or Invalid
Request, id null), a line over the limit is read past without being held, and the next
request is answered in the same session."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from raw_rpc import MALFORMED, RawPeer

from agent.editor.wire import MAX_LINE

INIT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "raw", "version": "1"},
}


def test_malformed_lines_get_errors_and_the_session_goes_on(
    tmp_path: Path, state_dir: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "notes.txt").write_text("the secret word is mango\n")
    (tmp_path / "home").mkdir()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "OPENAI_"))},
        "HOME": str(tmp_path / "home"),
        "AGENT_STATE_DIR": str(state_dir),
        "AGENT_SANDBOX": "off",
    }
    peer = RawPeer([sys.executable, "-m", "agent", "mcp", "serve"], env, project)
    try:
        assert "result" in peer.call(1, "initialize", INIT)
        peer.send(None, "notifications/initialized")
        huge = b'{"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"x": "'
        huge += b"x" * (MAX_LINE + 1) + b'"}}'
        sdk_only = (b'{"id": 6, "method": "tools/list"}', -32600)  # no "jsonrpc": "2.0"
        for n, (raw, code) in enumerate([*MALFORMED, sdk_only, (huge, -32600)], start=10):
            peer.line(raw)
            answer = peer.reply(None)
            assert answer["error"]["code"] == code, (raw[:60], answer)
            listed = peer.call(n, "tools/list", {})
            assert any(t["name"] == "read_file" for t in listed["result"]["tools"]), raw[:60]
        assert "over 16 MB was read past" in answer["error"]["message"]
        call = {"name": "read_file", "arguments": {"path": "notes.txt"}}
        read = peer.call(99, "tools/call", call)
        assert "mango" in read["result"]["content"][0]["text"]
    finally:
        assert peer.close() == 0
