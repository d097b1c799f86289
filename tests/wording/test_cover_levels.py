"""Claimants on the cheapest and the dearest cover level of an imported wording are told
different, right things about the benefits that differ between them (issue 39, must show).

The team's own Harbour Mutual motor wording (tests/knowledge/own_wordings.py: a summary table of
three cover levels) is rendered to PDF, imported with its drafted titles accepted, ingested and
approved through the API, and asked through the claim message API by a Comprehensive claimant
and a Third Party Only claimant. For every benefit of cover whose table row differs between the
two levels, a model quotes the benefit's clause: the holder is told their policy includes it and
why, the other that it does not and why. The claimant on the cheaper level is never told a
benefit of the dearer one applies, and the one benefit only the cheaper levels hold (uninsured
motorist protection) is stated the other way round. Every clause is set answering (as a release
check asks), so the runtime's statements are what each claimant reads."""

from __future__ import annotations

from datetime import date

import pytest

from agent.boundary.statements import kind_of
from agent.db.tables import make_engine, make_sessionmaker
from agent.evaluation.harness import Harness
from knowledge.clauses import ClauseLibrary, Directory
from knowledge.importing.pipeline import import_reviewed
from knowledge.ingest import ingest
from knowledge.manifest import Registry
from knowledge.store import ObjectStore
from tests.conftest import STAFF_TOKENS, make_live_app, stop_live, store_settings, use_model
from tests.knowledge import own_wordings as own
from tests.support import answer, first_sentence, scripted
from tests.wording.imported import seed_claimants

pytestmark = pytest.mark.slow  # a wording rendered, imported, approved and asked over HTTP

FAMILY, VERSION = "harbour_motor", "2026.1"
DEAREST, CHEAPEST = own.LEVELS[0], own.LEVELS[-1]


def claimant(plan: str, n: int) -> dict:
    code = "COMP" if plan == DEAREST else "TPO"
    return {
        "policy_number": f"HBM-TEST-{code}-{n:02d}",
        "family": FAMILY,
        "policyholder": f"Test Holder {code}",
        "plan": plan,
        "term_start": date(2026, 7, 1),
        "term_end": date(2027, 7, 1),
        "schedule": {"sections": [], "excess": {"standard": 500}},
        "claim": {
            "claim_id": f"CLM-HBM-{code}-{n:02d}",
            "incident_date": date(2026, 9, 1),
            "incident": "Car damaged in the driveway.",
            "claimant_token": f"test-claimant-hbm-{code.lower()}-{n:02d}",
        },
    }


@pytest.fixture(scope="module")
def harbour_store(s3_server, tmp_path_factory: pytest.TempPathFactory) -> ObjectStore:
    """The wording rendered, imported with its drafted titles accepted, ingested as a draft."""
    pdf = own.render_motor_pdf(tmp_path_factory.mktemp("harbour") / "harbour-motor.pdf")
    store = ObjectStore(store_settings(s3_server.endpoint))
    store.ensure_bucket()
    _, source = import_reviewed(pdf, FAMILY, VERSION, "MTR")
    ingest(store, source)
    return store


@pytest.fixture
def every_clause_answering(database_url, harbour_store):
    engine = make_engine(database_url)
    people = [claimant(DEAREST, 1), claimant(CHEAPEST, 1)]
    seeded = seed_claimants(make_sessionmaker(engine), people)
    engine.dispose()
    server = make_live_app(database_url, harbour_store)
    with server.client(STAFF_TOKENS["mere.staff"], timeout=120) as owner:
        check = owner.post(f"/staff/api/wording/{FAMILY}/{VERSION}/check", params={"questions": 0}).json()
        approved = owner.post(
            f"/staff/api/wording/{FAMILY}/{VERSION}/approve",
            json={"effective_from": "2026-01-01", "check_id": check["check_id"]},
        )
        assert approved.status_code == 200, approved.text
    server.app.state.services.runner.answer_all = True
    yield server, {p["plan"]: seeded[p["policy_number"]] for p in people}
    stop_live(server)


def differing(directory: Directory) -> list:
    """Clauses of cover or benefit held by exactly one of the two levels (options aside)."""
    return [
        e
        for e in directory.entries
        if kind_of(e.clause_id) in ("cover", "benefit")
        and e.plans
        and not e.added_by
        and (DEAREST in e.plans) != (CHEAPEST in e.plans)
    ]


def test_the_cheapest_and_the_dearest_level_are_told_different_right_things(
    every_clause_answering, harbour_store, database_url
) -> None:
    live, claims = every_clause_answering
    directory = ClauseLibrary(harbour_store).directory(
        Registry(harbour_store).read()[0].entry(FAMILY, VERSION)
    )
    benefits = differing(directory)
    assert len(benefits) >= 5, [e.title for e in benefits]
    assert any(CHEAPEST in e.plans for e in benefits)  # one the cheaper levels hold and the dearest lacks

    harness = Harness(live.url, database_url)
    try:
        replies: dict[tuple[str, str], dict] = {}
        for entry in benefits:
            cid = entry.clause_id
            for plan, claim in claims.items():
                use_model(
                    live, scripted([cid], answer("", (cid, first_sentence(harbour_store, directory, cid))))
                )
                replies[cid, plan] = harness.send(
                    harness.open_claim(claim), "Does my policy cover this?"
                ).reply
    finally:
        harness.close()

    for entry in benefits:
        said = {plan: replies[entry.clause_id, plan] for plan in claims}
        assert all(r["outcome"] == "answered" for r in said.values()), said
        holder = DEAREST if DEAREST in entry.plans else CHEAPEST
        other = CHEAPEST if holder == DEAREST else DEAREST
        assert said[holder]["reply"].startswith(
            f"Your policy includes “{entry.title}”: it is in the {holder} plan, which your schedule shows"
        ), said[holder]["reply"][:300]
        assert said[other]["reply"].startswith(
            f"Your policy does not include “{entry.title}”: it is only in the "
        ), said[other]["reply"][:300]
        assert f"your schedule shows the {other} plan" in said[other]["reply"]
        assert "Your policy includes" not in said[other]["reply"]


def test_the_cheaper_levels_model_sees_the_dearer_benefit_marked_not_theirs(harbour_store) -> None:
    from agent.boundary.selection import NOT_THEIRS
    from agent.claimant.directory import for_claimant
    from agent.policy.schedule import ScheduleView

    directory = ClauseLibrary(harbour_store).directory(
        Registry(harbour_store).read()[0].entry(FAMILY, VERSION)
    )
    lines = {
        plan: for_claimant(directory, ScheduleView(plan, [], {}, {}, {})).listing().splitlines()
        for plan in (DEAREST, CHEAPEST)
    }
    for entry in differing(directory):
        holder = DEAREST if DEAREST in entry.plans else CHEAPEST
        other = CHEAPEST if holder == DEAREST else DEAREST
        assert f"{entry.clause_id} {entry.title}" in lines[holder]
        assert f"{entry.clause_id} {entry.title}{NOT_THEIRS}" in lines[other]
