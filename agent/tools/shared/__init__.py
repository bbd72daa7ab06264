"""What two or more tool families need, below all of them: the tool-call kit (`common`:
ToolError, `guard`, path resolution), text and bytes (`textio`: encodings,
BOMs, line endings, printable output), atomic writes (`atomic`), a file before a write and the
shared edit machinery (`current`, `difftext`), stale-read stamps (`stamps`), the editor's
buffers and terminals (`editor_io`), binary kinds (`binkinds`), symbolic links out of the
workspace (`links`), ignore files (`gitglob`, `agentignore`), walking a tree and running
ripgrep (`walk`), the files a search sees (`listing`) and what of them is secret
(`secret_hits`). Other packages above tools/ (context, session, ui) use these too.

May import: base, permissions, sandbox, config; never a tool family.
"""
