"""The first run: with no API key, an interactive run asks for a provider, the key (not shown
as it is typed) and a model, keeps them, and goes on into the REPL — instead of stopping.

Only when stdin and stderr are terminals; a one-shot run keeps the error that names every
provider (agent.config.keys), and so does a provider that needs no key (it never gets here).
Nothing is written until every answer is in: Ctrl-C (exit 130), Ctrl-D or an empty key (exit
2) leave every file as it was. The key goes to `~/.agent/.env`, readable by the user alone,
or to the OS keyring where the `keyring` package has one (agent.config.keystore); the provider
and model, when they are not what the run would pick anyway, to `~/.agent/settings.json`, its
other keys kept. The models offered are the server's own (GET {base}/models) when it answers
quickly; offline the name is typed.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NamedTuple

from agent.base.visible import visible
from agent.config import keystore
from agent.config.errors import ConfigError
from agent.config.keys import NoKey
from agent.config.load import flags_from
from agent.config.providers import PRESETS, Provider
from agent.config.settings import read_settings_json, save_user_setting, user_dir
from agent.ui.startup import configure

if TYPE_CHECKING:  # annotations only
    from argparse import Namespace

    from agent.config.load import Config

LIST_TIMEOUT = 5.0  # seconds the server has to list its models; offline, the name is typed
SHOWN = 20  # models listed by number (OpenRouter has hundreds: the rest are typed)
# What a key may not hold besides spaces and controls: it is written bare (VAR=key) into a .env
# file, where these would quote, escape, expand or end it.
BAD = frozenset("\"#$'\\`")
WHERE_KEYS = {
    "deepseek": "https://platform.deepseek.com/api_keys",
    "openai": "https://platform.openai.com/api-keys",
    "groq": "https://console.groq.com/keys",
    "openrouter": "https://openrouter.ai/keys",
}


class Cancelled(ConfigError):
    """Ctrl-D or an empty key: the set-up ends, nothing written (exit 2)."""


class Interrupted(Cancelled):
    """Ctrl-C during the set-up: nothing written (exit 130)."""


class Answers(NamedTuple):
    provider: Provider
    var: str  # the variable the key is kept under
    key: str  # "" for a provider that needs none
    model: str
    keyring: bool  # kept in the OS keyring rather than ~/.agent/.env


def configured(args: Namespace) -> Config:
    """The run's Config (agent.ui.startup.configure); with no key and a person at the
    terminal, after the set-up has kept what they chose."""
    try:
        return configure(flags_from(args))
    except NoKey as e:
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            raise
        answers, current = ask(e), e.provider.name
    for line in save(answers, current):
        _say(f"agent: {line}")
    if args.provider:  # --provider said one, the set-up another: this run takes the answer
        args.provider = answers.provider.name
    cfg = configure(flags_from(args))
    if cfg.model != answers.model:
        _say(f"agent: this run uses {visible(cfg.model)} (--model, --think, AGENT_MODEL or a")
        _say("  project's settings choose it over yours)")
    return cfg


def ask(e: NoKey) -> Answers:
    """Provider, key, where to keep it, model: asked on the terminal, nothing written."""
    shown = visible(e.var, "")  # a settings' apiKeyEnv
    _say(f"\nNo API key for {e.provider.name} ({shown}). Let's set one up — Ctrl-C cancels, and")
    _say("nothing is written until the last answer.")
    if e.in_project is not None:
        where = visible(str(e.in_project), "")
        _say(f"({shown} is in {where}, read once you trust the project: Ctrl-C, then")
        _say(" agent --trust-project; or keep a key of your own here.)")
    try:
        p = _provider(e)
        var = e.var if e.var != e.provider.api_key_env else p.api_key_env  # an apiKeyEnv stays
        url = e.base_url if e.base_url != e.provider.base_url else p.base_url
        key = _key(p, var) if p.needs_key else ""
        in_keyring = _in_keyring() if key else False
        model = _model(p, url, key)
    except KeyboardInterrupt:
        _say("")
        raise Interrupted("set-up cancelled (Ctrl-C); nothing was written") from None
    return Answers(p, var, key, model, in_keyring)


def _provider(e: NoKey) -> Provider:
    """A numbered choice of the presets (custom is --base-url's), the current one the default."""
    choices = [q for q in PRESETS.values() if q.base_url]
    names = [q.name for q in choices]
    default = names.index(e.provider.name) + 1 if e.provider.name in names else 1
    _say("\nProviders:")
    for i, q in enumerate(choices, 1):
        _say(f"  {i}. {q.name:<11} {q.api_key_env if q.needs_key else 'no key':<19} {q.base_url}")
    if e.base_url != e.provider.base_url:
        _say(f"  (requests go to {visible(e.base_url)}, as your settings or flags say)")
    _say("  (another server: Ctrl-C, then agent --base-url URL)")
    while True:
        answer = (_read(f"Provider [{default}]: ") or str(default)).lower()
        if answer in names:
            answer = str(names.index(answer) + 1)
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            chosen = choices[int(answer) - 1]
            return e.provider if chosen.name == e.provider.name else chosen  # its overrides kept
        _say(f"  a number from 1 to {len(choices)}, or a provider's name")


def _key(p: Provider, var: str) -> str:
    """The key, read without echo; an empty one cancels."""
    import getpass

    where = WHERE_KEYS.get(p.name)
    _say(f"\nYour {p.name} API key" + (f" (get one at {where})" if where else "") + ":")
    _say("it is not shown as you type or paste it; Enter on nothing cancels.")
    while True:
        try:
            key = getpass.getpass(f"{visible(var, '')}: ", stream=sys.stderr).strip()
        except EOFError:
            raise Cancelled("set-up cancelled (Ctrl-D); nothing was written") from None
        if not key:
            raise Cancelled("no key given; set-up cancelled, nothing was written")
        if all("!" <= c <= "~" for c in key) and not BAD & set(key):
            return key
        _say("  a key has no spaces, quotes, backslashes, # or $: paste it again")


def _in_keyring() -> bool:
    """Where the key goes: the OS keyring when there is one (asked), else ~/.agent/.env."""
    name = keystore.keyring_name()
    if not name:
        return False
    _say(f"\nKeep the key in: 1. {name}  2. {user_dir() / '.env'} (readable by you only)")
    while True:
        answer = _read("Where [1]: ") or "1"
        if answer in ("1", "2"):
            return answer == "1"


def _model(p: Provider, url: str, key: str) -> str:
    """The server's models by number when it lists them, else a typed name; Enter: the default."""
    listed, why = list_models(url, key)
    local = not p.needs_key and listed and p.model not in listed  # vllm's placeholder "default"
    default = listed[0] if local else p.model
    if listed:
        _say(f"\nModels at {visible(url)}:")
        for i, name in enumerate(listed[:SHOWN], 1):
            _say(f"  {i}. {visible(name, '')}")
        if len(listed) > SHOWN:
            _say(f"  … and {len(listed) - SHOWN} more: type any name")
    else:
        _say(f"\n(no list of models from {visible(url)}: {visible(why)}; type a model's name)")
    answer = _read(f"Model [{visible(default, '')}]: ")
    if answer.isdigit() and 1 <= int(answer) <= min(len(listed), SHOWN):
        return listed[int(answer) - 1]
    return answer or default


def list_models(url: str, key: str) -> tuple[list[str], str]:
    """The ids GET {url}/models answers with, sorted, or ([], why not) — never waiting long."""
    import json
    import urllib.request

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    request = urllib.request.Request(url.rstrip("/") + "/models", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=LIST_TIMEOUT) as answer:
            data = json.loads(answer.read(4_000_000))
        ids = {str(m["id"]) for m in data["data"] if isinstance(m, dict) and m.get("id")}
    except KeyboardInterrupt:
        raise
    except Exception as e:  # offline, refused, a 401, not JSON: the name is typed instead
        return [], str(getattr(e, "reason", "") or e) or type(e).__name__
    return sorted(ids), ""


def save(a: Answers, current: str) -> list[str]:
    """Keep the answers; what was saved where (the key itself never said)."""
    said = []
    try:
        if a.key and a.keyring:
            said.append(f"{a.var} kept in {keystore.to_keyring(a.var, a.key)}")
        elif a.key:
            path = keystore.to_env_file(a.var, a.key)
            said.append(f"{a.var} saved in {path} (readable by you only)")
        changes: dict[str, str | None] = {}
        if a.provider.name != current:  # else the run picks it anyway: no setting to pin it
            changes["provider"] = a.provider.name
        if a.model != a.provider.model:
            changes["model"] = a.model
        elif "model" in read_settings_json(user_dir() / "settings.json"):
            changes["model"] = None  # the provider's own model: an older choice goes
        for name, value in changes.items():
            where = save_user_setting(name, value)
            said.append(f"{name} {'saved' if value else 'removed'} in {where}")
    except OSError as e:
        raise ConfigError(f"could not save the set-up: {e}") from None
    return said


def _read(prompt: str) -> str:
    """One answer from stdin; Ctrl-D (end of input) cancels."""
    print(prompt, end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    if not line:
        _say("")
        raise Cancelled("set-up cancelled (Ctrl-D); nothing was written")
    return line.strip()


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
