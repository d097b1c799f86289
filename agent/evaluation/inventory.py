"""The question inventory asked through the claim message API: every corpus question once,
each on a fresh claim of the policy it names (the questions themselves: agent.wording.questions)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from agent.evaluation.harness import Exchange, Harness
from agent.wording.questions import Question, seeded_claims


@dataclass
class Asked:
    question: Question
    exchange: Exchange


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
        return Asked(question, harness.send(claim, question.text))

    done: list[Asked] = []
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        for asked in pool.map(ask, questions):
            done.append(asked)
            if progress:
                ok = asked.exchange.status_code == 200
                fetched = ",".join(asked.exchange.turn.get("returned") or []) or "-"
                outcome = asked.exchange.reply.get("outcome") if ok else "HTTP error"
                progress(f"inventory {asked.question.id}: {outcome} fetched {fetched}")
    return done
