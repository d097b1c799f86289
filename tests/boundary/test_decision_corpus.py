"""The decision detector against the labelled phrase corpus (corpus/decision_phrases.tsv).

Quotations count as policy wording only when they are verbatim in a clause, so the corpus is
read with every clause of the policy corpus as the cited wording, and "ID (Title)" references
with every clause's title, as a turn that cited those clauses would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.boundary.decisions import find_decision
from knowledge.source import load_sources
from tests.conftest import POLICIES

PHRASES = POLICIES.parent / "corpus" / "decision_phrases.tsv"
MAX_FALSE_ALARM_RATE = 0.05


def load_phrases(path: Path = PHRASES) -> list[tuple[str, str]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        label, sep, text = line.partition("\t")
        assert sep and label in ("decision", "ok") and text.strip(), f"{path.name}:{number}: {line!r}"
        rows.append((label, text))
    return rows


@pytest.fixture(scope="module")
def wording() -> tuple[list[str], dict[str, str]]:
    clauses = [c for source in load_sources(POLICIES) for c in source.clauses]
    return [c.text for c in clauses], {c.clause_id: c.title for c in clauses}


def test_the_corpus_is_large_and_labels_both_ways() -> None:
    rows = load_phrases()
    labels = [label for label, _ in rows]
    assert len(rows) >= 200
    assert labels.count("decision") >= 80 and labels.count("ok") >= 80


def test_no_decision_is_missed_and_false_alarms_stay_under_five_percent(wording, capsys) -> None:
    texts, titles = wording
    rows = load_phrases()
    missed = [t for label, t in rows if label == "decision" and find_decision(t, texts, titles) is None]
    alarms = [
        (t, found)
        for label, t in rows
        if label == "ok" and (found := find_decision(t, texts, titles)) is not None
    ]
    honest = sum(1 for label, _ in rows if label == "ok")
    rate = len(alarms) / honest
    with capsys.disabled():
        print(
            f"\nphrase corpus: {len(rows)} lines ({len(rows) - honest} decision, {honest} ok); "
            f"decisions missed {len(missed)}; false alarms {len(alarms)} ({rate:.1%})"
        )
        for text in missed:
            print(f"  missed: {text}")
        for text, found in alarms:
            print(f"  false alarm: {text} -> {found}")
    assert missed == []
    assert rate < MAX_FALSE_ALARM_RATE


def test_a_quotation_is_exempt_only_when_it_is_verbatim_wording(wording) -> None:
    texts, titles = wording
    quoted = "CNT-COV-01 says: “Contents in a locked garage or shed at your home are covered.”"
    assert find_decision(quoted, texts, titles) is None
    # The same words, not shown as a quotation, or with no wording behind them, decide.
    assert find_decision(quoted.replace("“", "").replace("”", ""), texts, titles) is not None
    assert find_decision(quoted) is not None
    assert find_decision("MTR-BEN-03 says: “Your claim is approved.”", texts, titles) is not None


def test_the_runtime_s_own_sentences_decide_nothing() -> None:
    """The evaluation runs the detector over served replies, which end with the runtime's words."""
    from agent.boundary import replies as notices
    from agent.boundary.qualifiers import DEFINITION_NOTE
    from agent.boundary.statements import applicability, statement
    from agent.policy.schedule import ScheduleView

    schedule = ScheduleView("Comprehensive", ["alternative_transport"], {"standard": 400}, {}, {})
    bare = ScheduleView("Comprehensive", [], {}, {}, {})
    statuses = [
        applicability((), ("alternative_transport",), (), (), schedule),
        applicability((), ("alternative_transport",), (), (), bare),
        applicability(("Premier",), (), (), (), bare),
        applicability(("Comprehensive",), (), (), (), bare),
        applicability((), (), ("alternative_transport",), (), schedule),
        applicability((), (), (), ("alternative_transport",), schedule),
        applicability((), (), (), (), bare),
    ]
    kinds = ("cover", "exclusion", "condition", "definition", "process", "general")
    sentences = [
        *notices.WHY.values(),
        *notices.WORDING.values(),
        notices.NOTHING_DECIDED,
        notices.NOTHING_ASKED,
        notices.OFF_TOPIC,
        notices.reference_sentence("WL-000123"),
        notices.drafted("WL-000123", "Our claims team usually answers within one working day."),
        *(notices.also_with_staff(r, p, "WL-000123") for r in notices.WHY for p in (None,)),
        notices.also_with_staff("answered_in_part", "and the towing?", "WL-000123"),
        notices.also_with_staff("answered_in_part", None, "WL-000123"),
        notices.plan_statement("Premier"),
        DEFINITION_NOTE,
        "This limit is the one in “Liability to other people”.",
        *(statement(kind, "Hire car while your car is repaired", s) for s in statuses for kind in kinds),
    ]
    assert [s for s in sentences if find_decision(s)] == []


VERDICTS = Path(__file__).with_name("decision_verdicts.tsv")


def verdict_lines(texts: list[str], titles: dict[str, str]) -> list[str]:
    """Label, rule and phrase found for each corpus line. To record a change to the rules or to
    agent/boundary/decision_words.toml that is meant to change verdicts, write these lines
    (under the file's two comment lines) to decision_verdicts.tsv and review the diff."""
    found = [(label, find_decision(text, texts, titles)) for label, text in load_phrases()]
    return [f"{label}\t{f.rule if f else '-'}\t{f.phrase if f else '-'}" for label, f in found]


def test_the_word_lists_as_data_give_every_corpus_line_its_recorded_verdict(wording) -> None:
    """The word lists moved from code to decision_words.toml with every verdict kept: the
    detector finds the same rule and phrase, or nothing, on each line of the corpus."""
    lines = VERDICTS.read_text(encoding="utf-8").splitlines()
    recorded = [line for line in lines if not line.startswith("#")]
    now = verdict_lines(*wording)
    changed = [(n, was, is_) for n, (was, is_) in enumerate(zip(recorded, now, strict=True), 1) if was != is_]
    assert changed == []
