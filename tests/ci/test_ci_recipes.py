"""The CI recipes of docs/ci.md: the workflow files pass actionlint, their `agent` commands parse
with the real flags, their shell steps run here against the scripted fake (the review posts its
verdict, the fan-out plans its matrix, runs a task and aggregates), and the aggregation script
reads the recorded results of tests/ci/recorded (made by tests/ci/record_results.py)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from string import Template
from typing import Any

import pytest
from fake_openai import FakeOpenAI, text

from agent.cli import parser
from agent.config.automation import read_schema
from agent.core.structured import check
from agent.ui.oneshot import result_line

ROOT = Path(__file__).parents[2]
WORKFLOWS = ROOT / "docs" / "workflows"
REVIEW, FANOUT = WORKFLOWS / "agent-review.yml", WORKFLOWS / "agent-fanout.yml"
SCHEMA = WORKFLOWS / "review-schema.json"
AGGREGATE = ROOT / "scripts" / "aggregate_results.py"
RECORDED = Path(__file__).parent / "recorded"
VERDICT = {"verdict": "approve", "summary": "Adds a greeting.", "findings": []}


def run_steps(workflow: Path) -> dict[str, str]:
    """The `run: |` scripts of a workflow by step name (a YAML subset: what these files use)."""
    steps: dict[str, str] = {}
    lines = workflow.read_text().splitlines()
    name = ""
    for i, line in enumerate(lines):
        named = re.match(r"\s*- (?:name|id): (.+)", line)
        if named:
            name = named.group(1)
        block = re.match(r"(\s*)run: \|$", line)
        if block:
            indent = len(block.group(1)) + 2
            body = []
            for more in lines[i + 1 :]:
                if more.strip() and len(more) - len(more.lstrip()) < indent:
                    break
                body.append(more[indent:])
            steps[name] = "\n".join(body) + "\n"
    return steps


def agent_command(script: str, values: dict[str, str]) -> list[str]:
    """The arguments of the `agent` command in a step's script, its variables filled in."""
    joined = script.replace("\\\n", " ")
    line = next(x for x in joined.splitlines() if re.search(r"(^|\| )agent ", x.strip()))
    words = shlex.split(Template(line.split("| ", 1)[-1].split(" > ")[0]).safe_substitute(values))
    assert words[0] == "agent"
    return words[1:]


def bash(script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """A step's script as GitHub Actions runs it (bash -e -o pipefail)."""
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        env=env, cwd=cwd, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def runner_env(fake_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The fake's environment plus what a runner sets; `gh` is a stub that records its call."""
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    gh = stubs / "gh"
    gh.write_text('#!/bin/sh\necho "$@" > "$RUNNER_TEMP/gh-args"\n')
    gh.chmod(0o755)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    path = os.pathsep.join([str(stubs), str(Path(sys.executable).parent), fake_env["PATH"]])
    return {
        **fake_env,
        "PATH": path,
        "RUNNER_TEMP": str(temp),
        "GITHUB_OUTPUT": str(temp / "github-output"),
        "GITHUB_STEP_SUMMARY": str(temp / "summary.md"),
        "GITHUB_REPOSITORY": "org/repo",
        "AGENT_STATE_DIR": str(temp / "agent-state"),
    }


def test_the_workflows_pass_actionlint() -> None:
    actionlint = shutil.which("actionlint") or shutil.which(
        "actionlint", path=str(Path(sys.executable).parent)
    )
    if actionlint is None:
        pytest.skip("actionlint is not installed (pip install -e '.[test]')")
    r = subprocess.run(
        [actionlint, "-no-color", str(REVIEW), str(FANOUT)], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_workflows_name_files_that_exist() -> None:
    for workflow in (REVIEW, FANOUT):
        for rel in re.findall(r"agent-src/([\w./-]+\.\w+)", workflow.read_text()):
            assert (ROOT / rel).is_file(), f"{workflow.name} names agent-src/{rel}"


def test_the_review_command_parses_and_reads_only(tmp_path: Path) -> None:
    words = agent_command(run_steps(REVIEW)["Review"], {"SCHEMA": str(SCHEMA)})
    args = parser().parse_args(words)
    assert args.print_mode and args.prompt[-1] == "-"  # the diff comes on stdin
    assert args.output_format == "json" and args.output_schema == str(SCHEMA)
    assert args.permission_mode == "dontAsk" and args.sandbox == "read-only"
    assert {"bash", "web_fetch", "web_search"} <= set(",".join(args.disallowed_tools).split(","))
    assert args.max_budget_usd > 0


def test_the_fanout_command_parses(tmp_path: Path) -> None:
    values = {"OUT": str(tmp_path), "MODE": "dontAsk", "BUDGET": "0.50", "prompt": "task"}
    args = parser().parse_args(agent_command(run_steps(FANOUT)["Run agent"], values))
    assert args.output_format == "json" and args.max_budget_usd == 0.5
    assert args.output_last_message == str(tmp_path / "answer.md")


def test_the_review_schema_is_valid_and_the_recorded_verdict_matches_it() -> None:
    schema = read_schema(str(SCHEMA))
    recorded = json.loads((RECORDED / "org--api" / "result.json").read_text())
    assert check(json.dumps(recorded["structured_output"]), schema).errors == []
    assert check(json.dumps(VERDICT), schema).errors == []


def _git(repo: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_the_review_steps_run_and_post_the_verdict(
    fake: FakeOpenAI, fake_env: dict, tmp_path: Path
) -> None:
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed (GitHub's runners have it)")
    work = tmp_path / "work"  # the job's workspace: repo/ and agent-src/ side by side
    repo = work / "repo"
    repo.mkdir(parents=True)
    (work / "agent-src").symlink_to(ROOT)
    _git(repo, "init", "-q")
    (repo / "app.py").write_text("print('hi')\n")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    base = _git(repo, "rev-parse", "HEAD")
    (repo / "app.py").write_text("print('hello')\n")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "change")
    fake.script(text(json.dumps(VERDICT)))
    env = runner_env(fake_env, tmp_path)
    out = Path(env["RUNNER_TEMP"]) / "review"
    env.update(BASE_SHA=base, HEAD_SHA=_git(repo, "rev-parse", "HEAD"), OUT=str(out))
    env.update(SCHEMA=str(SCHEMA), PR="7")
    steps = run_steps(REVIEW)
    r = bash(steps["Review"], env, repo)
    assert r.returncode == 0, r.stderr
    assert (out / "exit_code").read_text() == "0\n"
    assert "+print('hello')" in fake.requests[0]["messages"][1]["content"]  # the diff
    result = json.loads((out / "result.json").read_text())
    assert result["structured_output"] == VERDICT
    assert list((out / "session").glob("*.jsonl"))  # the session file is kept
    r = bash(steps["Post the verdict"], env, work)
    assert r.returncode == 0, r.stderr
    comment = (out / "comment.md").read_text()
    assert comment.startswith("### agent review: approve\n\nAdds a greeting.")
    assert (Path(env["RUNNER_TEMP"]) / "gh-args").read_text().startswith("pr comment 7 --repo")
    r = bash(steps["Fail when changes are requested or the review did not finish"], env, work)
    assert r.returncode == 0


def test_the_review_comment_says_why_a_review_did_not_finish() -> None:
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed (GitHub's runners have it)")
    jq = ["jq", "-r", "-f", str(WORKFLOWS / "review-comment.jq")]
    stopped = RECORDED / "org--cli" / "result.json"
    said = subprocess.run([*jq, str(stopped)], capture_output=True, text=True, check=True).stdout
    assert said.startswith("### agent review did not finish (error_max_budget_usd)")
    assert "cost $0.5044" in said


def test_the_fanout_plans_runs_a_task_and_aggregates(
    fake: FakeOpenAI, fake_env: dict, tmp_path: Path
) -> None:
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed (GitHub's runners have it)")
    steps = run_steps(FANOUT)
    env = runner_env(fake_env, tmp_path)
    work = tmp_path / "work"
    (work / "tasks").mkdir(parents=True)
    (work / "tasks" / "bump.md").write_text("Bump the version.\n")
    (work / "tasks" / "docs.md").write_text("Fix the docs.\n")
    _git(work, "init", "-q")  # a checkout
    r = bash(steps["plan"], {**env, "REPOSITORIES": "", "TASKS": "tasks/*.md"}, work)
    assert r.returncode == 0, r.stderr
    matrix = json.loads(Path(env["GITHUB_OUTPUT"]).read_text().split("=", 1)[1])
    assert matrix["include"][0] == {
        "name": "tasks-bump-md",
        "repository": "",
        "task": "tasks/bump.md",
    }
    Path(env["GITHUB_OUTPUT"]).unlink()
    r = bash(steps["plan"], {**env, "REPOSITORIES": '["org/api", "org/web"]', "TASKS": ""}, work)
    matrix = json.loads(Path(env["GITHUB_OUTPUT"]).read_text().split("=", 1)[1])
    assert [j["name"] for j in matrix["include"]] == ["org--api", "org--web"]
    fake.script(text("Bumped to 1.2.4."))
    out = tmp_path / "artifacts" / "agent-tasks-bump-md"  # as download-artifact lays it out
    job = {"PROMPT": "Be brief.", "TASK": "tasks/bump.md", "MODE": "dontAsk", "BUDGET": "0.5"}
    r = bash(steps["Run agent"], {**env, **job, "OUT": str(out)}, work)
    assert r.returncode == 0, r.stderr
    assert fake.requests[0]["messages"][1]["content"].endswith("Be brief.\n\nBump the version.")
    assert (out / "answer.md").read_text() == "Bumped to 1.2.4.\n"
    assert json.loads((out / "result.json").read_text())["subtype"] == "success"
    assert list((out / "session").glob("*.jsonl"))
    (work / "agent-src").symlink_to(ROOT)
    shutil.move(str(tmp_path / "artifacts"), str(work / "results"))
    r = bash(steps["Aggregate"], env, work)
    assert r.returncode == 0, r.stderr
    summary = json.loads((work / "summary.json").read_text())
    assert summary["jobs"] == summary["succeeded"] == 1
    assert "| agent-tasks-bump-md | success |" in Path(env["GITHUB_STEP_SUMMARY"]).read_text()


def aggregate(results: Path, *more: str) -> tuple[int, dict[str, Any], str]:
    out = results.parent / "summary"
    r = subprocess.run(
        [sys.executable, str(AGGREGATE), str(results), "--json", f"{out}.json",
         "--markdown", f"{out}.md", *more],
        capture_output=True, text=True,
    )  # fmt: skip
    assert not r.stderr, r.stderr
    return r.returncode, json.loads(Path(f"{out}.json").read_text()), Path(f"{out}.md").read_text()


def test_aggregating_the_recorded_results(tmp_path: Path) -> None:
    results = tmp_path / "results"
    shutil.copytree(RECORDED, results)
    code, summary, table = aggregate(results)
    assert code == 0
    assert summary["jobs"] == 5 and summary["succeeded"] == 2 and summary["failed"] == 3
    assert summary["by_subtype"] == {
        "error_max_budget_usd": 1,
        "error_output_schema": 1,
        "missing": 1,
        "success": 2,
    }
    rows = {r["job"]: r for r in summary["results"]}
    assert rows["org--api"]["structured_output"]["verdict"] == "request_changes"
    assert rows["org--web"]["errors"][0] == "$: 'summary' is a required property"
    assert rows["org--cli"]["exit_code"] == 54 and rows["org--cli"]["budget"]["spent_usd"] > 0.5
    assert rows["tasks-bump-md"]["result"].startswith("Bumped")  # read from events.jsonl
    assert rows["tasks-docs-md"] == {
        "job": "tasks-docs-md",
        "subtype": "missing",
        "is_error": True,
        "exit_code": None,
    }
    assert summary["total_cost_usd"] == pytest.approx(
        sum(r.get("total_cost_usd") or 0 for r in rows.values())
    )
    assert table.startswith("### agent: 2 of 5 jobs succeeded")
    assert (
        "| org--cli | error_max_budget_usd | 1 | 0.5044 | stopped before the next request" in table
    )
    assert aggregate(results, "--fail-on-error")[0] == 1
    for failed in ("org--web", "org--cli", "tasks-docs-md"):
        shutil.rmtree(results / failed)
    assert aggregate(results, "--fail-on-error")[0] == 0


def test_an_unknown_price_makes_the_total_unknown(tmp_path: Path) -> None:
    results = tmp_path / "results"
    shutil.copytree(RECORDED / "org--api", results / "a")
    unpriced = json.loads((RECORDED / "org--api" / "result.json").read_text())
    (results / "b").mkdir()
    (results / "b" / "result.json").write_text(json.dumps({**unpriced, "total_cost_usd": None}))
    _, summary, table = aggregate(results)
    assert summary["total_cost_usd"] is None
    assert "cost: unknown" in table
    r = subprocess.run(
        [sys.executable, str(AGGREGATE), str(tmp_path / "none")], capture_output=True
    )
    assert r.returncode == 2


def test_the_recordings_have_the_current_result_shape() -> None:
    promised = set(result_line("success", ""))
    for path in RECORDED.glob("*/result.json"):
        assert promised <= set(json.loads(path.read_text())), path
