"""The learning curve's scripted claims handler and policy owner, through the staff API.

The handler answers every drafted or routed item of a streamed question citing the question's
labelled clauses: the draft as drafted when it is right (it quotes exactly the labelled
clauses), otherwise an answer of their own quoting the sentences that hold the question's
facts; a question no clause answers gets an answer citing nothing. Every answer keeps the
claimant's words as evidence, as a handler confirms them beside the button. A served answer
the question's facts judge wrong is flagged. The policy owner runs the documented step at a
checkpoint: measure, then promote what meets the bar.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

from agent.db.tables import WaitingItem
from agent.evaluation.curve_models import spans
from agent.evaluation.harness import Exchange
from agent.staff.answer_citations import MAX_ANSWER_CLAUSES
from agent.wording.questions import Question

HANDLER_TOKEN = "dev-staff-token-aroha"
OWNER_TOKEN = "dev-staff-token-mere"
ROUTED_ANSWER = "Thank you for your question. A claims handler will look at this for you and reply here."
# Keys a draft may use to say it holds words a model wrote (the explained style's lead).


def holds_model_words(draft: dict[str, Any]) -> bool:
    """Whether the draft holds words a model wrote (`model_words`: then sending it as drafted
    needs `model_words_confirmed`)."""
    return bool(draft.get("model_words"))


def draft_right(draft: dict[str, Any] | None, labels: Sequence[str]) -> bool:
    """The handler's rule: a draft is right when it quotes exactly the labelled clauses."""
    if not draft or not labels:
        return False
    quoted = {c.get("clause_id") for c in draft.get("citations") or []}
    return quoted == set(labels)


def sendable(draft: dict[str, Any] | None, labels: Sequence[str]) -> bool:
    """Right, fresh, and within the design's three clauses: what a handler would send unchanged."""
    if not draft_right(draft, labels) or (draft or {}).get("stale"):
        return False
    return len(set(labels)) <= MAX_ANSWER_CLAUSES


@dataclass
class Handled:
    """What the handler did with one streamed question."""

    action: str  # sent_as_drafted | answered | answered_routed | flagged | served_right | none | failed
    status: int | None = None
    detail: str = ""
    refused_send: str = ""  # why a send as drafted was refused, when it was


@dataclass
class ScriptedHandler:
    http: httpx.Client  # on the system's base URL
    sessions: sessionmaker
    clause_text: Callable[[str, str, str], str]  # (family, version, clause ID) -> its text
    handler_token: str = HANDLER_TOKEN
    refusals: list[str] = field(default_factory=list)

    def _auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.handler_token}"}

    def item_of(self, turn_id: str | None) -> str | None:
        """The waiting-list item a turn made, by reference."""
        if not turn_id:
            return None
        with self.sessions() as session:
            return session.scalar(select(WaitingItem.reference).where(WaitingItem.turn_id == turn_id))

    def open_item(self, reference: str) -> dict[str, Any]:
        response = self.http.get(f"/staff/api/items/{reference}", headers=self._auth())
        response.raise_for_status()
        return response.json()

    def handle(
        self, question: Question, labels: Sequence[str], exchange: Exchange, earlier: Sequence[Exchange] = ()
    ) -> Handled:
        """One streamed question's reply: flagged when served wrong, answered when it left an item."""
        for before in earlier:  # a follow-up's earlier messages: their items are closed
            reference = self.item_of(before.reply.get("turn_id"))
            if reference:
                self.http.post(
                    f"/staff/api/items/{reference}/close",
                    json={"reason": "answered with the follow-up question"},
                    headers=self._auth(),
                )
        if exchange.status_code != 200:
            return Handled("failed", exchange.status_code, "the claimant's message failed")
        outcome = str(exchange.reply.get("outcome") or "")
        if outcome.startswith("answered"):
            verdict = question.judge(exchange.reply.get("reply") or "")
            if verdict.right and outcome == "answered":
                return Handled("served_right")
            if not verdict.right:
                return self.flag(exchange, question)
        reference = self.item_of(exchange.reply.get("turn_id"))
        if reference is None:
            return Handled("none", detail=f"outcome {outcome}: no item")
        return self.answer(reference, question, labels)

    def flag(self, exchange: Exchange, question: Question) -> Handled:
        response = self.http.post(
            f"/staff/api/turns/{exchange.reply['turn_id']}/flag",
            json={"question": question.text},
            headers=self._auth(),
        )
        return Handled(
            "flagged", response.status_code, "" if response.status_code == 200 else response.text[:300]
        )

    def answer(self, reference: str, question: Question, labels: Sequence[str]) -> Handled:
        detail = self.open_item(reference)
        draft = detail.get("draft")
        evidence = {"question": question.text}
        refused = ""
        if draft_right(draft, labels) and not draft.get("stale"):
            body: dict[str, Any] = {"draft_id": draft["id"], "evidence": evidence}
            if holds_model_words(draft):
                body["model_words_confirmed"] = True
            sent = self.http.post(f"/staff/api/items/{reference}/send-draft", json=body, headers=self._auth())
            if sent.status_code == 200:
                return Handled("sent_as_drafted", 200)
            refused = f"{sent.status_code}: {sent.text[:200]}"
            self.refusals.append(refused)
            detail = self.open_item(reference)  # a refused send may leave it taken: read it again
        item = detail["item"]
        if item.get("status") == "open":
            taken = self.http.post(f"/staff/api/items/{reference}/take", headers=self._auth())
            if taken.status_code != 200:
                return Handled("failed", taken.status_code, taken.text[:300], refused)
        family, version = detail["basis"].get("family"), detail["basis"].get("version")
        citations = []
        if labels and family and version:
            for clause_id in list(dict.fromkeys(labels))[:MAX_ANSWER_CLAUSES]:
                text = self.clause_text(family, version, clause_id)
                if text:
                    citations.append({"clause_id": clause_id, "quote": spans(text, question.facts)[0]})
        if citations:
            words = "\n\n".join(f'{c["clause_id"]}: "{c["quote"]}"' for c in citations)
            text, action = f"Here is what your policy wording says:\n\n{words}", "answered"
        else:
            text, action = ROUTED_ANSWER, "answered_routed"
        response = self.http.post(
            f"/staff/api/items/{reference}/answer",
            json={"text": text, "citations": citations, "basis": detail["basis"], "evidence": evidence},
            headers=self._auth(),
        )
        if response.status_code != 200:
            return Handled("failed", response.status_code, response.text[:300], refused)
        return Handled(action, 200, refused_send=refused)


@dataclass
class OwnerStep:
    """What the policy owner's step did for one wording version at a checkpoint."""

    family: str
    version: str
    path: str  # measure+promote | automatic
    measured: list[dict[str, Any]] = field(default_factory=list)  # the subjects of the measurement
    promoted: int = 0
    status: int | None = None
    detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def owner_step(http: httpx.Client, family: str, version: str, *, owner_token: str = OWNER_TOKEN) -> OwnerStep:
    """The policy owner's documented step: measure the version on all its evidence, then
    promote every clause and rule that meets the bar (docs/answering.md). A version with no
    evidence row since its last measure is left as it is (its page says so): measuring it again
    would replay the same rows."""
    auth = {"Authorization": f"Bearer {owner_token}"}
    base = f"/staff/api/wording/{family}/{version}"
    now = http.get(f"{base}/answering", headers=auth)
    if now.status_code == 200 and now.json().get("evidence_rows_since") == 0:
        step = OwnerStep(family, version, "nothing new", status=200)
        step.measured = list(now.json().get("clauses", []))
        return step
    measured = http.post(f"{base}/measure", headers=auth)
    step = OwnerStep(family, version, "measure+promote", status=measured.status_code)
    if measured.status_code != 200:
        step.detail = measured.text[:500]
        return step
    step.measured = list(measured.json().get("clauses", []))
    promoted = http.post(f"{base}/answering/promote", json={}, headers=auth)
    step.status = promoted.status_code
    if promoted.status_code == 200:
        body = promoted.json()
        changes = body.get("changes", body) if isinstance(body, dict) else body
        step.promoted = len(changes) if isinstance(changes, list) else 0
    else:
        step.detail = promoted.text[:500]
    return step


def answering_clauses(
    http: httpx.Client, family: str, version: str, *, token: str = OWNER_TOKEN
) -> list[str]:
    """The version's clauses (and subjects) in `answers` now."""
    response = http.get(
        f"/staff/api/wording/{family}/{version}/answering", headers={"Authorization": f"Bearer {token}"}
    )
    if response.status_code != 200:
        return []
    return [c["clause_id"] for c in response.json().get("clauses", []) if c.get("mode") == "answers"]
