"""The question inventory of the corpus: every question of corpus/questions, in parts, one
folder each: `dev` (the offline model may be tuned on it), `test` (written before tuning,
never tuned on) and `test2` (written with facts before the offline model was tuned on facts,
never tuned on: the headline). The release check and the evaluation both ask them.

Each question carries the facts of a right answer for its claimant: groups of strings the
reply must contain (any one of a group, every group), strings that make it wrong (another
plan's figure, a different item's limit), and whether routing it to staff is acceptable.
`judge` reads a reply the way a claimant does, against those facts."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from agent.seed import load_seed_files
from agent.settings import get_settings

PARTS = ("dev", "test", "test2")
HEADLINE = "test2"  # the part the evaluation leads with: never tuned on
COVERAGE = ("covered", "partly_covered", "excluded", "not_offered", "unanswerable")


def normalise(text: str) -> str:
    """Case, runs of whitespace and thousands separators only ("NZD 1,000" = "nzd 1000"):
    a fact matches the text the claimant reads, not a paraphrase of it."""
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return re.sub(r"\s+", " ", text).strip().casefold()


@dataclass(frozen=True)
class Verdict:
    """How a served reply reads against a question's facts."""

    right: bool
    missed: tuple[tuple[str, ...], ...] = ()  # fact groups none of whose strings the reply holds
    wrong: tuple[str, ...] = ()  # strings that make it wrong, found in the reply
    irrelevant: bool = False  # served for a question no clause answers


@dataclass(frozen=True)
class Question:
    id: str
    family: str
    policy: str
    text: str
    clauses: tuple[str, ...]
    coverage: str
    part: str = "dev"
    facts: tuple[tuple[str, ...], ...] = ()
    wrong: tuple[str, ...] = ()
    route_ok: bool = True
    earlier: tuple[str, ...] = field(default=())  # messages the claimant sent before it, in order

    @property
    def answerable(self) -> bool:
        return bool(self.clauses)

    @property
    def expected_outcome(self) -> str:
        return "answered" if self.answerable else "routed_to_staff"

    def judge(self, reply: str) -> Verdict:
        """A served reply is right when it holds every fact group and none of the wrong strings;
        any reply served to a question no clause answers is irrelevant."""
        if not self.answerable:
            return Verdict(False, irrelevant=True)
        if not self.facts:  # nothing says what is right, so nothing served can be shown right
            return Verdict(False)
        text = normalise(reply)
        missed = tuple(g for g in self.facts if not any(normalise(s) in text for s in g))
        wrong = tuple(s for s in self.wrong if normalise(s) in text)
        return Verdict(not missed and not wrong, missed, wrong)


def questions_dir() -> Path:
    return get_settings().corpus_dir / "questions"


class InventoryError(ValueError):
    """A question file that does not say what a right answer is; the message names file and question."""


def _question(path: Path, family: str, part: str, q: dict) -> Question:
    where = f"{path}: question {q.get('id', '?')}"
    missing = [k for k in ("id", "policy", "text", "clauses", "coverage") if k not in q]
    if missing:
        raise InventoryError(f"{where}: missing {', '.join(missing)}")
    if q["coverage"] not in COVERAGE:
        raise InventoryError(f"{where}: coverage {q['coverage']!r} is not one of {', '.join(COVERAGE)}")
    facts = q.get("facts")
    if facts is None:
        raise InventoryError(f"{where}: no `facts` (groups of strings a right answer contains; [] if none)")
    if not all(isinstance(g, list) and g and all(isinstance(s, str) and s.strip() for s in g) for g in facts):
        raise InventoryError(f"{where}: `facts` must be a list of non-empty lists of non-empty strings")
    if bool(q["clauses"]) != bool(facts):
        raise InventoryError(
            f"{where}: a question with clauses needs facts and one without clauses has none "
            f"(clauses {q['clauses']}, {len(facts)} fact groups)"
        )
    if "route_ok" not in q:
        raise InventoryError(f"{where}: no `route_ok` (whether routing it to staff is acceptable)")
    return Question(
        q["id"],
        family,
        q["policy"],
        q["text"],
        tuple(q["clauses"]),
        q["coverage"],
        part,
        tuple(tuple(g) for g in facts),
        tuple(q.get("wrong", [])),
        bool(q["route_ok"]),
        tuple(q.get("earlier", [])),
    )


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
            questions += [_question(path, data["family"], part, q) for q in data["question"]]
    ids = [q.id for q in questions]
    if len(ids) != len(set(ids)):
        raise ValueError(f"duplicate question ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    return questions


def seeded_claims() -> dict[str, str]:
    """policy number -> the seeded claim on it."""
    return {d["policy_number"]: d["claim"]["claim_id"] for d in load_seed_files()}
