"""`python -m agent evaluate`: scenarios and the inventory through a running system's HTTP API."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import httpx
from sqlalchemy.exc import SQLAlchemyError

from agent.evaluation.attacks.attack import Attack
from agent.evaluation.attacks.catalogue import catalogue
from agent.evaluation.attacks.playing import run_adversarial_suite
from agent.evaluation.decision_audit import DecisionAudit, PhraseFileError
from agent.evaluation.harness import Harness, StoreControl, answering_for_the_run, pid_file_control
from agent.evaluation.inventory import Asked, run_inventory
from agent.evaluation.quotes import QuoteProblem, audit_quotes
from agent.evaluation.report.build import build_report
from agent.evaluation.report.page import write_report
from agent.evaluation.report.text import render_text
from agent.evaluation.report.verdict import exit_status
from agent.evaluation.scenarios import Scenario, ScenarioResult, load_scenarios, run_scenario
from agent.models.offline import MODEL_NAME
from agent.settings import get_settings
from agent.wording.questions import PARTS, Question, load_questions, parts_in
from knowledge.errors import KnowledgeError
from knowledge.store import ObjectStore


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


def runs_for(model_name: str | None, runs: int | None) -> tuple[int, str]:
    """Runs per scenario, and why: the offline model is deterministic, so one run says all
    there is to say; a sampling model gets pass^k over k runs (5 unless told)."""
    if runs is not None:
        return runs, f"each scenario runs {runs} time(s); it passes only if every run passes (pass^{runs})"
    if model_name and MODEL_NAME in model_name:
        return (
            1,
            "offline model: deterministic, so each scenario runs once (pass^k is for models that sample)",
        )
    return 5, "each scenario runs 5 times; it passes only if every run passes (pass^5)"


@contextmanager
def served_with(model: str, api_base: str | None, *, timeout_s: float = 90.0) -> Iterator[str]:
    """`python -m agent serve` on a free port with this model (database and store from the
    environment, as start-dev.sh sets them); yields its base URL, stops it afterwards."""
    from agent.evaluation.localstore import free_port

    port = free_port()
    env = dict(os.environ, CLAUSEDESK_MODEL=model)
    if api_base:
        env["CLAUSEDESK_MODEL_API_BASE"] = api_base
    process = subprocess.Popen(
        [sys.executable, "-m", "agent", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the API with model {model} exited with status {process.returncode}")
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the API with model {model} was not healthy within {timeout_s:.0f} s")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def model_matches(wanted: str, served: str | None) -> bool:
    """Whether the system's /health model is the one asked for ('offline' is the built-in model)."""
    if not served:
        return False
    if wanted == "offline":
        return MODEL_NAME in served
    return served == wanted or served.endswith(wanted) or wanted.endswith(served)


@dataclass(frozen=True)
class Options:
    """What `evaluate` was asked for, but the system's address (see there), with its defaults."""

    database_url: str
    decision_phrases: Path | None = None  # None: the settings' file
    model: str | None = None
    api_base: str | None = None
    runs: int | None = None
    only: str | None = None
    report_dir: Path = Path("reports")
    store: StoreControl | None = None
    concurrency: int = 4
    knowledge_store: ObjectStore | None = None
    questions_dir: Path | None = None
    scenarios_dir: Path | None = None
    harness_factory: Callable[[str, str], Harness] = Harness
    keep_claims: bool = False
    attacks: list[Attack] | None = None
    answer_all: bool = False


def evaluate(base_url: str | None, asked: Options) -> int:
    """Run scenarios and inventory through the HTTP API; 0 only when every check passes, 1 when
    a guarantee is broken, 3 when every guarantee held but a target was missed
    (report.verdict.exit_status).

    With `model` and no `base_url`, the API is started here with that model (and
    `api_base`); with both, the running system must report that model on /health. The
    evaluation claims are deleted afterwards (their messages, turns and waiting items with
    them) unless `keep_claims`. With `answer_all`, every approved wording answers for the run
    (what the model would serve, not drafts; agent.evaluation.harness.answering_for_the_run).
    `attacks` replaces the adversarial catalogue (the tests play a
    few; the whole catalogue is played by tests/boundary/test_adversarial.py).
    """
    phrases = asked.decision_phrases or get_settings().decision_phrases
    asked_for = dataclasses.replace(asked, decision_phrases=phrases)
    try:
        audit = DecisionAudit.from_file(phrases)
    except PhraseFileError as exc:
        print(f"evaluate: {exc}", file=sys.stderr)
        return 2
    if base_url is not None:
        return evaluate_at(base_url, asked_for, audit)
    if asked_for.model is None:
        print("evaluate: give --base-url (a running system) or --model (start one)", file=sys.stderr)
        return 2
    try:
        with served_with(asked_for.model, asked_for.api_base) as url:
            return evaluate_at(url, asked_for, audit)
    except RuntimeError as exc:
        print(f"evaluate: {exc}", file=sys.stderr)
        return 2


def evaluate_at(base_url: str, options: Options, audit: DecisionAudit) -> int:
    """The evaluation of the system at `base_url`: everything asked through its API, the
    evaluation claims forgotten, the quotes re-read, the report printed and written."""
    harness = options.harness_factory(base_url, options.database_url)
    try:
        served_model, refused = served_model_of(harness, base_url, options.model)
        if refused:
            print(f"evaluate: {refused}", file=sys.stderr)
            return 2
        runs, runs_note = runs_for(served_model, options.runs)
        scenarios, questions, attacks = what_to_ask(options)
        total = sum(1 if "store_control" in s.needs and options.store is None else runs for s in scenarios)
        progress = Progress(total + len(questions) + len(attacks))
        control = (
            options.store.description if options.store else "none (scenarios needing it are not runnable)"
        )
        print(
            f"evaluating {base_url} (model {served_model}): {len(scenarios)} scenarios × {runs} runs, "
            f"{len(questions)} inventory questions; store control: {control}",
            file=sys.stderr,
        )
        results = run_scenarios(scenarios, harness, audit, runs, options, progress)
        # The inventory measures what the modes serve, unless `answer_all` asks what the model
        # would serve everywhere.
        modes = (
            answering_for_the_run(harness.sessions, options.knowledge_store)
            if options.answer_all
            else nullcontext()
        )
        with modes:
            asked = run_inventory(harness, questions, concurrency=options.concurrency, progress=progress)
        # The hostile model needs an app of its own: one in this process, on a temporary
        # SQLite file, with the store the evaluation uses.
        tally = (
            run_adversarial_suite(options.knowledge_store, attacks, progress=progress) if attacks else None
        )
        progress.finish()
    finally:
        # The exchanges hold what the report needs; the system keeps no trace of the run.
        if not options.keep_claims:
            forget_claims(harness)
        harness.close()
    report = build_report(
        asked,
        results,
        audit=audit,
        quotes=recheck_quotes(asked, results, options.knowledge_store),
        meta={
            "base_url": base_url,
            "model": served_model,
            "api_base": options.api_base,
            "runs": runs,
            "runs_note": runs_note,
            "only": options.only or "all",
            "decision_phrases": str(options.decision_phrases),
            "answer_all": options.answer_all,
        },
        adversarial=tally.as_dict() if tally else None,
    )
    print(render_text(report))
    json_path, html_path = write_report(report, options.report_dir)
    print(f"\nreport: {json_path}  {html_path}")
    return exit_status(report)


def served_model_of(harness: Harness, base_url: str, model: str | None) -> tuple[str | None, str | None]:
    """The model the system reports on /health, and why it cannot be evaluated (None when it can)."""
    try:
        health = harness.health()
    except httpx.HTTPError as exc:
        return None, f"cannot reach {base_url}: {exc}"
    served = health.get("model")
    if model is not None and not model_matches(model, served):
        return served, f"the system at {base_url} runs model {served!r}, not {model!r}"
    return served, None


def what_to_ask(options: Options) -> tuple[list[Scenario], list[Question], list[Attack]]:
    """The scenarios, inventory questions and attacks of this run (`only` one part, or all)."""
    scenarios = load_scenarios(options.scenarios_dir) if options.only in (None, "scenarios") else []
    folder, asked_parts = parts_in(options.questions_dir) if options.questions_dir else (None, PARTS)
    questions = load_questions(folder, asked_parts) if options.only in (None, "inventory") else []
    if options.only not in (None, "adversarial"):
        attacks = []
    elif options.attacks is None:
        attacks = catalogue()
    else:
        attacks = options.attacks
    return scenarios, questions, attacks


def run_scenarios(
    scenarios: list[Scenario],
    harness: Harness,
    audit: DecisionAudit,
    runs: int,
    options: Options,
    progress: Progress,
) -> list[ScenarioResult]:
    """Every scenario, `runs` times. The scenarios check what the runtime guarantees of a served
    answer, so every approved wording answers while they run."""
    results: list[ScenarioResult] = []
    with answering_for_the_run(harness.sessions, options.knowledge_store) if scenarios else nullcontext():
        for scenario in scenarios:
            result = run_scenario(
                scenario, harness, audit=audit, runs=runs, store=options.store, progress=progress
            )
            if result.not_runnable:
                progress(f"scenario {scenario.id}: NOT RUNNABLE ({result.not_runnable})")
            results.append(result)
    return results


def forget_claims(harness: Harness) -> None:
    """The evaluation claims deleted, with their messages, turns and waiting items."""
    try:
        harness.forget()
    except SQLAlchemyError as exc:  # a broken database fails the run below, not the cleanup
        print(
            f"evaluate: the evaluation claims could not be deleted: {type(exc).__name__}",
            file=sys.stderr,
        )


def recheck_quotes(
    asked: list[Asked], results: list[ScenarioResult], knowledge_store: ObjectStore | None
) -> tuple[int, list[QuoteProblem]]:
    """Every served quote re-read from the clause in the store, by its object version."""
    exchanges = [e for a in asked for e in (*a.earlier, a.exchange)]
    exchanges += [e for r in results for e in r.exchanges]
    try:
        return audit_quotes(exchanges, knowledge_store or ObjectStore())
    except KnowledgeError as exc:
        return (0, [QuoteProblem("", "", "", "", f"cannot read the store to re-check quotes: {exc}")])
