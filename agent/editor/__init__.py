"""Editors: `agent --acp` speaks the Agent Client Protocol (JSON-RPC over stdio) so that Zed,
JetBrains IDEs and Neovim plugins drive the same loop, tools, permissions, sessions and memory.

Owns the ACP agent (initialize, sessions new and loaded, prompts, cancel, modes), turning the
loop's events into session updates, permission prompts sent to the editor, the editor's file
buffers and terminals offered to the tools. Built on the `agent-client-protocol` package, which
is imported only in this mode (~390 ms).

May import: app, commands, ui (a front end beside it) and everything below.
"""
