"""The Claude Agent SDK front end (`--input-format stream-json`): programs written against the
Claude Agent SDK (Python `claude-agent-sdk`, TypeScript `@anthropic-ai/claude-agent-sdk`) spawn
`agent` as their CLI and talk to it over stdin and stdout — user messages and the SDK's control
protocol in (initialize, interrupt, set_permission_mode, set_model), stream-json out, and the
agent's own requests to the program (can_use_tool, hook_callback, mcp_message) answered there.

May import: commands, app and everything below them (and agent.editor.wire's line reader).
"""
