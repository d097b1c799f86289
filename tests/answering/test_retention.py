"""Claimants' words kept as evidence go after the retention setting and on request for a claim
(issue 40): the rows stay with their clauses and scores, the words go, and the memory rebuilds
without them."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta

from sqlalchemy import select

from agent.answering.evidence import verified_examples
from agent.db.tables import Evidence, utcnow
from tests.answering.support import db, drafting, handler, owner
from tests.conftest import REPO, TOKENS, use_model
from tests.support import answer, scripted

CLAIM = "CLM-204518"
RATE = "We pay up to NZD 60 a day for up to 21 days for each event."


def kept_answer(live, question: str) -> str:
    """A drafted question a handler sends as drafted, keeping the claimant's words: its reference."""
    use_model(live, scripted(["MTR-BEN-03"], answer("", ("MTR-BEN-03", RATE))))
    with live.client(TOKENS[CLAIM]) as claimant:
        reference = claimant.post(f"/claims/{CLAIM}/messages", json={"text": question}).json()[
            "waiting_list_reference"
        ]
    with handler(live) as aroha:
        draft = aroha.get(f"/staff/api/items/{reference}").json()["draft"]
        sent = aroha.post(
            f"/staff/api/items/{reference}/send-draft",
            json={"draft_id": draft["id"], "evidence": {"question": question}},
        )
        assert sent.status_code == 200, sent.text
    return reference


def staff_examples(database_url: str) -> list[str]:
    with db(database_url) as session:
        return [e.question for e in verified_examples(session, "motor", "2026.2") if e.source == "staff"]


def words(database_url: str) -> dict[str, str | None]:
    with db(database_url) as session:
        return {
            r.key: r.question for r in session.scalars(select(Evidence).where(Evidence.source == "staff"))
        }


def test_a_claims_kept_words_are_deleted_on_request(live, database_url) -> None:
    drafting(database_url)
    reference = kept_answer(live, "How many days of hire car do I get?")
    assert words(database_url) == {f"staff-{reference}": "How many days of hire car do I get?"}
    assert staff_examples(database_url) == ["How many days of hire car do I get?"]
    with handler(live) as aroha:
        assert aroha.delete(f"/staff/api/claims/{CLAIM}/evidence-words").status_code == 403
    with owner(live) as mere:
        gone = mere.delete(f"/staff/api/claims/{CLAIM}/evidence-words")
        assert gone.status_code == 200 and gone.json() == {"claim_id": CLAIM, "forgotten": 1}
        assert mere.delete("/staff/api/claims/CLM-000000/evidence-words").status_code == 404
    assert words(database_url) == {f"staff-{reference}": None}
    with db(database_url) as session:  # the row stays, its score with it
        row = session.scalar(select(Evidence).where(Evidence.key == f"staff-{reference}"))
        assert (row.clauses, row.outcome) == (["MTR-BEN-03"], "right")
    assert staff_examples(database_url) == []  # what the memory reads: it rebuilds without them


def test_words_older_than_the_retention_go_by_the_command(live, database_url) -> None:
    drafting(database_url)
    old, new = (
        kept_answer(live, "How long is the hire car for?"),
        kept_answer(live, "Hire car: how many days?"),
    )
    with db(database_url) as session:
        session.scalar(select(Evidence).where(Evidence.key == f"staff-{old}")).created_at = (
            utcnow() - timedelta(days=40)
        )
    env = {"CLAUSEDESK_DATABASE_URL": database_url, "PATH": "/usr/bin:/bin"}
    refused = subprocess.run(
        [sys.executable, "-m", "agent", "evidence", "forget"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 2 and "name --claim, or --older-than-days" in refused.stderr
    done = subprocess.run(
        [sys.executable, "-m", "agent", "evidence", "forget", "--older-than-days", "30"],
        cwd=REPO, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "1 rows forgotten" in done.stdout
    assert words(database_url) == {f"staff-{old}": None, f"staff-{new}": "Hire car: how many days?"}
