#!/usr/bin/env python3
"""Aggregate the results of many `agent` runs — one folder per job, as a CI matrix's artifacts
download — into one summary (docs/ci.md, docs/workflows/agent-fanout.yml).

    python3 aggregate_results.py RESULTS_DIR [--json FILE] [--markdown FILE] [--fail-on-error]

Each folder directly below RESULTS_DIR is a job (its name is the folder's). It holds the run's
`result.json` (the `result` line of `agent --output-format json`), else its `events.jsonl` (all
the lines; the last `result` line is taken), and may hold `exit_code`. A folder with neither is
a job that never finished (cancelled, timed out): it counts as failed, subtype "missing".

The JSON summary has the totals (jobs, succeeded, failed, by subtype, cost, tokens) and one row
per job; the Markdown is a table for $GITHUB_STEP_SUMMARY. Without --json/--markdown the JSON
goes to stdout. Exit 1 with --fail-on-error when a job failed or is missing, else 0; 2 when
RESULTS_DIR is not a folder. Standard library only: it runs on any runner's python3.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

PREVIEW = 200  # characters of a job's answer kept in its row


def read_result(job: Path) -> dict[str, Any] | None:
    """The `result` event of one job's folder, or None."""
    for name in ("result.json", "events.jsonl"):
        path = job / name
        if not path.is_file():
            continue
        found = None
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("type") == "result":
                found = event
        if found is not None:
            return found
    return None


def exit_code(job: Path) -> int | None:
    try:
        return int((job / "exit_code").read_text().strip())
    except (OSError, ValueError):
        return None


def row(job: Path) -> dict[str, Any]:
    """One job's line of the summary."""
    r = read_result(job)
    if r is None:
        return {
            "job": job.name,
            "subtype": "missing",
            "is_error": True,
            "exit_code": exit_code(job),
        }
    usage = r.get("usage") or {}
    out: dict[str, Any] = {
        "job": job.name,
        "subtype": r.get("subtype", "unknown"),
        "is_error": bool(r.get("is_error", True)),
        "exit_code": exit_code(job),
        "session_id": r.get("session_id", ""),
        "num_turns": r.get("num_turns", 0),
        "duration_ms": r.get("duration_ms", 0),
        "total_cost_usd": r.get("total_cost_usd"),
        "input_tokens": usage.get("input_tokens", 0),
        "output_tokens": usage.get("output_tokens", 0),
        "result": str(r.get("result", ""))[:PREVIEW],
    }
    for key in ("structured_output", "error", "errors", "budget"):
        if key in r:
            out[key] = r[key]
    return out


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The totals over every job, and the jobs."""
    by_subtype: dict[str, int] = {}
    for r in rows:
        by_subtype[r["subtype"]] = by_subtype.get(r["subtype"], 0) + 1
    costs = [r.get("total_cost_usd") for r in rows if r["subtype"] != "missing"]
    failed = sum(1 for r in rows if r["is_error"])
    return {
        "jobs": len(rows),
        "succeeded": len(rows) - failed,
        "failed": failed,
        "by_subtype": dict(sorted(by_subtype.items())),
        # null when a job's price was unknown: a partial sum would look like the whole
        "total_cost_usd": None if None in costs else round(sum(c or 0.0 for c in costs), 6),
        "input_tokens": sum(r.get("input_tokens", 0) for r in rows),
        "output_tokens": sum(r.get("output_tokens", 0) for r in rows),
        "results": rows,
    }


def _cell(text: str, limit: int = 80) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def markdown(summary: dict[str, Any]) -> str:
    """The summary as a Markdown table."""
    cost = summary["total_cost_usd"]
    lines = [
        f"### agent: {summary['succeeded']} of {summary['jobs']} jobs succeeded",
        "",
        f"cost: {'unknown' if cost is None else f'${cost:.4f}'} · tokens: "
        f"{summary['input_tokens']:,} in, {summary['output_tokens']:,} out",
        "",
        "| job | outcome | turns | cost (USD) | answer |",
        "|---|---|---|---|---|",
    ]
    for r in summary["results"]:
        answer = r.get("structured_output")
        said = json.dumps(answer, ensure_ascii=False) if answer is not None else r.get("result", "")
        if r["is_error"]:
            said = r.get("error") or said
        c = r.get("total_cost_usd")
        lines.append(
            f"| {_cell(r['job'], 40)} | {r['subtype']} | {r.get('num_turns', '')} | "
            f"{'' if c is None else f'{c:.4f}'} | {_cell(str(said))} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("results", type=Path, help="a folder with one folder per job")
    p.add_argument("--json", type=Path, metavar="FILE", help="write the JSON summary here")
    p.add_argument("--markdown", type=Path, metavar="FILE", help="write a Markdown table here")
    p.add_argument("--fail-on-error", action="store_true", help="exit 1 when a job failed")
    args = p.parse_args(argv)
    if not args.results.is_dir():
        print(f"aggregate_results: {args.results} is not a folder", file=sys.stderr)
        return 2
    jobs = sorted(d for d in args.results.iterdir() if d.is_dir())
    summary = summarize([row(j) for j in jobs])
    text = json.dumps(summary, ensure_ascii=False, indent=2) + "\n"
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(markdown(summary), encoding="utf-8")
    if not (args.json or args.markdown):
        sys.stdout.write(text)
    return 1 if args.fail_on_error and summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
