"""The symlink race (issue 37 item 5), end to end: while the model keeps creating files below
`flip` with write_file, edit_file and apply_patch in a one-shot run, a background thread turns
`flip` into a file, a folder and a link to a folder in the (fake) home directory, over and
over. Whatever the interleaving, not one byte lands outside the workspace: the gate judges
each call on the path as it is then, and the write walks to that path without following a
link, refusing when it is not what was judged."""

from __future__ import annotations

import contextlib
import shutil
import threading
import time
from pathlib import Path

import pytest
from fake_builders import Turn
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent

FLIPS = 200  # at least this many, all while the agent runs
TURNS = 40
MARK = "written-by-the-model"


class Flipper(threading.Thread):
    """`path` as a file, then a folder, then a link to `target`, round and round."""

    def __init__(self, path: Path, target: Path) -> None:
        super().__init__(daemon=True)
        self.path, self.target = path, target
        self.flips = 0
        self.enough = threading.Event()  # FLIPS done
        self.stop = threading.Event()

    def _clear(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            if self.path.is_symlink() or self.path.is_file():
                self.path.unlink()
            else:
                shutil.rmtree(self.path, ignore_errors=True)

    def run(self) -> None:
        makers = (
            lambda: self.path.write_text("a file\n"),
            lambda: self.path.mkdir(),
            lambda: self.path.symlink_to(self.target, target_is_directory=True),
        )
        while not self.stop.is_set():
            for make in makers:
                self._clear()
                with contextlib.suppress(OSError):  # a write of the agent's got in between
                    make()
                self.flips += 1
                if self.flips >= FLIPS:
                    self.enough.set()
                time.sleep(0.0005)  # pacing, so that each state lasts across some calls


def _calls(i: int) -> Turn:
    patch = f"*** Begin Patch\n*** Add File: flip/p{i}.txt\n+{MARK}\n*** End Patch"
    return tool_calls(
        [
            ("write_file", {"path": f"flip/w{i}.txt", "content": MARK}),
            ("edit_file", {"path": f"flip/e{i}.txt", "old_string": "", "new_string": MARK}),
            ("apply_patch", {"patch": patch}),
            ("write_file", {"path": f"flip/d{i}/deeper/x.txt", "content": MARK}),
        ]
    )


@pytest.mark.timeout(240)  # a loaded machine: the agent's 160 calls, not a timing assertion
def test_flipping_a_folder_into_a_link_to_home_never_writes_there(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path, state_dir: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    home = Path(fake_env["HOME"])
    target = home / "target"
    target.mkdir()
    flipper = Flipper(project / "flip", target)

    def after_enough_flips(body: object) -> None:
        assert flipper.enough.wait(120), "the flipper did not get its flips in"

    fake.script(*(_calls(i) for i in range(TURNS)))
    fake.script(text("done", expect=after_enough_flips))
    # A model trained on patches gets apply_patch; acceptEdits writes inside unasked, and what
    # the gate sees outside (the link's side) is asked about, so denied without a terminal.
    env = {**fake_env, "AGENT_MODEL": "gpt-5-codex", "AGENT_STATE_DIR": str(state_dir)}
    flipper.start()
    try:
        r = run_agent(env, project, "--permission-mode", "acceptEdits", "make files", timeout=180)
    finally:
        flipper.stop.set()
        flipper.join()
    assert r.returncode == 0, r.stderr
    assert flipper.flips >= FLIPS
    assert list(target.iterdir()) == []
    found = [
        p
        for p in home.rglob("*")
        if p.is_file() and not p.is_symlink() and MARK.encode() in p.read_bytes()
    ]
    assert found == []
    tool_results = [m for m in fake.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(tool_results) == 4 * TURNS  # every call ran (or was refused) and said so
