"""`python -m agent first-turns`: a first question on three development claims, through the
HTTP API, so a fresh development system has real conversations, turn records and staff
pages to look at. start-dev.sh runs it after the evaluation, which leaves no trace.

A claim whose conversation is not empty is left alone, so running it again adds nothing.
The questions are answered from their wordings by the offline model (no waiting item); a
reply that is not an answer is reported as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from agent.seed import development_claims

FIRST_QUESTIONS = (
    ("CLM-204518", "Can I get a rental car while mine is being repaired?"),
    ("CLM-310442", "Is storm damage to my roof covered?"),
    ("CLM-402118", "Are my things covered if my house is burgled?"),
)


@dataclass(frozen=True)
class FirstTurn:
    claim_id: str
    outcome: str  # the reply's outcome, or "skipped" when the conversation was not empty
    turn_id: str | None = None


def send_first_questions(base_url: str, *, timeout_s: float = 60.0) -> list[FirstTurn]:
    codes = development_claims()
    done: list[FirstTurn] = []
    with httpx.Client(base_url=base_url, timeout=timeout_s) as http:
        for claim_id, text in FIRST_QUESTIONS:
            auth = {"Authorization": f"Bearer {codes[claim_id]}"}
            conversation = http.get(f"/claims/{claim_id}/messages", headers=auth)
            conversation.raise_for_status()
            if conversation.json()["messages"]:
                done.append(FirstTurn(claim_id, "skipped"))
                continue
            reply = http.post(f"/claims/{claim_id}/messages", json={"text": text}, headers=auth)
            reply.raise_for_status()
            body = reply.json()
            done.append(FirstTurn(claim_id, body["outcome"], body.get("turn_id")))
    return done
