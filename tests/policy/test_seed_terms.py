"""The development seed goes through the intake code: a schedule file is one term, or
several with `[[terms]]`; seeding twice changes nothing."""

from __future__ import annotations

from datetime import date

from sqlalchemy import func, select

from agent.db.tables import IntakeAudit, PolicyTerm, make_engine, make_sessionmaker, upgrade
from agent.seed import seed_policies

RENEWED = """
policy_number = "KM-MTR-800001"
family = "motor"
policyholder = "Synthetic Person"

[[terms]]
term_start = 2025-08-01
term_end = 2026-08-01
plan = "Third Party"
schedule = { sections = [], excess = { standard = 750 } }

[[terms]]
term_start = 2026-08-01
term_end = 2027-08-01
plan = "Comprehensive"
schedule = { sections = ["alternative_transport"], excess = { standard = 500 } }

[claim]
claim_id = "CLM-800001"
incident_date = 2026-07-31
incident = "Scraped a gate."
claimant_token = "dev-claimant-800001"
"""


def test_a_schedule_file_with_terms_seeds_each_term_once(empty_sqlite_url, tmp_path) -> None:
    folder = tmp_path / "schedules"
    folder.mkdir()
    (folder / "KM-MTR-800001.toml").write_text(RENEWED, encoding="utf-8")
    engine = make_engine(empty_sqlite_url)
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    [seeded] = seed_policies(sessions, folder)
    seed_policies(sessions, folder)
    with sessions() as session:
        terms = session.scalars(select(PolicyTerm).order_by(PolicyTerm.term_start)).all()
        audits = session.scalar(select(func.count()).select_from(IntakeAudit))
    engine.dispose()
    assert [(t.term_start, t.plan, t.schedule["excess"]) for t in terms] == [
        (date(2025, 8, 1), "Third Party", {"standard": 750}),
        (date(2026, 8, 1), "Comprehensive", {"standard": 500}),
    ]
    assert seeded.plan == "Comprehensive" and audits == 2  # the policy and the claim, once each
