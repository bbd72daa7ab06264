"""Editing power (issue 25): model requests and input tokens of two scripted tasks replayed
against the fake server by the real agent, before (one edit_file per change, one call per
step) and after (independent reads in one step, an `edits` list per file, or one apply_patch).

- Refactor: rename a function used three times in each of five files (plus its definition).
- Eight-step task: find a setting, read the two files that use it, change it in both (two
  places in one), add a test, run the tests.

Tokens: every request's messages and tools, by the agent's estimator (as bench.economy).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import ROOT, Table

sys.path.insert(0, str(ROOT / "tests"))

Step = list[tuple[str, dict[str, Any]]]  # the calls of one model reply
FILES = 5


def _module(i: int) -> str:
    body = [f'"""Module {i}."""', "", "from lib import old_name", ""]
    for k in range(3):
        body += [f"def use_{i}_{k}(x):", f"    return old_name(x) + {k}", ""]
    return "\n".join(body) + "\n"


def _refactor_project(root: Path) -> None:
    (root / "lib.py").write_text("def old_name(x):\n    return x * 2\n")
    for i in range(FILES):
        (root / f"m{i}.py").write_text(_module(i))


def _edit(path: str, old: str, new: str) -> tuple[str, dict[str, Any]]:
    return ("edit_file", {"path": path, "old_string": old, "new_string": new})


def _rename_patch() -> str:
    patch = ["*** Begin Patch", "*** Update File: lib.py", "-def old_name(x):", "+def new_name(x):"]
    for i in range(FILES):
        patch += [f"*** Update File: m{i}.py", "-from lib import old_name"]
        patch.append("+from lib import new_name")
        for k in range(3):
            old = f"    return old_name(x) + {k}"
            patch += ["@@", f" def use_{i}_{k}(x):", f"-{old}", f"+{old.replace('old', 'new')}"]
    return "\n".join([*patch, "*** End Patch"])


def _refactor(mode: str) -> list[Step]:
    names = ["lib.py", *[f"m{i}.py" for i in range(FILES)]]
    reads = [("read_file", {"path": n}) for n in names]
    first = _edit("lib.py", "def old_name", "def new_name")
    if mode == "before":  # each read in its own step, then one call per change
        steps: list[Step] = [[r] for r in reads]
        steps.append([first])
        for i in range(FILES):
            steps.append([_edit(f"m{i}.py", "import old_name", "import new_name")])
            for k in range(3):
                old = f"    return old_name(x) + {k}"
                steps.append([_edit(f"m{i}.py", old, old.replace("old", "new"))])
        return steps
    if mode == "edits":  # the reads together, then an edits list per file, all in one reply
        every = [{"old_string": "old_name", "new_string": "new_name", "replace_all": True}]
        lists = [("edit_file", {"path": f"m{i}.py", "edits": every}) for i in range(FILES)]
        return [reads, [first, *lists]]
    return [reads, [("apply_patch", {"patch": _rename_patch()})]]


def _task_project(root: Path) -> None:
    (root / "config.py").write_text("TIMEOUT = 30\nRETRIES = 3\n")
    (root / "client.py").write_text(
        "from config import TIMEOUT\n\n\ndef wait():\n    return TIMEOUT\n"
    )
    (root / "server.py").write_text(
        "from config import TIMEOUT\n\nLIMIT = TIMEOUT * 2\n\n\ndef serve():\n    return TIMEOUT\n"
    )
    (root / "test_app.py").write_text("def test_ok():\n    assert True\n")


def _task(mode: str) -> list[Step]:
    grep = ("grep", {"pattern": "TIMEOUT", "output_mode": "content"})
    reads = [("read_file", {"path": p}) for p in ("client.py", "server.py")]
    e1 = (
        "edit_file",
        {"path": "client.py", "old_string": "return TIMEOUT", "new_string": "return TIMEOUT + 1"},
    )
    s1 = {"old_string": "LIMIT = TIMEOUT * 2", "new_string": "LIMIT = TIMEOUT * 3"}
    s2 = {"old_string": "    return TIMEOUT", "new_string": "    return TIMEOUT + 1"}
    test = (
        "edit_file",
        {
            "path": "test_app.py",
            "old_string": "    assert True",
            "new_string": "    assert True\n\n\ndef test_more():\n    assert 1",
        },
    )
    run = ("bash", {"command": "python3 -c 'print(\"2 passed\")'"})
    rt = ("read_file", {"path": "test_app.py"})
    if mode == "before":
        return [[grep], [reads[0]], [reads[1]], [e1], [("edit_file", {"path": "server.py", **s1})],
                [("edit_file", {"path": "server.py", **s2})], [rt], [test], [run]]  # fmt: skip
    return [
        [grep],
        [*reads, rt],
        [e1, ("edit_file", {"path": "server.py", "edits": [s1, s2]}), test],
        [run],
    ]


async def _replay(root: Path, steps: list[Step], patch: bool) -> tuple[int, int]:
    from fake_openai import FakeOpenAI, text, tool_calls

    from agent.app import build
    from agent.base.events import Recorder
    from agent.base.tokens import estimate_messages, estimate_tools
    from agent.config.load import Flags, load_config

    fake = FakeOpenAI().start()
    fake.script(*[tool_calls(s, usage=None, usage_mode=None) for s in steps], text("done"))
    (root / ".agent").mkdir(exist_ok=True)
    settings = {"tools": {"applyPatch": patch}, "repoMap": {"tokens": 0}}
    (root / ".agent" / "settings.json").write_text(json.dumps(settings))
    env = {"AGENT_BASE_URL": fake.base_url, "AGENT_API_KEY": "x", "AGENT_MODEL": "fake-model",
           "AGENT_SANDBOX": "off"}  # fmt: skip
    flags = Flags(permission_mode="bypassPermissions", no_mcp=True, trust_project=True)
    run = build(load_config(flags, env, root), Recorder())
    try:
        end = await run.turn("do the task")
        assert end.subtype == "success", end.error
    finally:
        await run.end()
        await run.agent.llm.aclose()
        run.store.close()
        fake.stop()
    failed = [m["content"] for m in fake.requests[-1]["messages"]
              if m["role"] == "tool" and str(m["content"]).startswith("Error")]  # fmt: skip
    assert not failed, failed
    tokens = sum(estimate_messages(b["messages"]) + estimate_tools(b.get("tools") or [])
                 for b in fake.requests)  # fmt: skip
    return len(fake.requests), tokens


def _measure(make: Any, script: Any, mode: str) -> tuple[int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        make(Path(tmp))
        return asyncio.run(_replay(Path(tmp), script(mode), mode == "patch"))


def edit_bench(table: Table) -> None:
    before = _measure(_refactor_project, _refactor, "before")
    for mode in ("edits", "patch"):
        after = _measure(_refactor_project, _refactor, mode)
        how = "an edits list per file" if mode == "edits" else "one apply_patch"
        table.add(
            f"5-file rename, {how}: requests, input tokens",
            f"{after[0]} requests, {after[1]:,} tokens ({1 - after[1] / before[1]:.0%} fewer)",
            f"{before[0]} requests, {before[1]:,} tokens: one edit_file per change",
            "one call for the edits",
            after[0] == 3,  # the reads, the edits, the answer
        )
    before = _measure(_task_project, _task, "before")
    after = _measure(_task_project, _task, "after")
    table.add(
        "8-step task: requests, input tokens",
        f"{after[0]} requests, {after[1]:,} tokens ({1 - after[1] / before[1]:.0%} fewer)",
        f"{before[0]} requests, {before[1]:,} tokens: one call per step",
        "fewer requests",
        after[0] < before[0],
    )


if __name__ == "__main__":
    t = Table()
    edit_bench(t)
    print(t.markdown())
