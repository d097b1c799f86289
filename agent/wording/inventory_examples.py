"""The policy owner's inventory as evidence examples for the offline model's memory.

Until the evidence store hands out verified examples, the memory learns from the inventory's
`dev` part (the part the offline model may be tuned on; test and test2 never feed it). Each
question is an example of the wording version that governs its claimant's policy term, as the
release records in policies/ approve it; its question ID is its key, for leave-one-out; its
claimant's plan and schedule sections (the development schedule of its policy) are its cover.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path

from agent.answering.examples import Cover, Example, ExampleSource
from agent.seed import load_seed_files
from agent.settings import get_settings
from agent.wording.questions import Question, load_questions
from knowledge.releases import ReleaseRecord, load_releases

MEMORY_PARTS = ("dev",)


def governing(records: Sequence[ReleaseRecord], family: str, on: date) -> str | None:
    """The one released version of the family whose interval holds the date; None otherwise."""
    found = [
        r.version
        for r in records
        if r.family == family
        and r.effective_from is not None
        and r.effective_from <= on
        and (r.effective_to is None or on < r.effective_to)
    ]
    return found[0] if len(found) == 1 else None


def examples_of(
    questions: Sequence[Question],
    terms: dict[str, date],
    records: Sequence[ReleaseRecord],
    covers: Mapping[str, Cover] | None = None,
) -> list[Example]:
    """Each question as an example of its policy's governing version (none when no version
    governs), with its claimant's cover (`covers`, by policy number)."""
    examples = []
    for q in questions:
        start = terms.get(q.policy)
        version = governing(records, q.family, start) if start else None
        if version is None or q.earlier:  # a follow-up means nothing without what came before
            continue
        routed = not q.answerable
        cover = (covers or {}).get(q.policy, Cover())
        examples.append(Example(q.id, q.family, version, q.text, q.clauses, routed=routed, cover=cover))
    return examples


def inventory_source(
    questions_dir: Path | None = None, parts: tuple[str, ...] = MEMORY_PARTS
) -> ExampleSource:
    """An ExampleSource over the inventory's parts (dev by default), read once."""
    settings = get_settings()
    seeds = load_seed_files()
    terms = {d["policy_number"]: d["term_start"] for d in seeds}
    covers = {d["policy_number"]: Cover.of({"plan": d.get("plan"), **d.get("schedule", {})}) for d in seeds}
    records = load_releases(settings.policies_dir / "releases.toml")
    by_version: dict[tuple[str, str], list[Example]] = defaultdict(list)
    for example in examples_of(load_questions(questions_dir, parts), terms, records, covers):
        by_version[(example.family, example.version)].append(example)

    def source(family: str, version: str) -> Sequence[Example]:
        return tuple(by_version.get((family, version), ()))

    return source
