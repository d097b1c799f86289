"""`python -m agent bench` runs end to end on few turns and reports every figure; the
figures themselves are read from its output, never asserted as timings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent.evaluation.imported_prompts import WORDINGS as IMPORTED
from tests.support import wording

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def test_bench_reports_every_figure_and_target(tmp_path) -> None:
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent",
            "bench",
            "--turns",
            "10",
            "--throughput-turns",
            "10",
            "--token-questions",
            "60",
            "--json",
            str(out),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(out.read_text())
    assert figures["overhead"]["turns"] == 10
    assert set(figures["overhead"]["breakdown_p50_ms"]) == {
        "database",
        "object store",
        "other (agent framework, prompt, checks)",
    }
    for part in ("overhead", "floor", "agent_alone"):
        assert figures[part]["p50_ms"] > 0
    assert figures["ratio_to_floor"] == round(figures["overhead"]["p50_ms"] / figures["floor"]["p50_ms"], 2)
    assert all(r["errors"] == 0 for r in figures["throughput"].values())
    cpu = figures["throughput"]["16"]["cpu_ms_per_turn"]  # where the cores went, per process
    assert set(cpu) == {"server", "S3 stand-in"} and all(v > 0 for v in cpu.values())
    tokens = figures["tokens"]
    assert tokens["questions"] == 60 and tokens["lookup_turns"] > 30
    assert tokens["max"]["tool schemas"] > 0  # the whole prompt, tool schemas counted
    # A turn's largest request is at least its lookup, and holds the directory or the clauses.
    assert 0 < tokens["max"]["directory"] < tokens["max"]["lookup"] <= tokens["max"]["total"]
    assert 0 < tokens["max"]["clauses"] < tokens["max"]["total"]
    assert "Imported wordings: directory and whole lookup prompt" in done.stdout
    missed = [t for t in figures["targets"] if not t["met"]]
    assert all(t["why"] for t in missed)  # a missed target says why, in this run's figures
    for line in ("Runtime overhead per turn", "agent run alone", "Turns per second", "Targets"):
        assert line in done.stdout
    # Last, as it needs the real wordings (a bare clone does not run this part: tests/support.py).
    for w in IMPORTED:
        wording(w.file)
    # The imported wordings' directory and whole prompt, per plan (read from ../shared/wordings).
    imported = figures["imported_tokens"]
    assert {len(w["plans"]) for w in imported.values()} == {4, 3}  # NRMA's plans, AXA's cover levels
    for w in imported.values():
        for p in w["plans"].values():
            assert 0 < p["directory_tokens"] < p["lookup_prompt_max_tokens"] <= p["whole_prompt_max_tokens"]
            assert p["whole_prompt_max_tokens"] == p["largest_request"]["whole"]
            # Issue target: every request of the costliest turn, counted whole, within 2,000.
            assert p["whole_prompt_max_tokens"] <= 2000, p


def test_a_baseline_that_is_not_a_bench_report_is_refused_clearly(tmp_path) -> None:
    from agent.evaluation.bench.command import read_baseline

    report = tmp_path / "before.json"
    report.write_text(json.dumps({"ratio_to_floor": 2.0, "throughput": {"16": {"turns_per_s": 50.0}}}))
    assert read_baseline(str(report)) == {
        "source": str(report),
        "ratio_to_floor": 2.0,
        "turns_per_s_c16": 50.0,
    }
    for text in ("not json", json.dumps({"throughput": {}})):
        report.write_text(text)
        with pytest.raises(SystemExit, match="is not the --json output of a bench run"):
            read_baseline(str(report))
    with pytest.raises(SystemExit, match="is not the --json output"):
        read_baseline(str(tmp_path / "missing.json"))
