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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent.answering.verdicts import judge
from agent.boundary.citation import Quote
from agent.seed import load_seed_files
from agent.settings import get_settings
from knowledge.clauses import Directory

PARTS = ("dev", "test", "test2")
IMPORTED = "imported"  # inventories for wordings brought in by import, with their own claimants
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
    # An imported wording's inventory names the headings that answer a question, as printed;
    # the import assigns the clause IDs (`clauses_for` maps them on the ingested directory).
    sections: tuple[str, ...] = ()
    # Staff evidence has no facts: what the handler cited and the sentences they kept decide it.
    deciding: tuple[tuple[str, str], ...] = ()  # (clause ID, sentence)

    @property
    def answerable(self) -> bool:
        return bool(self.clauses or self.sections)

    @property
    def expected_outcome(self) -> str:
        return "answered" if self.answerable else "routed_to_staff"

    def judge(self, reply: str, quotes: Sequence[Quote] = (), added: Sequence[str] = ()) -> Verdict:
        """A served reply is right when it holds every fact group and none of the wrong strings;
        any reply served to a question no clause answers is irrelevant. A question with no facts
        but what a handler cited (staff evidence) is judged as a handler's answer judges a draft
        (agent.answering.verdicts.judge): the reply and its `quotes` against the handler's, the
        clauses the runtime `added` as qualifiers on neither side."""
        if not self.answerable:
            return Verdict(False, irrelevant=True)
        if not self.facts and self.clauses:
            sent = [Quote(c, q) for c, q in self.deciding] or [Quote(c, "") for c in self.clauses]
            judged = judge(reply, list(quotes), reply, sent, runtime_added=added)
            if judged.outcome == "right":
                return Verdict(True)
            return Verdict(False, missed=tuple((c,) for c in judged.because), wrong=(judged.verdict,))
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
    answers = "sections" if part == IMPORTED else "clauses"
    missing = [k for k in ("id", "policy", "text", answers, "coverage") if k not in q]
    if missing:
        raise InventoryError(f"{where}: missing {', '.join(missing)}")
    if q["coverage"] not in COVERAGE:
        raise InventoryError(f"{where}: coverage {q['coverage']!r} is not one of {', '.join(COVERAGE)}")
    facts = q.get("facts")
    if facts is None:
        raise InventoryError(f"{where}: no `facts` (groups of strings a right answer contains; [] if none)")
    if not all(isinstance(g, list) and g and all(isinstance(s, str) and s.strip() for s in g) for g in facts):
        raise InventoryError(f"{where}: `facts` must be a list of non-empty lists of non-empty strings")
    if bool(q[answers]) != bool(facts):
        raise InventoryError(
            f"{where}: a question with {answers} needs facts and one without {answers} has none "
            f"({answers} {q[answers]}, {len(facts)} fact groups)"
        )
    if "route_ok" not in q:
        raise InventoryError(f"{where}: no `route_ok` (whether routing it to staff is acceptable)")
    return Question(
        q["id"],
        family,
        q["policy"],
        q["text"],
        tuple(q.get("clauses", [])),
        q["coverage"],
        part,
        tuple(tuple(g) for g in facts),
        tuple(q.get("wrong", [])),
        bool(q["route_ok"]),
        tuple(q.get("earlier", [])),
        tuple(q.get("sections", [])),
    )


def parts_in(folder: Path) -> tuple[Path, tuple[str, ...]]:
    """Where a question folder's parts are and which they are: its subfolders with question
    files (an imported wording's inventory aside), or the folder itself when the files are in
    it (a held-out set handed over as one folder is one part, named after it)."""
    if any(folder.glob("*.toml")):
        folder = folder.resolve()
        return folder.parent, (folder.name,)
    subfolders = [p for p in folder.iterdir() if p.is_dir() and p.name != IMPORTED]
    found = tuple(sorted(p.name for p in subfolders if any(p.glob("*.toml"))))
    if not found:
        raise FileNotFoundError(f"no question files in {folder} or its subfolders")
    return folder, found


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


def load_file(path: Path) -> list[Question]:
    """The questions of one file: a part's (`clauses`) or an imported wording's (`sections`),
    told apart by its folder; a file of claimants (`[[policy]]`) holds none."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    if "question" not in data:
        return []
    part = IMPORTED if path.parent.name == IMPORTED else path.parent.name
    return [_question(path, data["family"], part, q) for q in data["question"]]


def seeded_claims() -> dict[str, str]:
    """policy number -> the seeded claim on it."""
    return {d["policy_number"]: d["claim"]["claim_id"] for d in load_seed_files()}


def load_imported(family: str, folder: Path | None = None) -> tuple[list[Question], list[dict]]:
    """An imported wording's inventory and its synthetic claimants: the question files of
    {folder}/imported whose `family` is this one, and the `[[policy]]` tables of the
    files beside them (`*_policies.toml`), in the shape of policies/schedules/*.toml."""
    folder = (folder or questions_dir()) / IMPORTED
    questions: list[Question] = []
    policies: list[dict] = []
    for path in sorted(folder.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        if "policy" in data:
            policies += [p for p in data["policy"] if p.get("family") == family]
        elif data.get("family") == family:
            questions += [_question(path, family, IMPORTED, q) for q in data["question"]]
    return questions, policies


def clauses_for(question: Question, directory: Directory) -> tuple[str, ...]:
    """The imported units a question's `sections` name: a unit whose part or title starts with
    the heading, or whose text opens with it ("2 Glass damage"); its own `clauses` otherwise."""
    if not question.sections:
        return question.clauses
    found = []
    # "2 Glass damage": the booklet's own number of a cover is not in a drafted title.
    for section in (normalise(re.sub(r"^\d+\s+", "", s)) for s in question.sections):
        for entry in directory.entries:
            part, title = normalise(entry.part or ""), normalise(entry.title)
            if part.startswith(section) or title.startswith(section) or section in title.split(": ")[0]:
                found.append(entry.clause_id)
    return tuple(dict.fromkeys(found))
