"""Scenarios: multi-turn conversations on the seeded claims, run through the claim message
API, each turn checked against what the scenario expects. A scenario passes only when every
one of its runs passes (pass^k; k = 5 by default).

File format: corpus/README.md, "Scenario format".
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.evaluation.decision_audit import DecisionAudit
from agent.evaluation.harness import EvalClaim, Exchange, Harness, StoreControl
from agent.evaluation.invariants import decision_served, invented_citations, runtime_added
from agent.settings import get_settings

# What a turn may do instead of saying something, and how the run reports it.
ACTIONS = {
    "stop_store": "stop the store",
    "start_store": "restart the store, re-ingest, re-apply releases",
}
NEEDS = ("store_control",)
_TURN_KEYS = {
    "say",
    "action",
    "claim",
    "outcome",
    "fetched",
    "not_fetched",
    "cited",
    "not_cited",
    "routed",
    "version",
    "contains",
    "contains_any",
    "absent",
}
_OUTCOMES = {"answered", "routed_to_staff", "unavailable", "no_schedule"}


@dataclass(frozen=True)
class TurnSpec:
    say: str | None = None
    action: str | None = None
    claim: str | None = None
    outcome: tuple[str, ...] = ()
    fetched: tuple[str, ...] = ()
    not_fetched: tuple[str, ...] = ()
    cited: tuple[str, ...] | None = None
    not_cited: tuple[str, ...] = ()
    routed: bool | None = None
    version: str | None = None
    contains: tuple[str, ...] = ()
    contains_any: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    claim: str | None
    turns: tuple[TurnSpec, ...]
    needs: tuple[str, ...] = ()
    path: str = ""


def scenarios_dir() -> Path:
    return get_settings().corpus_dir / "scenarios"


def load_scenarios(folder: Path | None = None) -> list[Scenario]:
    folder = folder or scenarios_dir()
    scenarios = [parse_scenario(p) for p in sorted(folder.glob("*.toml"))]
    ids = [s.id for s in scenarios]
    if len(ids) != len(set(ids)):
        raise ValueError(f"{folder}: duplicate scenario ids {sorted(i for i in ids if ids.count(i) > 1)}")
    return scenarios


def parse_scenario(path: Path) -> Scenario:
    data = tomllib.loads(path.read_text(encoding="utf-8"))

    def fail(message: str) -> ValueError:
        return ValueError(f"{path}: {message}")

    for key in ("id", "title", "turn"):
        if key not in data:
            raise fail(f"missing '{key}'")
    needs = tuple(data.get("needs", ()))
    if unknown := set(needs) - set(NEEDS):
        raise fail(f"unknown needs {sorted(unknown)}; known: {list(NEEDS)}")
    turns = []
    for n, raw in enumerate(data["turn"], 1):
        if unknown := set(raw) - _TURN_KEYS:
            raise fail(f"turn {n}: unknown keys {sorted(unknown)}")
        if ("say" in raw) == ("action" in raw):
            raise fail(f"turn {n}: give exactly one of 'say' or 'action'")
        if raw.get("action") not in (None, *ACTIONS):
            raise fail(f"turn {n}: action must be one of {list(ACTIONS)}")
        if "action" in raw and "store_control" not in needs:
            raise fail(f'turn {n}: a store action needs `needs = ["store_control"]`')
        outcome = raw.get("outcome", ())
        outcome = (outcome,) if isinstance(outcome, str) else tuple(outcome)
        if "say" in raw and not outcome:
            raise fail(f"turn {n}: 'outcome' is required for a message")
        if bad := set(outcome) - _OUTCOMES:
            raise fail(f"turn {n}: unknown outcome {sorted(bad)}")
        if "say" in raw and not (raw.get("claim") or data.get("claim")):
            raise fail(f"turn {n}: no claim (set 'claim' on the scenario or the turn)")
        cited = raw.get("cited")
        turns.append(
            TurnSpec(
                say=raw.get("say"),
                action=raw.get("action"),
                claim=raw.get("claim"),
                outcome=outcome,
                fetched=tuple(raw.get("fetched", ())),
                not_fetched=tuple(raw.get("not_fetched", ())),
                cited=None if cited is None else tuple(cited),
                not_cited=tuple(raw.get("not_cited", ())),
                routed=raw.get("routed"),
                version=raw.get("version"),
                contains=tuple(raw.get("contains", ())),
                contains_any=tuple(raw.get("contains_any", ())),
                absent=tuple(raw.get("absent", ())),
            )
        )
    return Scenario(data["id"], data["title"], data.get("claim"), tuple(turns), needs, str(path))


# Checking one turn ------------------------------------------------------------------------


def check_turn(spec: TurnSpec, exchange: Exchange, audit: DecisionAudit) -> list[str]:
    """Every way this reply differs from what the scenario expects ([] when it passes)."""
    if exchange.status_code != 200:
        return [f"HTTP {exchange.status_code}: {str(exchange.reply)[:200]}"]
    if not exchange.turn:
        return [f"reply {exchange.reply.get('turn_id')!r} has no turn record"]
    reply, turn = exchange.reply, exchange.turn
    text = reply.get("reply", "").lower()
    served = exchange.served_citations
    returned = set(turn.get("returned") or [])
    failures = []
    if spec.outcome and reply.get("outcome") not in spec.outcome:
        failures.append(f"outcome {reply.get('outcome')!r}, expected {' or '.join(spec.outcome)}")
    if missing := [c for c in spec.fetched if c not in returned]:
        failures.append(f"expected clause(s) {missing} not fetched; fetched {sorted(returned)}")
    if wrong := [c for c in spec.not_fetched if c in returned]:
        failures.append(f"clause(s) {wrong} fetched but must not be")
    # What the answer rests on: the clauses selected (an exclusion the runtime added after the
    # cover it limits is served too, and `not_cited` still holds for it).
    selected = sorted(set(served) - runtime_added(turn))
    if spec.cited is not None and selected != sorted(set(spec.cited)):
        failures.append(f"cited {selected}, expected {list(spec.cited)}")
    if wrong := [c for c in spec.not_cited if c in served]:
        failures.append(f"cited {wrong}, which must never be cited")
    if spec.routed is not None and bool(reply.get("waiting_list_reference")) != spec.routed:
        failures.append(
            f"waiting-list reference {reply.get('waiting_list_reference')!r}, expected "
            f"{'one' if spec.routed else 'none'}"
        )
    if spec.version is not None:
        served_version = (reply.get("release") or {}).get("version")
        if served_version != spec.version or turn.get("version") != spec.version:
            failures.append(
                f"version served {served_version!r}, turn record {turn.get('version')!r}, "
                f"expected {spec.version!r}"
            )
    for fragment in spec.contains:
        if fragment.lower() not in text:
            failures.append(f"reply lacks {fragment!r}")
    if spec.contains_any and not any(f.lower() in text for f in spec.contains_any):
        failures.append(f"reply has none of {list(spec.contains_any)}")
    for fragment in spec.absent:
        if fragment.lower() in text:
            failures.append(f"reply contains {fragment!r}")
    # Always, whatever the scenario says.
    if invented := invented_citations(exchange):
        failures.append(f"invented citation(s) {invented}")
    if decision := decision_served(exchange, audit):
        failures.append(f"claim decision served: {decision}")
    return failures


# Running ----------------------------------------------------------------------------------


@dataclass
class TurnOutcome:
    step: str
    failures: list[str]
    exchange: Exchange | None = None

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass
class RunResult:
    turns: list[TurnOutcome] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.turns)


@dataclass
class ScenarioResult:
    scenario: Scenario
    runs: list[RunResult] = field(default_factory=list)
    runs_wanted: int = 0
    not_runnable: str | None = None

    @property
    def status(self) -> str:
        if self.not_runnable:
            return "not_runnable"
        if len(self.runs) == self.runs_wanted and all(r.passed for r in self.runs):
            return "passed"
        return "failed"

    @property
    def runs_passed(self) -> int:
        return sum(r.passed for r in self.runs)

    @property
    def exchanges(self) -> list[Exchange]:
        return [t.exchange for r in self.runs for t in r.turns if t.exchange is not None]


Progress = Callable[[str], None]


def run_scenario(
    scenario: Scenario,
    harness: Harness,
    *,
    audit: DecisionAudit,
    runs: int = 5,
    store: StoreControl | None = None,
    progress: Progress | None = None,
) -> ScenarioResult:
    result = ScenarioResult(scenario, runs_wanted=runs)
    if "store_control" in scenario.needs and store is None:
        result.not_runnable = (
            "needs store control: pass --store-pid-file and --store-port (or a StoreControl in tests)"
        )
        return result
    for n in range(1, runs + 1):
        run = run_once(scenario, harness, store, audit)
        result.runs.append(run)
        if progress:
            progress(f"scenario {scenario.id} run {n}/{runs}: {'pass' if run.passed else 'FAIL'}")
    return result


def run_once(
    scenario: Scenario, harness: Harness, store: StoreControl | None, audit: DecisionAudit
) -> RunResult:
    claims: dict[str, EvalClaim] = {}
    run = RunResult()
    store_stopped = False
    try:
        for spec in scenario.turns:
            if spec.action in ACTIONS:
                assert store is not None
                if spec.action == "stop_store":
                    store.stop()
                else:
                    store.start()
                store_stopped = spec.action == "stop_store"
                run.turns.append(TurnOutcome(ACTIONS[spec.action], []))
                continue
            seeded = spec.claim or scenario.claim
            assert seeded is not None and spec.say is not None
            if seeded not in claims:
                claims[seeded] = harness.open_claim(seeded)
            exchange = harness.send(claims[seeded], spec.say)
            run.turns.append(TurnOutcome(spec.say, check_turn(spec, exchange, audit), exchange))
    except Exception as exc:  # a broken run is a failed run, reported with its cause
        run.turns.append(TurnOutcome("run", [f"{type(exc).__name__}: {exc}"]))
    finally:
        if store_stopped and store is not None:
            store.start()  # never leave the system without its store
    return run


def scenario_summary(result: ScenarioResult) -> dict[str, Any]:
    failures = []
    for n, run in enumerate(result.runs, 1):
        for turn in run.turns:
            for failure in turn.failures:
                failures.append({"run": n, "turn": turn.step, "failure": failure})
    return {
        "id": result.scenario.id,
        "title": result.scenario.title,
        "status": result.status,
        "runs": len(result.runs),
        "runs_wanted": result.runs_wanted,
        "runs_passed": result.runs_passed,
        "pass_k": result.status == "passed",
        "not_runnable": result.not_runnable,
        "failures": failures,
    }
