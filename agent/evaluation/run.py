"""`python -m agent evaluate`: scenarios and the inventory through a running system's HTTP API."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from agent.evaluation.attacks import catalogue, run_adversarial_suite
from agent.evaluation.harness import Harness, StoreControl, pid_file_control
from agent.evaluation.inventory import load_questions, run_inventory
from agent.evaluation.report import build_report, passed, render_text, write_report
from agent.evaluation.scenarios import ScenarioResult, load_scenarios, run_scenario


class Progress:
    """One line per item on stderr; a live counter instead when stderr is a terminal."""

    def __init__(self, total: int):
        self.total, self.done = total, 0
        self.live = sys.stderr.isatty()
        self.started = time.monotonic()

    def __call__(self, line: str) -> None:
        self.done += 1
        text = f"[{self.done:>4}/{self.total}] {time.monotonic() - self.started:6.1f}s {line}"
        if self.live:
            sys.stderr.write("\r\033[K" + text[:150])
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def finish(self) -> None:
        if self.live:
            sys.stderr.write("\n")


def store_control(pid_file: str | None, port: int | None) -> StoreControl | None:
    """Told explicitly, or by start-dev.sh's environment (CLAUSEDESK_S3_PORT and .data/store.pid)."""
    pid_file = pid_file or os.environ.get("CLAUSEDESK_STORE_PID_FILE")
    if pid_file is None and os.environ.get("CLAUSEDESK_S3_PORT") and Path(".data/store.pid").exists():
        pid_file = ".data/store.pid"
    port = port or (int(os.environ["CLAUSEDESK_S3_PORT"]) if os.environ.get("CLAUSEDESK_S3_PORT") else None)
    if not pid_file or not port or not Path(pid_file).exists():
        return None
    return pid_file_control(Path(pid_file), port)


def evaluate(
    base_url: str,
    database_url: str,
    *,
    runs: int = 5,
    only: str | None = None,
    report_dir: Path = Path("reports"),
    store: StoreControl | None = None,
    concurrency: int = 4,
) -> int:
    harness = Harness(base_url, database_url)
    try:
        health = harness.health()
        scenarios = load_scenarios() if only in (None, "scenarios") else []
        questions = load_questions() if only in (None, "inventory") else []
        attacks = catalogue() if only in (None, "adversarial") else []
        total = sum(1 if "store_control" in s.needs and store is None else runs for s in scenarios)
        progress = Progress(total + len(questions) + len(attacks))
        print(
            f"evaluating {base_url} (model {health.get('model')}): {len(scenarios)} scenarios × {runs} runs, "
            f"{len(questions)} inventory questions; store control: "
            f"{store.description if store else 'none (scenarios needing it are not runnable)'}",
            file=sys.stderr,
        )
        results: list[ScenarioResult] = []
        for scenario in scenarios:
            result = run_scenario(scenario, harness, runs=runs, store=store, progress=progress)
            if result.not_runnable:
                progress(f"scenario {scenario.id}: NOT RUNNABLE ({result.not_runnable})")
            results.append(result)
        asked = run_inventory(harness, questions, concurrency=concurrency, progress=progress)
        # The hostile model needs an app of its own: one in this process, on a temporary
        # SQLite file, with the store the settings name.
        tally = run_adversarial_suite(progress=progress) if attacks else None
        progress.finish()
    finally:
        harness.close()
    report = build_report(
        asked,
        results,
        meta={"base_url": base_url, "model": health.get("model"), "runs": runs, "only": only or "all"},
        adversarial=tally.as_dict() if tally else None,
    )
    print(render_text(report))
    json_path, html_path = write_report(report, report_dir)
    print(f"\nreport: {json_path}  {html_path}")
    return 0 if passed(report) else 1
