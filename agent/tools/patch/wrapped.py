"""A patch as models send it wrapped: in a heredoc (`<<'EOF'` … `EOF`, `<<EOF`, `<< "EOF"`),
after `apply_patch <<'EOF'`, or as a whole shell call (`bash -lc "apply_patch <<'EOF' …"`), the
shapes Codex's apply_patch takes too. What is not wrapped comes back as it was."""

from __future__ import annotations

import re

from agent.permissions.shell.parse import parse as parse_shell

_SHELL_CALL = re.compile(r"^(?:\S*/)?(?:bash|zsh|sh)\s+-l?c\s")
_HEREDOC = re.compile(
    r"""^(?:(?:apply_patch|applypatch)\s*)?<<-?\s*(?P<q>['"]?)(?P<end>[A-Za-z_][\w.-]*)(?P=q)$"""
)


def unwrap(patch: str) -> str:
    """The patch inside its wrapping (CRLF read as LF, surrounding blank space dropped)."""
    text = patch.replace("\r\n", "\n").strip()
    if _SHELL_CALL.match(text):
        text = _script(text).strip()
    lines = text.split("\n")
    m = _HEREDOC.match(lines[0].strip())
    if m and len(lines) >= 3 and lines[-1].strip() == m.group("end"):
        return "\n".join(lines[1:-1]).strip()
    return text


def _script(call: str) -> str:
    """The script of `bash -lc SCRIPT` (`sh -c`, `zsh -lc`), read with the shell parser the
    permission layer uses; a script the parser cannot give statically (a `$` inside double
    quotes) is taken between its quotes, as the model meant it literally."""
    p = parse_shell(call)
    argv = p.commands[0].argv if p.parsed and len(p.commands) == 1 else []
    if len(argv) == 3 and argv[2].value is not None and not p.redirects:
        return argv[2].value
    rest = _SHELL_CALL.sub("", call, count=1).strip()
    if len(rest) >= 2 and rest[0] == rest[-1] and rest[0] in "'\"":
        inner = rest[1:-1]
        return re.sub(r'\\([$`"\\])', r"\1", inner) if rest[0] == '"' else inner
    return call
