"""What read_file asks about first never reaches the model through an indexer: a repository's
`.env.local.js` and `config/.env.production.ts` (secret names), `.agent/sessions/` (the agent's
records) and `.agentignore`d code are left out of the first request's repository map, of
`outline` of a folder and of `symbols` — by paths.protected, the rule the gate itself asks by
(secret_hits.readable checks every path with it) — while a direct read still asks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text
from routed_fake import close_runs, make_run

from agent.base.record import ToolContext
from agent.code import index
from agent.permissions.decide import decide
from agent.permissions.paths import SECRET_NAMES, Workspace, protected
from agent.tools.code.tools import OUTLINE, SYMBOLS
from agent.tools.files.read import READ_FILE
from agent.tools.shared import secret_hits
from tests.code.trees import write

HIDDEN = ("leakSecret_abc", "leakProd_xyz", "leakSession_q", "leakIgnored_w", "leakKey_z")


@pytest.fixture(autouse=True)
async def _fresh(home: Path) -> AsyncIterator[None]:
    index._MEMO.clear()
    yield
    await close_runs()


def _project(root: Path) -> Path:
    return write(
        root,
        {
            "app.js": "function visibleApp() { return leakSecret_abc(); }\n",
            "lib/util.ts": "export function visibleUtil(): number { return leakProd_xyz(); }\n",
            ".env.local.js": "function leakSecret_abc() { return 'sk-live-123'; }\n",
            "config/.env.production.ts": "export function leakProd_xyz(): string { return 'k' }\n",
            ".agent/sessions/old.py": "def leakSession_q():\n    return 'pasted token'\n",
            "vendor/skip.py": "def leakIgnored_w():\n    pass\n",
            "keys/id_rsa.py": "def leakKey_z():\n    pass\n",
            ".agentignore": "vendor/\n",
        },
    )


async def test_the_first_request_maps_none_of_them(fake: FakeOpenAI, tmp_path: Path) -> None:
    proj = _project(tmp_path / "proj")
    fake.script(text("ok"))
    run, _ = make_run(fake, proj, settings={"repoMap": {"wait": 60}})
    await run.turn("what do " + " and ".join(HIDDEN) + " do? see .env.local.js")
    first = str(fake.requests[0]["messages"][1]["content"])
    block = first[first.index("<repo-map>") : first.index("</repo-map>")]
    assert "visibleApp" in block and "visibleUtil" in block
    assert not [w for w in (*HIDDEN, ".env", "sessions", "id_rsa") if w in block], block


async def test_outline_and_symbols_show_none_of_them(tmp_path: Path) -> None:
    proj = _project(tmp_path / "proj")
    ctx = ToolContext(cwd=proj)
    outlined = (await OUTLINE.run({"path": "."}, ctx)).output
    assert "visibleApp" in outlined and "visibleUtil" in outlined
    assert not [w for w in (*HIDDEN, ".env", "sessions", "id_rsa") if w in outlined], outlined
    folder = (await OUTLINE.run({"path": "config"}, ctx)).output
    assert folder == "config: no files with an outline"
    for name in HIDDEN:
        found = (await SYMBOLS.run({"name": name}, ctx)).output
        assert f"Definitions of {name} (0)" in found and ".env" not in found, found
    # the uses of a name in readable files are still found (the rule drops files, not names)
    uses = (await SYMBOLS.run({"name": "leakSecret_abc"}, ctx)).output
    assert "app.js:1:" in uses


def test_a_direct_read_of_one_is_asked_about(tmp_path: Path) -> None:
    proj = _project(tmp_path / "proj")
    for path in (".env.local.js", "config/.env.production.ts"):
        for tool in (OUTLINE, READ_FILE):
            assert decide({}, "default", tool, {"path": path}, proj).kind == "ask"


def test_readable_is_the_gate_rule_file_by_file(tmp_path: Path, home: Path) -> None:
    """The prefilter that spares most files the check never lets through one that
    paths.protected would have asked about, in a plain root, a hidden one and the home."""
    names = [p.replace("*", "x") for p in SECRET_NAMES] + [
        "main.py", "a/b.ts", ".github/ci.yml", ".env.example", "x/.git/config", "id.py",
        ".agent/settings.json", ".agent/audit.jsonl", ".agent/sessions/s.jsonl", "k.pem.bak",
        "_private.py", "credentials_test.go", "docs/.envrc",
    ]  # fmt: skip
    for root in (tmp_path / "plain", tmp_path / ".hidden" / "p", home, home / ".ssh"):
        ws = Workspace.make(tmp_path, home=home)
        kept, asked = secret_hits.readable(names, root, ws)
        assert sorted(kept + asked) == sorted(names)
        for rel in names:
            assert (rel in asked) == bool(protected(f"{root}/{rel}", ws)), (root, rel)


async def test_what_a_read_deny_rule_names_is_not_mapped_either(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    proj = _project(tmp_path / "proj")
    write(proj, {"private/vault.py": "def leakDenied_v():\n    pass\n"})
    fake.script(text("ok"))
    rules = {"permissions": {"neverAllow": ["read_file(private/**)"]}, "repoMap": {"wait": 60}}
    run, _ = make_run(fake, proj, settings=rules)
    await run.turn("what does leakDenied_v do?")
    first = str(fake.requests[0]["messages"][1]["content"])
    block = first[first.index("<repo-map>") : first.index("</repo-map>")]
    assert "visibleApp" in block and "leakDenied_v" not in block and "vault" not in block
    outlined = (await OUTLINE.run({"path": "."}, run.agent.ctx)).output
    assert "visibleApp" in outlined and "leakDenied_v" not in outlined
