"""Paths for permission checks: real paths, component-wise containment, protected locations.

A path is judged twice: as the tools will name it (`~` expanded, made absolute, `..` folded —
agent.tools.shared.common.resolve) and as the kernel will reach it (symlinks resolved). The
stricter verdict wins. Containment compares path components, never string prefixes, so
`/proj-evil` is not inside `/proj`.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

# Basenames that always ask, anywhere (secrets, repository internals, agent configuration).
SECRET_NAMES = (
    ".env",
    ".env.*",
    ".envrc",
    ".netrc",
    "_netrc",
    ".pgpass",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    ".mcp.json",
    "credentials",  # ~/.aws/credentials, a copy of it in a project
    "credentials.json",
    "credentials.toml",  # ~/.cargo
    "credentials.tfrc.json",  # ~/.terraform.d
    "rclone.conf",
    "service-account*.json",
    "client_secret*.json",
)
ENV_TEMPLATES = (".env.example", ".env.sample", ".env.template", ".env.dist")
# Inside any `.agent/` directory: what configures permissions, hooks and code that runs.
AGENT_FILES = (
    "settings*.json",
    "hooks.json",
    "trusted.json",
    "actions.json",
    "own-settings.json",
    "grants.json",
)
# Inside any `.agent/` directory: the records of past work (agent/session.py, agent/audit.py).
# They hold whole conversations and file contents, secrets the user pasted included.
AGENT_RECORDS = {
    "sessions": ".agent/sessions/ holds past conversations",
    "audit.jsonl": ".agent/audit.jsonl records past tool calls",
}
PROTECTED_DIRS = (".git",)
# Words that make a search pattern name protected files.
PROTECTED_WORDS = (".env", ".git", ".ssh", ".aws", "id_rsa", "id_ed25519", ".netrc", ".agent")
# Relative to the home directory: credential stores.
HOME_SECRETS = (
    ".ssh",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".docker/config.json",
    ".kube",
    ".gnupg",
    ".config/gh",
    ".password-store",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
    ".pgpass",
    ".vault-token",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".terraform.d/credentials.tfrc.json",
    ".config/rclone",
    ".config/git/credentials",
    ".config/containers/auth.json",
    ".cache/huggingface/token",
    ".huggingface/token",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".config/hub",
    ".config/doctl",
    ".config/op",
    ".oci",
    ".local/share/keyrings",
    # browsers: their cookies are live sessions
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    # other agents: their logins and their past conversations
    ".claude.json",
    ".claude/.credentials.json",
    ".claude/projects",
    ".codex/auth.json",
    ".codex/sessions",
    ".gemini/oauth_creds.json",
    ".config/github-copilot",
    ".local/state/agent",  # this agent's sessions and audit log: tokens pasted in chats
    # shell and REPL histories: typed tokens and passwords end up there
    ".bash_history",
    ".zsh_history",
    ".local/share/fish/fish_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
)
assert all(rel.startswith(".") for rel in HOME_SECRETS)  # secret_hits.hide_secrets relies on it


@dataclass(frozen=True)
class Workspace:
    """Where the agent may work: the project directory plus approved extra directories."""

    root: Path
    extra: tuple[Path, ...] = ()
    home: Path = field(default_factory=lambda: Path(os.path.expanduser("~")))
    # Folders the session's read-only tools may read without asking although they lie outside
    # (or in the protected state directory): this session's spilled tool outputs. Real paths.
    reads: tuple[str, ...] = ()

    @classmethod
    def make(
        cls, root: Path, extra: list[str] | tuple[str, ...] = (), home: Path | None = None
    ) -> Workspace:
        """Real paths of the root and of extra dirs (relative ones are taken from the root)."""
        real_root = Path(os.path.realpath(root))
        dirs = tuple(Path(os.path.realpath(real_root / os.path.expanduser(d))) for d in extra)
        h = Path(os.path.realpath(home or os.path.expanduser("~")))
        return cls(real_root, dirs, h)

    @property
    def dirs(self) -> tuple[str, ...]:
        return _strings(self)[0]

    @property
    def home_secrets(self) -> tuple[tuple[str, str], ...]:
        return _strings(self)[1]


@functools.lru_cache(maxsize=32)
def _strings(ws: Workspace) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    return tuple(str(d) for d in (ws.root, *ws.extra)), home_secrets(str(ws.home))


@functools.lru_cache(maxsize=8)
def home_secrets(home: str) -> tuple[tuple[str, str], ...]:
    """(absolute path, path relative to home) of every credential store below `home`."""
    return tuple((os.path.join(home, rel), rel) for rel in HOME_SECRETS)


def lexical(raw: str, base: Path | str) -> Path:
    """The path as the tools name it: `~` expanded, absolute, `.`/`..` folded lexically."""
    return Path(os.path.normpath(os.path.join(base, os.path.expanduser(raw or "."))))


def candidates(raw: str, base: Path | str) -> tuple[str, ...]:
    """Every path a call may touch for `raw`: as the tools fold it, and as the kernel resolves
    it (symlinks first, then `..` — the way a shell reaches it) — duplicates dropped."""
    joined = os.path.join(base, os.path.expanduser(raw or "."))
    lex = os.path.normpath(joined)
    if "\0" in joined:  # no file has such a name: the tool refuses it with a clear message
        return (lex,)
    out = [lex, os.path.realpath(lex), os.path.realpath(joined)]
    return tuple(dict.fromkeys(out))


def within(path: Path | str, dirs: tuple[Path | str, ...]) -> bool:
    """True when `path` is one of `dirs` or below one (whole components, never a prefix)."""
    p = str(path)
    for d in dirs:
        ds = str(d)
        if p == ds or p.startswith(ds if ds.endswith("/") else ds + "/"):
            return True
    return False


def protected(path: Path | str, ws: Workspace) -> str:
    """Why this path always needs the user's approval ("" when it does not)."""
    p = str(path)
    parts = p.split("/")
    low = p.lower().split("/")  # `.GIT` is `.git` on a case-insensitive disk (macOS)
    for d in PROTECTED_DIRS:
        if d in low:
            return f"{d}/ is protected"
    name = parts[-1]
    if len(low) >= 2 and low[-2] == ".agent" and _AGENT_RE.match(low[-1]):
        return f".agent/{name} configures the agent"
    return secret_path(p, ws.home_secrets, parts)


def secret_path(
    path: str, home: tuple[tuple[str, str], ...], parts: list[str] | None = None
) -> str:
    """Why a file holds secrets ("" when it does not): its name, an agent record (a session
    or the audit log, below `.agent/`) or a credential store in the home directory (`home`:
    paths.home_secrets). The part of `protected` that directory searches hide too."""
    parts = parts or path.split("/")
    name = parts[-1]
    if secret_name(name):
        return f"{name} may hold secrets"
    if name == "environ" and path.startswith("/proc/"):
        return "a process environment holds API keys"
    if ".agent" in parts:
        for i in range(parts.index(".agent"), len(parts) - 1):
            if parts[i] == ".agent" and parts[i + 1] in AGENT_RECORDS:
                return AGENT_RECORDS[parts[i + 1]]
    for secret, rel in home:
        if path == secret or path.startswith(secret + "/"):
            return f"~/{rel} holds credentials"
    return ""


def names_protected(pattern: str) -> bool:
    """A glob that spells out protected files (`**/.env*`, `.ssh/*`): asked about, and then
    searched as asked, secrets included."""
    parts = pattern.replace("\\", "/").split("/")
    return any(w in p for p in parts for w in PROTECTED_WORDS)


def secret_name(name: str) -> bool:
    """A file name that may hold secrets (`.env`, keys, credential files; not `.env.example`)."""
    name = name.lower()  # `.ENV` is `.env` on a case-insensitive disk (macOS)
    if not name or (name[0] not in _SECRET_FIRST and not name.endswith(_SECRET_SUFFIXES)):
        return False  # the common case, without the regex: searches check every hit's name
    return name not in ENV_TEMPLATES and bool(_SECRET_RE.match(name))


_SECRET_RE = re.compile("|".join(fnmatch.translate(p) for p in SECRET_NAMES))
_SECRET_FIRST = frozenset(p[0] for p in SECRET_NAMES if not p.startswith("*"))
_SECRET_SUFFIXES = tuple(p[1:] for p in SECRET_NAMES if p.startswith("*"))
assert not any(c in "".join(_SECRET_SUFFIXES) for c in "*?[")  # plain suffixes only
_AGENT_RE = re.compile("|".join(fnmatch.translate(p) for p in AGENT_FILES))


@dataclass(frozen=True)
class PathVerdict:
    """How a path argument relates to the workspace."""

    paths: tuple[str, ...]
    inside: bool
    secret: str  # "" or why it is protected

    @property
    def shown(self) -> Path:
        return Path(self.paths[-1]) if self.paths else Path()


def check(raw: str, ws: Workspace, base: Path | str | None = None) -> PathVerdict:
    """Judge one path argument: every candidate must be inside; any protected one taints."""
    cands = candidates(raw, base or ws.root)
    dirs = ws.dirs
    inside = all(within(p, dirs) for p in cands)
    secret = next((r for r in (protected(p, ws) for p in cands) if r), "")
    return PathVerdict(cands, inside, secret)


def expand_glob(pattern: str, base: Path | str, limit: int = 200) -> list[str] | None:
    """What the shell would expand an unquoted glob word to (None: too many to check)."""
    import glob
    import itertools

    pat = os.path.expanduser(pattern)
    hits = list(itertools.islice(glob.iglob(pat, root_dir=base), limit + 1))
    if len(hits) > limit:
        return None
    return hits or [pattern]
