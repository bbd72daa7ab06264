"""Context economy (issue 22): a scripted 40-step session replayed against the fake server with
the economy off (before: every result whole up to the 12,000-character cap, no de-duplication,
no clearing — compaction only) and on (the defaults), on the same project and the same script.

Figures: input tokens sent over the whole session (the summarisation requests included, all
sized by the agent's own estimator so both runs are counted alike), the share of them that
repeats the previous request's prefix (what a provider's prompt cache can serve), how often the
prefix broke and why, and the largest request against the window.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import ROOT, Table

sys.path.insert(0, str(ROOT / "tests"))

WINDOW = 64_000  # tokens: a local model's window, where economy matters most
OFF = {"spillAt": 0, "clearAt": 0, "dedupReads": False}
SUMMARY_MARKER = "You summarise a coding session"
BIG = "python3 -c \"import random; random.seed({seed}); print('\\n'.join('build step %05d: compiled module_%d.o in %.3f s' % (i, random.randrange(999), random.random()) for i in range(4400)))\""  # noqa: E501 - ~200 kB of output
TESTS = "python3 -c \"print('\\n'.join('tests/test_%02d.py::test_case PASSED' % i for i in range(60)))\""  # noqa: E501


def _source(name: str) -> str:
    """A plausible ~8 kB Python module."""
    out = [f'"""Module {name}: part of the benchmark project."""', "", "import os", ""]
    for i in range(24):
        out += [
            f"def {name}_function_{i}(value: int, scale: float = 1.5) -> float:",
            f'    """Compute the {i}th transformation of value for {name}."""',
            f"    result = value * scale + {i}",
            "    if result > 100:",
            f"        result = result / {i + 2}",
            "    return round(result, 3)",
            "",
        ]
    return "\n".join(out) + "\n"


def _script() -> list[tuple[str, list[tuple[str, dict[str, Any]]]]]:
    """Six user turns, forty tool steps: reads, re-reads, two ~200 kB outputs, a web page
    fetched twice, edits and test runs."""

    def read(n: str) -> tuple[str, dict[str, Any]]:
        return ("read_file", {"path": f"src/{n}.py"})

    def edit(n: str, i: int) -> tuple[str, dict[str, Any]]:
        old = f"    result = value * scale + {i}\n"
        return ("edit_file", {"path": f"src/{n}.py", "old_string": old,
                              "new_string": old.replace("scale", "scale * 2")})  # fmt: skip

    bash = lambda cmd: ("bash", {"command": cmd})  # noqa: E731
    web = ("web_fetch", {"url": "{url}"})
    return [
        ("understand the project", [
            ("glob", {"pattern": "**/*.py"}),
            ("grep", {"pattern": "def a_", "output_mode": "content"}),
            read("a"), read("b"), read("c"), read("d"), read("e"), read("a"),
        ]),
        ("run the build", [bash(BIG.format(seed=1)), read("f"), read("b"), read("g"), read("a")]),
        ("check the docs", [web, read("h"), read("c"), ("grep", {"pattern": "return round"})]),
        ("fix the scaling", [
            edit("a", 3), read("a"), read("a"), edit("b", 4), read("b"), bash(TESTS), read("d"),
            read("i"),
        ]),
        ("extend it", [
            read("j"), read("k"), read("e"), edit("c", 5), read("c"), bash(TESTS), read("l"),
            read("f"),
        ]),
        ("final check", [
            bash(BIG.format(seed=2)), read("a"), ("grep", {"pattern": "scale \\* 2"}), read("g"),
            bash(TESTS), read("b"), web,
        ]),
    ]  # fmt: skip


@dataclass
class Outcome:
    bodies: list[dict[str, Any]] = field(default_factory=list)
    clears: int = 0
    compactions: int = 0
    steps: int = 0


@contextmanager
def _page() -> Iterator[str]:
    from web_server import QuietHandler, serve

    rows = "".join(
        f"<h2>Section {i}</h2><p>The scaling option multiplies every value; section {i} explains "
        f"case {i} in detail with an example of how it interacts with rounding.</p>"
        for i in range(600)
    )
    page = f"<html><head><title>Docs</title></head><body>{rows}</body></html>".encode()

    class Docs(QuietHandler):
        def do_GET(self) -> None:
            self.reply(200, page, "text/html; charset=utf-8")

    with serve(Docs) as host:
        yield f"http://{host}/docs"


def _turns(url: str) -> tuple[list[Any], list[str]]:
    from fake_openai import text, tool_calls

    turns, prompts = [], []
    for prompt, calls in _script():
        prompts.append(prompt)
        for name, args in calls:
            args = json.loads(json.dumps(args).replace("{url}", url))
            turns.append(tool_calls([(name, args)], usage=None, usage_mode=None))
        turns.append(text(f"Done: {prompt}.", usage=None, usage_mode=None))
    return turns, prompts


async def _session(url: str, proj: Path, economy: dict[str, Any]) -> Outcome:
    from fake_openai import text
    from routed_fake import RoutedFake

    from agent.app import build
    from agent.base.events import Compacted, Recorder
    from agent.config.load import Flags, load_config

    fake = RoutedFake().start()
    turns, prompts = _turns(url)
    fake.script(*turns)
    summary = "## Task\nMake scaling configurable.\n## Files\nsrc/*.py\n## Open todos\nnone"
    fake.route(SUMMARY_MARKER, *[text(summary, usage=None, usage_mode=None)] * 20)
    settings = {"contextLimit": WINDOW, "webFetch": {"allowPrivateHosts": True}}
    (proj / ".agent" / "settings.json").write_text(json.dumps({**settings, "toolResults": economy}))
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "x", "AGENT_MODEL": "fake-model"}
    flags = Flags(
        max_turns=100, permission_mode="bypassPermissions", no_mcp=True, trust_project=True
    )
    rec = Recorder()
    run = build(load_config(flags, env, proj), rec)
    try:
        for prompt in prompts:
            end = await run.turn(prompt)
            if end.subtype != "success":
                raise RuntimeError(f"the scripted session failed: {end.error}")
    finally:
        await run.agent.llm.aclose()
        run.store.close()
        fake.stop()
    out = Outcome(list(fake.requests))
    done = [e for e in rec.events if isinstance(e, Compacted)]
    out.clears = sum(1 for e in done if e.trigger == "clear")
    out.compactions = len(done) - out.clears
    out.steps = sum(len(calls) for _, calls in _script())
    return out


def _tokens(body: dict[str, Any]) -> int:
    from agent.base.tokens import estimate_messages, estimate_tools

    return estimate_messages(body["messages"]) + estimate_tools(body.get("tools") or [])


def _figures(out: Outcome) -> dict[str, Any]:
    """Totals, the cacheable share, prefix breaks of the conversation's own requests."""
    from agent.base.tokens import estimate_messages, estimate_tools

    main = [b for b in out.bodies if SUMMARY_MARKER not in json.dumps(b["messages"][:1])]
    total = sum(_tokens(b) for b in out.bodies)
    cached, breaks, prev = 0, 0, None
    for body in main:
        msgs = body["messages"]
        if prev is not None:
            shared = 0
            while shared < min(len(prev), len(msgs)) and prev[shared] == msgs[shared]:
                shared += 1
            breaks += shared < len(prev)
            cached += estimate_messages(msgs[:shared]) + estimate_tools(body.get("tools") or [])
        prev = msgs
    return {
        "total": total,
        "requests": len(out.bodies),
        "cached": cached / max(sum(_tokens(b) for b in main), 1),
        "breaks": breaks,
        "largest": max(_tokens(b) for b in out.bodies),
    }


def _project(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    (root / ".agent").mkdir()
    for n in "abcdefghijkl":
        (root / "src" / f"{n}.py").write_text(_source(n))


def run_both() -> tuple[dict[str, Any], dict[str, Any], Outcome, Outcome]:
    results = []
    with _page() as url:
        for economy in (OFF, {}):
            with tempfile.TemporaryDirectory() as tmp:
                proj = Path(tmp) / "proj"
                _project(proj)
                os.environ["HOME"] = str(Path(tmp) / "home")
                os.environ["AGENT_STATE_DIR"] = str(Path(tmp) / "state")
                results.append(asyncio.run(_session(url, proj, economy)))
    before, after = results
    return _figures(before), _figures(after), before, after


def economy_bench(table: Table) -> None:
    b, a, before, after = run_both()
    fewer = 1 - a["total"] / b["total"]
    table.add(
        f"input tokens, {after.steps}-step session (economy on)",
        f"{a['total']:,} in {a['requests']} requests",
        f"economy off {b['total']:,} in {b['requests']} requests",
        "≥ 40% fewer",
        fewer >= 0.40,
    )
    table.add("input tokens saved", f"{fewer:.0%}", "", "40%", fewer >= 0.40)
    table.add(
        "prefix breaks (economy on)",
        f"{a['breaks']} ({after.clears} clearing, {after.compactions} compaction)",
        f"economy off: {b['breaks']} ({before.compactions} compaction)",
        "only at clearing/compaction",
        a["breaks"] <= after.clears + after.compactions,
    )
    table.add(
        "prompt-cacheable share of input",
        f"{a['cached']:.0%}",
        f"economy off {b['cached']:.0%}",
        "",
        None,
    )
    worst = max(a["largest"], b["largest"])
    table.add(
        "largest request (on / off)",
        f"{a['largest']:,} / {b['largest']:,} tokens",
        f"window {WINDOW:,}",
        "≤ window",
        worst <= WINDOW,
    )


if __name__ == "__main__":
    t = Table()
    economy_bench(t)
    print(t.markdown())
