"""Language servers (issue 47): a small LSP client over stdio (rpc), one started server (server),
the known servers and the `lsp` setting (specs), a session's servers — started lazily, inside
the sandbox, restarted, shut down (session) — and the problems an edit introduced, in its
result (layer). The symbols tool reaches the servers through ToolContext.lsp (agent.base.parts).

May import: base, config. Nothing here imports a language server's library: they are programs.
"""
