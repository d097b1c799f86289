"""The question inventory says what a right answer is, in words the runtime can print: every
fact and every wrong string is text of the claimant's governing wording or of their schedule,
so a fact can only be met by serving what the policy says, never by a paraphrase."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.boundary.replies import plan_statement
from agent.boundary.statements import clause_applicability, kind_of, statement
from agent.policy.schedule import ScheduleView
from agent.seed import load_seed_files
from agent.wording.questions import (
    HEADLINE,
    InventoryError,
    Question,
    load_questions,
    normalise,
)
from knowledge.releases import load_releases
from knowledge.source import load_sources

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = load_questions(ROOT / "corpus" / "questions")


def _printable() -> dict[str, str]:
    """policy number -> everything the runtime could print for its claimant, normalised: the
    clauses of the governing wording and the schedule's facts and statements."""
    sources = {(s.family, s.version): s for s in load_sources(ROOT / "policies")}
    releases = load_releases(ROOT / "policies" / "releases.toml")
    texts = {}
    for data in load_seed_files(ROOT / "policies" / "schedules"):
        start = data["term_start"]
        (governing,) = [
            r
            for r in releases
            if r.family == data["family"]
            and r.effective_from <= start
            and (r.effective_to is None or start < r.effective_to)
        ]
        source = sources[(governing.family, governing.version)]
        s = data["schedule"]
        view = ScheduleView(
            data["plan"], s["sections"], s["excess"], s["sums_insured"], s["details"], s.get("labels", {})
        )
        lines = [c.text for c in source.clauses] + view.facts()
        lines += [
            statement(kind_of(c.clause_id), c.title, clause_applicability(c, view)) for c in source.clauses
        ]
        lines += [plan_statement(view.plan)]
        texts[data["policy_number"]] = normalise("\n".join(lines))
    return texts


PRINTABLE = _printable()


@pytest.mark.parametrize("q", [q for q in QUESTIONS if q.answerable], ids=lambda q: q.id)
def test_every_fact_group_can_be_printed_for_this_claimant(q: Question) -> None:
    text = PRINTABLE[q.policy]
    for group in q.facts:
        assert any(normalise(s) in text for s in group), f"{q.id}: no string of {group} is in the wording"


@pytest.mark.parametrize("q", [q for q in QUESTIONS if q.wrong], ids=lambda q: q.id)
def test_every_wrong_string_is_not_what_a_right_fact_says(q: Question) -> None:
    for wrong in q.wrong:
        for group in q.facts:
            for fact in group:
                assert normalise(wrong) not in normalise(fact), f"{q.id}: {wrong!r} is part of fact {fact!r}"


def test_the_headline_part_is_large_and_mixed() -> None:
    part = [q for q in QUESTIONS if q.part == HEADLINE]
    assert len(part) >= 90
    assert sum(not q.answerable for q in part) >= 25
    assert sum(bool(q.earlier) for q in part) >= 5
    assert {q.family for q in part} == {"motor", "home", "contents"}


def test_a_fact_matches_across_case_whitespace_and_thousands_separators() -> None:
    q = Question(
        "X",
        "contents",
        "KM-CNT-402117",
        "?",
        ("CNT-LIM-01",),
        "covered",
        facts=(("Standard plan NZD 4,000 per item",),),
        wrong=("Jewellery and watches",),
    )
    assert q.judge("Electronics ... STANDARD plan  NZD 4000 per\nitem").right
    assert not q.judge("standard plan NZD 4,500 per item").right
    verdict = q.judge("Jewellery and watches: Standard plan NZD 4,000 per item")
    assert not verdict.right and verdict.wrong == ("Jewellery and watches",)
    assert q.judge("NZD 4,000").missed == (("Standard plan NZD 4,000 per item",),)


def test_any_served_reply_to_a_question_no_clause_answers_is_irrelevant() -> None:
    q = Question("X", "motor", "KM-MTR-204518", "is my claim approved?", (), "unanswerable")
    verdict = q.judge("We pay up to NZD 60 a day")
    assert not verdict.right and verdict.irrelevant


def test_a_question_without_facts_is_refused_with_file_and_id(tmp_path: Path) -> None:
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "motor.toml").write_text(
        'family = "motor"\n[[question]]\nid = "MTR-Z1"\npolicy = "KM-MTR-204518"\ntext = "rental?"\n'
        'clauses = ["MTR-BEN-03"]\ncoverage = "covered"\nroute_ok = false\n',
        encoding="utf-8",
    )
    with pytest.raises(InventoryError, match=r"motor.toml: question MTR-Z1: no `facts`"):
        load_questions(tmp_path, parts=("dev",))


def test_the_inventory_is_found_from_any_working_directory(tmp_path) -> None:
    """An API started outside the checkout still finds its questions and policies: a release
    check asked of it answered 500 on a path relative to the working directory."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUSEDESK_")}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from agent.wording.questions import load_questions; from agent.seed import seed_policies; "
            "from agent.settings import get_settings as s; "
            "print(len(load_questions()), (s().policies_dir / 'releases.toml').is_file())",
        ],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-800:]
    count, releases = done.stdout.split()
    assert int(count) > 300 and releases == "True"
