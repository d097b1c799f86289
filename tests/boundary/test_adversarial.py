"""The adversarial suite through the real app over HTTP: a hostile, insisting model plays
every attack in agent.evaluation.attacks, and nothing false is ever served.

Every attack runs on SQLite against one live server for the module; a few representative
ones run on PostgreSQL too.
"""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from agent.boundary.plaintext import fold
from agent.db.tables import Message, Turn
from agent.evaluation.attacks import ISSUE_DECISIONS, catalogue, play, run_attacks
from agent.evaluation.harness import Harness
from tests.conftest import make_live_app

ATTACKS = {a.id: a for a in catalogue()}
MUST_SHOW = [
    *(f"issue-{name}" for name, _ in ISSUE_DECISIONS),
    "fabricated-clause-id",
    "fabricated-quote-in-text",
    "fabricated-amount",
    "fabricated-link",
    "unlisted-benefit-sanctioned-phrase",
]
ON_POSTGRES = ["issue-its-covered-curly", "fabricated-quote-in-text", "unlisted-benefit-sanctioned-phrase"]


@pytest.fixture(scope="module")
def sqlite_live(tmp_path_factory, corpus_store):
    url = f"sqlite:///{tmp_path_factory.mktemp('attacks') / 'clausedesk.db'}"
    server = make_live_app(url, corpus_store)
    harness = Harness(server.url, url)
    yield server, harness
    harness.close()
    server.stop()
    server.app.state.engine.dispose()


def test_the_catalogue_covers_every_category_with_at_least_sixty_attacks() -> None:
    categories = {a.category for a in ATTACKS.values()}
    assert len(ATTACKS) >= 60
    assert categories >= {
        "issue decision",
        "corpus decision",
        "fabrication",
        "unlisted benefit",
        "corrective retry",
        "prompt injection",
        "correct answer plus an invented sentence",
        "multi-turn",
        "held",
    }
    assert set(MUST_SHOW) <= ATTACKS.keys()
    assert all(ATTACKS[a].insists for a in MUST_SHOW)


def assert_nothing_false_served(server, harness: Harness, attack_id: str) -> None:
    attack = ATTACKS[attack_id]
    outcome = play(attack, server.app, harness)
    assert outcome.blocked, f"{attack_id}: {outcome.why}; served {outcome.reply!r}"
    # The served text, and everything stored for the claimant, carry none of the attack.
    for forbidden in attack.forbidden:
        assert fold(forbidden) not in fold(outcome.reply)
    assert set(outcome.fired) & attack.rules
    if attack.insists:
        assert outcome.outcome == "routed_to_staff" and outcome.route_reason == "failed_check"


@pytest.mark.parametrize("attack_id", list(ATTACKS))
def test_attack_is_blocked(sqlite_live, attack_id: str) -> None:
    server, harness = sqlite_live
    assert_nothing_false_served(server, harness, attack_id)


@pytest.mark.parametrize("attack_id", MUST_SHOW)
def test_an_insisting_model_is_refused_on_both_attempts_and_the_record_names_the_rule(
    sqlite_live, attack_id: str
) -> None:
    server, harness = sqlite_live
    attack = ATTACKS[attack_id]
    outcome = play(attack, server.app, harness)
    engine = create_engine(harness.engine.url)
    with Session(engine) as session:
        turn = session.scalars(
            select(Turn)
            .join(Message, Message.turn_id == Turn.id)
            .where(Message.body == outcome.reply)
            .order_by(Turn.started_at.desc())
        ).first()
        assert turn is not None and turn.route_reason == "failed_check"
        by_attempt = {
            n: {c["name"] for c in turn.checks if c["attempt"] == n and not c["passed"]} for n in (1, 2)
        }
        stored = session.scalars(select(Message.body).where(Message.claim_id == turn.claim_id)).all()
    engine.dispose()
    assert by_attempt[1] & attack.rules and by_attempt[2] & attack.rules
    assert not any(
        fold(f) in fold(body)
        for body in stored
        for f in attack.forbidden
        if body != attack.turns[-1].question
    )


@pytest.mark.parametrize("attack_id", ON_POSTGRES)
def test_attack_is_blocked_on_postgresql(postgres_url, corpus_store, attack_id: str) -> None:
    from tests.conftest import _empty_tables

    _empty_tables(postgres_url)
    server = make_live_app(postgres_url, corpus_store)
    harness = Harness(server.url, postgres_url)
    try:
        assert_nothing_false_served(server, harness, attack_id)
    finally:
        harness.close()
        server.stop()
        server.app.state.engine.dispose()


def test_run_attacks_tallies_what_the_evaluation_reports(sqlite_live) -> None:
    server, _ = sqlite_live
    chosen = [ATTACKS["issue-claim-approved"], ATTACKS["retry-gives-in-after-a-decision"]]
    tally = run_attacks(server.app, server.url, chosen)
    assert (tally.attacks, tally.blocked, tally.served) == (2, 2, 0)
    assert tally.as_dict()["by_category"]["corrective retry"] == {"attacks": 1, "blocked": 1}


def test_the_evaluation_runs_the_suite_in_its_own_app_and_fails_on_a_served_attack(corpus_store) -> None:
    from agent.evaluation.attacks import run_adversarial_suite
    from agent.evaluation.decision_audit import DecisionAudit
    from agent.evaluation.report import build_report, passed, render_html, render_text
    from tests.boundary.test_decision_corpus import PHRASES

    chosen = [ATTACKS["fabricated-link"], ATTACKS["unlisted-benefit-sanctioned-phrase"]]
    tally = run_adversarial_suite(corpus_store, chosen)
    assert (tally.attacks, tally.blocked, tally.served) == (2, 2, 0)
    audit = DecisionAudit.from_file(PHRASES)
    report = build_report([], [], audit=audit, adversarial=tally.as_dict())
    assert "Adversarial suite: 2 attacks, 2 blocked, 0 served" in render_text(report)
    assert "Adversarial suite: 2 attacks, 2 blocked, 0 served" in render_html(report)
    assert passed(report)
    served = dict(tally.as_dict(), served=1, blocked=1)
    assert not passed(build_report([], [], audit=audit, adversarial=served))
