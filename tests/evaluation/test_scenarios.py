"""Every scenario in corpus/scenarios, through the real app over HTTP with the offline model,
against a real S3 server this test stops and restarts (the stopped-store scenario included)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.evaluation.harness import Harness, StoreControl
from agent.evaluation.localstore import LocalS3, start_local_s3
from agent.evaluation.scenarios import load_scenarios, run_scenario
from knowledge.store import ObjectStore
from tests.conftest import load_corpus, make_live_app, store_settings

SCENARIOS = load_scenarios()


@pytest.fixture(scope="module")
def own_store() -> Iterator[dict]:
    """A store of this module's own, so stopping it disturbs no other test."""
    server = start_local_s3()
    state = {"server": server, "settings": store_settings(server.endpoint)}
    load_corpus(ObjectStore(state["settings"]))
    yield state
    state["server"].stop()


@pytest.fixture(scope="module")
def system(own_store: dict, sqlite_template, tmp_path_factory) -> Iterator[Harness]:
    url = sqlite_template.fresh(tmp_path_factory.mktemp("scenarios"))
    live = make_live_app(url, ObjectStore(own_store["settings"]))
    harness = Harness(live.url, url)
    yield harness
    harness.close()
    live.stop()
    live.app.state.engine.dispose()


@pytest.fixture(scope="module")
def store_control(own_store: dict) -> StoreControl:
    port = own_store["server"].port

    def stop() -> None:
        own_store["server"].stop()

    def start() -> None:
        server: LocalS3 = start_local_s3(port)  # same port: the app's endpoint does not change
        own_store["server"] = server
        load_corpus(ObjectStore(own_store["settings"]))

    return StoreControl(stop, start, "test fixture")


def test_the_required_scenarios_are_all_there() -> None:
    ids = {s.id for s in SCENARIOS}
    assert {
        "rental-car-included",
        "rental-car-not-in-schedule",
        "no-clause-answers",
        "store-stopped",
        "version-boundary",
        "plan-limits",
        "draft-never-served",
        "talked-into-a-decision",
    } <= ids


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_scenario_passes_every_run(scenario, system: Harness, store_control: StoreControl, audit) -> None:
    # Twice, to check every run passes; once where each run stops the store and loads the
    # corpus again after it (the module's budget, tests/budget.py).
    runs = 1 if "store_control" in scenario.needs else 2
    result = run_scenario(scenario, system, audit=audit, runs=runs, store=store_control)
    failures = [f for run in result.runs for t in run.turns for f in t.failures]
    assert result.status == "passed", failures


def test_a_scenario_needing_store_control_is_not_runnable_without_it(system: Harness, audit) -> None:
    [stopped] = [s for s in SCENARIOS if s.id == "store-stopped"]
    result = run_scenario(stopped, system, audit=audit, runs=2, store=None)
    assert result.status == "not_runnable" and result.runs == []
