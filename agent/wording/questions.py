"""The question inventory of the corpus: every question of corpus/questions, in two parts,
one folder each: `dev` (the offline model may be tuned on it) and `test` (written before
tuning, never tuned on). The release check and the evaluation both ask them."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from agent.seed import load_seed_files
from agent.settings import get_settings


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


PARTS = ("dev", "test")


def questions_dir() -> Path:
    return get_settings().corpus_dir / "questions"


def load_questions(folder: Path | None = None, parts: tuple[str, ...] = PARTS) -> list[Question]:
    """Every question of the given parts ({folder}/{part}/{family}.toml)."""
    folder = folder or questions_dir()
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
