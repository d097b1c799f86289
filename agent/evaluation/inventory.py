"""The question inventory asked through the claim message API: every corpus question once,
each on a fresh claim of the policy it names, after the messages it follows up on (the
questions themselves: agent.wording.questions)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from agent.evaluation.harness import Exchange, Harness
from agent.wording.questions import Question, Verdict, seeded_claims


def served(exchange: Exchange) -> bool:
    """Whether the claimant was given an answer (whole or in part), not a route or an error."""
    return exchange.status_code == 200 and str(exchange.reply.get("outcome") or "").startswith("answered")


@dataclass
class Asked:
    question: Question
    exchange: Exchange
    earlier: list[Exchange] = field(default_factory=list)  # the replies to the messages it follows

    @property
    def served(self) -> bool:
        return served(self.exchange)

    @property
    def verdict(self) -> Verdict | None:
        """How the served reply reads against the question's facts; None when nothing was served."""
        return self.question.judge(self.exchange.reply.get("reply") or "") if self.served else None


def run_inventory(
    harness: Harness,
    questions: list[Question],
    *,
    concurrency: int = 4,
    progress: Callable[[str], None] | None = None,
) -> list[Asked]:
    claims = seeded_claims()

    def ask(question: Question) -> Asked:
        claim = harness.open_claim(claims[question.policy])
        # The question scored is left out of the offline model's memory for all its turns.
        earlier = [harness.send(claim, text, leave_out=question.id) for text in question.earlier]
        return Asked(question, harness.send(claim, question.text, leave_out=question.id), earlier)

    done: list[Asked] = []
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        for asked in pool.map(ask, questions):
            done.append(asked)
            if progress:
                ok = asked.exchange.status_code == 200
                fetched = ",".join(asked.exchange.turn.get("returned") or []) or "-"
                outcome = asked.exchange.reply.get("outcome") if ok else "HTTP error"
                verdict = asked.verdict
                judged = "" if verdict is None else (" right" if verdict.right else " WRONG")
                progress(f"inventory {asked.question.id}: {outcome}{judged} fetched {fetched}")
    return done
