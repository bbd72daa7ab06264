"""apply_patch: the Codex patch format over several files, atomically; tolerant only of
trailing whitespace and CRLF; judged by permissions as an edit of every file it touches;
snapshotted for /rewind; offered to models trained on it or with tools.applyPatch."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent
from routed_fake import close_runs, make_run

from agent.base.record import ToolContext
from agent.config.providers import prefers_patches
from agent.permissions.decide import decide
from agent.tools.patch.parse import parse
from agent.tools.patch.tool import APPLY_PATCH, patch_files, preview
from agent.tools.shared.stamps import FileStamps

A = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
PATCH = """*** Begin Patch
*** Update File: a.py
@@ def g():
-    return 2
+    return 20
*** Update File: b.txt
*** Move to: sub/c.txt
 one
-two
+TWO
 three
*** Add File: new.py
+x = 1
*** Delete File: old.txt
*** End Patch"""


@pytest.fixture(autouse=True)
async def _closed() -> AsyncIterator[None]:
    yield
    await close_runs()


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def project(root: Path) -> Path:
    (root / "a.py").write_text(A)
    (root / "b.txt").write_bytes(b"one  \r\ntwo\r\nthree\r\n")  # CRLF, a trailing space
    (root / "old.txt").write_text("bye\n")
    return root


def ctx_read(root: Path, *names: str) -> ToolContext:
    ctx = ToolContext(cwd=root, files=FileStamps())
    for name in names:
        ctx.files.saw(root / name)  # type: ignore[union-attr]
    return ctx


async def test_one_patch_changes_many_files(tmp_path: Path) -> None:
    root = project(tmp_path)
    r = await APPLY_PATCH.run({"patch": PATCH}, ctx_read(root, "a.py", "b.txt", "old.txt"))
    assert not r.is_error, r.output
    assert r.output.splitlines()[0] == (
        "Applied the patch to 4 files: updated a.py, moved b.txt to sub/c.txt, added new.py, "
        "deleted old.txt"
    )
    assert tree(root) == {
        "a.py": A.replace("return 2", "return 20").encode(),
        "new.py": b"x = 1\n",
        "sub/c.txt": b"one  \r\nTWO\r\nthree\r\n",  # stays CRLF; the context's space forgiven
    }


@pytest.mark.parametrize(
    ("broken", "why"),
    [
        ("-two", "sub/c.txt" and "b.txt: hunk 1: its context and removed lines are not in"),
        ("*** Delete File: old.txt", "old.txt: no such file to delete"),
        ("*** Add File: new.py", "new.py exists: add creates new files"),
        ("@@ def g():", "a.py: hunk 1: its @@ line 'def h():' is not in the file"),
    ],
)
async def test_a_failing_part_leaves_the_tree_unchanged(
    tmp_path: Path, broken: str, why: str
) -> None:
    root = project(tmp_path)
    (root / "new.py").write_text("y\n") if "Add" in broken else None
    (root / "old.txt").unlink() if "Delete" in broken else None
    patch = PATCH.replace("-two", "-TWO? no") if broken == "-two" else PATCH
    patch = patch.replace("@@ def g():", "@@ def h():") if broken.startswith("@@") else patch
    before = tree(root)
    r = await APPLY_PATCH.run({"patch": patch}, ctx_read(root, *[p for p in before]))
    assert r.is_error and why in r.output, r.output
    assert tree(root) == before


async def test_context_must_match_line_for_line(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("a = 1\nb = 2\nc = 3\n")
    ctx = ctx_read(tmp_path, "m.py")
    fuzzy = "*** Begin Patch\n*** Update File: m.py\n a = 1\n-c = 3\n+c = 4\n*** End Patch"
    r = await APPLY_PATCH.run({"patch": fuzzy}, ctx)  # b = 2 skipped: no fuzzy match
    assert r.is_error and (tmp_path / "m.py").read_text() == "a = 1\nb = 2\nc = 3\n"
    spaced = "*** Begin Patch\n*** Update File: m.py\n a = 1   \n-b = 2\n+b = 5\n*** End Patch"
    assert not (await APPLY_PATCH.run({"patch": spaced}, ctx)).is_error
    assert (tmp_path / "m.py").read_text() == "a = 1\nb = 5\nc = 3\n"  # the file's own line kept


def test_the_format_is_checked() -> None:
    from agent.tools.shared.common import ToolError

    for bad, why in [
        ("*** Update File: a\n+x", "starts with '*** Begin Patch'"),
        ("*** Begin Patch\n+x\n*** End Patch", "comes before any"),
        ("*** Begin Patch\n*** Update File: a\n?x\n*** End Patch", "starts with neither"),
        ("*** Begin Patch\n*** Add File: a\nx\n*** End Patch", "added file's lines start"),
        ("*** Begin Patch\n*** Update File: a\n*** End Patch", "has no hunks"),
    ]:
        with pytest.raises(ToolError, match=re.escape(why)):
            parse(bad)
    assert patch_files(PATCH) == ("a.py", "b.txt", "sub/c.txt", "new.py", "old.txt")
    assert patch_files("not a patch") == ()


async def test_an_unread_file_is_not_patched(tmp_path: Path) -> None:
    root = project(tmp_path)
    before = tree(root)
    r = await APPLY_PATCH.run({"patch": PATCH}, ctx_read(root, "a.py", "old.txt"))
    assert r.is_error and "b.txt has not been read in this session" in r.output
    assert tree(root) == before


def test_permissions_judge_every_file(tmp_path: Path) -> None:
    args = {"patch": PATCH.replace("*** Delete File: old.txt", "*** Delete File: .env")}
    assert decide({}, "acceptEdits", APPLY_PATCH, {"patch": PATCH}, tmp_path).kind == "allow"
    assert decide({}, "acceptEdits", APPLY_PATCH, args, tmp_path).source == "protected"
    assert decide({}, "plan", APPLY_PATCH, {"patch": PATCH}, tmp_path).kind == "deny"
    rules = {"alwaysAllow": ["apply_patch(*.py)"]}
    assert decide(rules, "default", APPLY_PATCH, {"patch": PATCH}, tmp_path).kind == "ask"
    only_py = "*** Begin Patch\n*** Add File: n.py\n+x\n*** End Patch"
    assert decide(rules, "default", APPLY_PATCH, {"patch": only_py}, tmp_path).kind == "allow"
    outside = PATCH.replace("*** Add File: new.py", "*** Add File: ../elsewhere.py")
    assert decide({}, "acceptEdits", APPLY_PATCH, {"patch": outside}, tmp_path).kind == "ask"
    deny = {"neverAllow": ["apply_patch(old.txt)"]}
    assert decide(deny, "bypassPermissions", APPLY_PATCH, {"patch": PATCH}, tmp_path).kind == "deny"


def test_the_prompt_shows_the_combined_diff(tmp_path: Path) -> None:
    shown = preview({"patch": PATCH}, project(tmp_path))
    assert shown is not None and not shown.failure
    for name in ("a/a.py", "b/sub/c.txt", "b/new.py", "a/old.txt"):
        assert name in shown.diff
    bad = preview({"patch": PATCH.replace("-two", "-nope")}, tmp_path)
    assert bad is not None and bad.failure is not None and "the patch will fail" in bad.note


def test_offered_to_models_trained_on_it() -> None:
    assert prefers_patches("gpt-5-codex") and prefers_patches("openai/gpt-4.1")
    assert not prefers_patches("deepseek-chat") and not prefers_patches("qwen3")


async def test_in_a_session_snapshots_and_the_setting(fake: FakeOpenAI, tmp_path: Path) -> None:
    from agent.session.restoring import plan_restore, restore
    from agent.session.store import load

    root = project(tmp_path)
    before = tree(root)
    reads = [("read_file", {"path": p}) for p in ("a.py", "b.txt", "old.txt")]
    fake.script(tool_calls(reads), tool_calls([("apply_patch", {"patch": PATCH})]), text("done"))
    run, _ = make_run(fake, root, settings={"tools": {"applyPatch": True}})
    assert "apply_patch" in run.agent.tools
    await run.turn("restructure")
    assert (root / "sub/c.txt").exists() and not (root / "old.txt").exists()
    restore(run.store, plan_restore(load(run.store.path).records, 1), force=True)
    after = {k: v for k, v in tree(root).items() if not k.startswith(".agent")}
    assert after == {k: v for k, v in before.items() if not k.startswith(".agent")}
    plain, _ = make_run(fake, tmp_path / "plain")
    assert "apply_patch" not in plain.agent.tools  # the fake model is not trained on it


def test_a_protected_file_denies_the_whole_patch_without_a_terminal(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "proj").mkdir()
    root = project(tmp_path / "proj")
    (root / ".env").write_text("KEY=1\n")
    (root / ".agent").mkdir()
    (root / ".agent" / "settings.json").write_text(json.dumps({"tools": {"applyPatch": True}}))
    patch = "*** Begin Patch\n*** Add File: ok.py\n+x\n*** Delete File: .env\n*** End Patch"
    fake.script(tool_calls([("apply_patch", {"patch": patch})]), text("stopped"))
    r = run_agent(fake_env, root, "--output-format", "json", "--trust-project",
                  "--permission-mode", "acceptEdits", "clean up")  # fmt: skip
    result: dict[str, Any] = json.loads(r.stdout.splitlines()[-1])
    assert [d["tool_name"] for d in result["permission_denials"]] == ["apply_patch"]
    assert (root / ".env").exists() and not (root / "ok.py").exists()


def test_edit_tools_deny_rules_hold_for_a_patch(tmp_path: Path) -> None:
    from agent.base.events import Recorder
    from agent.base.record import Call
    from agent.permissions.gate import Gate
    from agent.tools.files.edits import EDIT_FILE, WRITE_FILE

    tools = {t.name: t for t in (EDIT_FILE, WRITE_FILE, APPLY_PATCH)}
    rules = {"neverAllow": ["Edit(secrets/**)"], "ask": ["write_file(docs/**)"]}
    gate = Gate(tools, rules, "acceptEdits", Recorder(), workspace=tmp_path)
    patch = "*** Begin Patch\n*** Add File: {}\n+x\n*** End Patch"
    denied, _ = gate.decide(Call("1", "apply_patch", {"patch": patch.format("secrets/k.txt")}))
    asked, _ = gate.decide(Call("2", "apply_patch", {"patch": patch.format("docs/a.md")}))
    fine, _ = gate.decide(Call("3", "apply_patch", {"patch": patch.format("src/a.py")}))
    assert (denied.kind, asked.kind, fine.kind) == ("deny", "ask", "allow")


async def test_an_update_writes_through_a_symlink(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("a\n")
    (tmp_path / "link.txt").symlink_to("real.txt")
    patch = "*** Begin Patch\n*** Update File: link.txt\n-a\n+A\n*** End Patch"
    r = await APPLY_PATCH.run({"patch": patch}, ctx_read(tmp_path, "link.txt"))
    assert not r.is_error, r.output
    assert (tmp_path / "link.txt").is_symlink() and (tmp_path / "real.txt").read_text() == "A\n"


async def test_anchors_indented_additions_at_the_end_and_a_blank_last_line(
    tmp_path: Path,
) -> None:
    (tmp_path / "c.py").write_text("class A:\n    def f(self):\n        return 1\n")
    ctx = ctx_read(tmp_path, "c.py")
    patch = (
        "*** Begin Patch\n*** Update File: c.py\n@@ class A:\n@@     def f(self):\n"
        "-        return 1\n+        return 2\n\n*** End Patch"
    )
    assert not (await APPLY_PATCH.run({"patch": patch}, ctx)).is_error
    more = "*** Begin Patch\n*** Update File: c.py\n+\n+X = 1\n*** End Patch"
    assert not (await APPLY_PATCH.run({"patch": more}, ctx)).is_error
    assert (tmp_path / "c.py").read_text() == (
        "class A:\n    def f(self):\n        return 2\n\nX = 1\n"
    )


async def test_a_failed_step_is_rolled_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    root = project(tmp_path)
    before = tree(root)
    real_unlink = os.unlink

    def refuse(path: Any, *a: Any, **k: Any) -> None:
        if str(path).endswith("old.txt"):
            raise PermissionError(13, "Permission denied", str(path))
        real_unlink(path, *a, **k)

    monkeypatch.setattr(os, "unlink", refuse)
    r = await APPLY_PATCH.run({"patch": PATCH}, ctx_read(root, "a.py", "b.txt", "old.txt"))
    monkeypatch.undo()
    assert r.is_error and "Permission denied" in r.output
    assert tree(root) == before  # the update, the move and the add all undone


async def test_a_read_after_a_patch_is_sent_whole(fake: FakeOpenAI, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(A)
    patch = "*** Begin Patch\n*** Update File: a.py\n-    return 1\n+    return 10\n*** End Patch"
    fake.script(
        tool_calls([("read_file", {"path": "a.py"})]),
        tool_calls([("apply_patch", {"patch": patch})]),
        tool_calls([("read_file", {"path": "a.py"})]),
        text("done"),
    )
    run, _ = make_run(fake, tmp_path, settings={"tools": {"applyPatch": True}})
    await run.turn("patch and look")
    last = [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "tool"][-1]
    assert "return 10" in last and "unchanged since" not in last
