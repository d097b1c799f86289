"""The question inventory: every corpus question asked once, each on a fresh claim of the
policy it names, through the claim message API.

Two parts, one folder each under corpus/questions: `dev` (the offline model may be tuned
on it) and `test` (written before tuning, never tuned on; the report's headline)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from agent.evaluation.harness import Exchange, Harness
from agent.seed import load_seed_files

QUESTIONS = Path(__file__).resolve().parent.parent.parent / "corpus" / "questions"


@dataclass(frozen=True)
class Question:
    id: str
    family: str
    policy: str
    text: str
    clauses: tuple[str, ...]
    coverage: str
    part: str = "dev"

    @property
    def answerable(self) -> bool:
        return bool(self.clauses)

    @property
    def expected_outcome(self) -> str:
        return "answered" if self.answerable else "routed_to_staff"


@dataclass
class Asked:
    question: Question
    exchange: Exchange


PARTS = ("dev", "test")


def load_questions(folder: Path = QUESTIONS, parts: tuple[str, ...] = PARTS) -> list[Question]:
    """Every question of the given parts ({folder}/{part}/{family}.toml)."""
    questions = []
    for part in parts:
        paths = sorted((folder / part).glob("*.toml"))
        if not paths:
            raise FileNotFoundError(f"no question files in {folder / part}")
        for path in paths:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            for q in data["question"]:
                questions.append(
                    Question(
                        q["id"],
                        data["family"],
                        q["policy"],
                        q["text"],
                        tuple(q["clauses"]),
                        q["coverage"],
                        part,
                    )
                )
    ids = [q.id for q in questions]
    if len(ids) != len(set(ids)):
        raise ValueError(f"duplicate question ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    return questions


def seeded_claims() -> dict[str, str]:
    """policy number -> the seeded claim on it."""
    return {d["policy_number"]: d["claim"]["claim_id"] for d in load_seed_files()}


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
