"""`python -m agent replies`: replies read back from a database of either composer's shape."""

from __future__ import annotations

import json

from sqlalchemy import create_engine, text

from agent.evaluation.replies import collect, statements_of, summary
from agent.wording.questions import Question

QUESTION = Question(
    id="MTR-X01",
    family="motor",
    policy="KM-1",
    text="Can I get a rental car?",
    clauses=("MTR-BEN-03",),
    coverage="not_offered",
    part="test",
    facts=(("does not list alternative transport",),),
    wrong=("so your policy includes this benefit",),
)
UNANSWERABLE = Question("MTR-X02", "motor", "KM-1", "Who won the rugby?", (), "none", part="test2")
STATEMENT = "Your policy does not include “Hire car”: your schedule does not list alternative transport."
NOW = {"blocks": [{"statement": STATEMENT}]}
# The composer before issue 31: the schedule's sentence after the quotes, none when nothing decides.
BEFORE = {
    "clauses": [{"applicability": {"sentence": "Your schedule does not list it."}, "plan_statement": None}]
}


def _database(tmp_path, rows):
    url = f"sqlite:///{tmp_path / 'eval.db'}"
    engine = create_engine(url)
    with engine.begin() as db:
        db.execute(text("CREATE TABLE claims (claim_id TEXT, policy_number TEXT)"))
        db.execute(
            text("CREATE TABLE messages (id INTEGER, claim_id TEXT, role TEXT, body TEXT, turn_id TEXT)")
        )
        db.execute(
            text("CREATE TABLE turns (id TEXT, claim_id TEXT, outcome TEXT, cited TEXT, composed TEXT)")
        )
        for n, (claim, said, reply, outcome, composed) in enumerate(rows):
            db.execute(text("INSERT INTO claims VALUES (:c, 'KM-1')"), {"c": claim})
            db.execute(
                text("INSERT INTO messages VALUES (:i, :c, 'claimant', :b, NULL)"),
                {"i": 2 * n, "c": claim, "b": said},
            )
            db.execute(
                text("INSERT INTO messages VALUES (:i, :c, 'agent', :b, :t)"),
                {"i": 2 * n + 1, "c": claim, "b": reply, "t": f"t{n}"},
            )
            cited = ["MTR-BEN-03"] if outcome.startswith("answered") else []
            db.execute(
                text("INSERT INTO turns VALUES (:t, :c, :o, :cited, :composed)"),
                {
                    "t": f"t{n}",
                    "c": claim,
                    "o": outcome,
                    "cited": json.dumps(cited),
                    "composed": json.dumps(composed),
                },
            )
    engine.dispose()
    return url


def test_statements_are_read_from_either_composers_record():
    assert statements_of(NOW) == [STATEMENT]
    assert statements_of(BEFORE) == ["Your schedule does not list it."]
    assert statements_of({"clauses": [{"applicability": {"sentence": None}, "plan_statement": None}]}) == []
    assert statements_of(None) == []


def test_a_served_reply_is_judged_and_its_statement_found(tmp_path):
    reply = f"{STATEMENT}\n\nFrom “Hire car” (MTR-BEN-03, wording 2026.2):\n“We pay for a hire car.”"
    url = _database(
        tmp_path,
        [
            ("EV-aaaa-CLM-1", QUESTION.text, reply, "answered", NOW),
            ("EV-bbbb-CLM-1", UNANSWERABLE.text, "I've passed your question on.", "routed_to_staff", None),
            ("CLM-1", QUESTION.text, "a seeded claim's reply is not the evaluation's", "answered", NOW),
        ],
    )
    replies, missing = collect(url, [QUESTION, UNANSWERABLE])
    assert missing == []
    served, routed = replies
    assert (served.served, served.right, served.statement_at, served.lines) == (True, True, 0, 3)
    assert served.statement_end == len(STATEMENT)
    assert (routed.served, routed.statement_at) == (False, None)
    figures = summary(replies)
    assert figures["answered_right_share"] == 1.0 and figures["unanswerable_routed"] == 1
    assert figures["statement_within_200_share"] == 1.0


def test_a_wrong_string_and_a_late_statement_count_against_the_reply(tmp_path):
    late = "“quote” " * 40 + "Your schedule does not list it, so your policy includes this benefit"
    url = _database(tmp_path, [("EV-cccc-CLM-1", QUESTION.text, late, "answered", BEFORE)])
    (reply,), missing = collect(url, [QUESTION, UNANSWERABLE])
    assert missing == ["MTR-X02"]
    assert reply.right is False and reply.wrong_found == ["so your policy includes this benefit"]
    assert reply.statement_at is None  # the recorded sentence is not in the text as served
    figures = summary([reply])
    assert figures["served_wrong_share"] == 1.0 and figures["statement_within_200_share"] == 0.0
