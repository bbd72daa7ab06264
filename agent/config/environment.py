"""Every environment variable the agent reads, or sets for what it starts: the reference
(docs/reference/environment.md) is made from this table, and a test checks that every
`AGENT_*` name the source uses is in it. The providers' key variables come from
agent.config.providers."""

from __future__ import annotations

# (name, read by the agent or set by it for hooks and actions, what it does)
ENVIRONMENT: tuple[tuple[str, str, str], ...] = (
    ("AGENT_API_KEY", "read", "the API key for any endpoint (the `custom` provider)"),
    ("AGENT_BASE_URL", "read", "an OpenAI-compatible base URL; setting it chooses `custom`"),
    ("AGENT_MODEL", "read", "the model (below --model, above settings)"),
    ("AGENT_SANDBOX", "read", "the sandbox mode, as --sandbox (`off` turns it off)"),
    ("AGENT_STATE_DIR", "read", "replaces ~/.local/state/agent: sessions, audit log, logs"),
    ("AGENT_CACHE_DIR", "read", "replaces ~/.cache/agent: the code tags cache"),
    ("AGENT_PROJECT_DIR", "set", "for hooks: the project's folder (also CLAUDE_PROJECT_DIR)"),
    ("AGENT_SESSION_ID", "set", "for hooks: the session's id"),
    ("AGENT_ACTION_RUNNING", "set", "for a project action: the id of the action running"),
    ("XDG_STATE_HOME", "read", "where the state folder goes when AGENT_STATE_DIR is not set"),
    ("XDG_CACHE_HOME", "read", "where the cache folder goes when AGENT_CACHE_DIR is not set"),
    ("NO_COLOR", "read", "no colours in the terminal"),
    ("HTTPS_PROXY", "read", "the proxy for requests to the model (the openai client's httpx)"),
)
