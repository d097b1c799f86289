"""The release check scores the model the runtime serves: the offline model with its memory of
verified questions (agent.wording.memory_examples), each question left out of that memory while
it is asked. Figures of the titles-only model are not what claimants would get."""

from __future__ import annotations

import pytest

from agent.answering.check_report import CheckReport
from agent.models.memory import LEAVE_OUT, Memories
from agent.models.offline import offline_model
from agent.settings import Settings
from agent.wording.memory_examples import examples, served_model
from agent.wording.questions import load_questions
from agent.wording.release_check import run_release_check

ASKED = 12  # dev questions of motor: enough for the memory to change what is served


def per_clause(report: CheckReport) -> dict[str, tuple[int, int, tuple[str, ...], int]]:
    return {
        c.clause_id: (c.questions, c.served, c.served_wrong, c.answered_right) for c in report.clause_evidence
    }


def test_a_check_scores_the_served_model_and_no_question_finds_itself(corpus_store, monkeypatch) -> None:
    settings = Settings(offline_memory="lexical")  # BM25 alone: the same path, without loading wordllama
    source = examples(settings, None)  # no database: the shipped inventory's dev part
    asked = [q for q in load_questions(parts=("dev",)) if q.family == "motor" and not q.earlier][:ASKED]
    # Each asked question is in the memory under its own ID: the one thing it must never recall.
    assert source is not None and {q.id for q in asked} <= {e.key for e in source("motor", "2026.2")}

    recalls: list[tuple[frozenset[str], tuple[str, ...]]] = []
    plain_recall = Memories.recall

    def watched(self, family, version, question, **claimant):  # type: ignore[no-untyped-def]
        found = plain_recall(self, family, version, question, **claimant)
        recalls.append((LEAVE_OUT.get(), tuple(e.key for e in found.neighbours) if found else ()))
        return found

    monkeypatch.setattr(Memories, "recall", watched)
    check = dict(inventory=asked, compare=False, settings=settings)
    titles_only = run_release_check(corpus_store, "motor", "2026.2", model=offline_model(), **check)
    assert recalls == []  # the titles-only model has no memory to ask
    served = run_release_check(corpus_store, "motor", "2026.2", model=served_model(settings, None), **check)

    assert recalls and all(len(left_out) == 1 for left_out, _ in recalls)
    assert any(neighbours for _, neighbours in recalls)  # the memory did recall other questions
    for left_out, neighbours in recalls:
        assert not left_out & set(neighbours)  # never the question being scored
    # every question the model was asked (a decision question routes before any model)
    assert {key for left_out, _ in recalls for key in left_out} <= {q.id for q in asked}
    assert len({key for left_out, _ in recalls for key in left_out}) >= len(asked) - 2
    # The memory changes what is served: the per-clause figures are not the titles-only ones.
    assert per_clause(served) != per_clause(titles_only)


@pytest.mark.parametrize("setting", [{"offline_memory": "off"}, {"model": "openai/gpt-4o-mini"}])
def test_no_memory_where_the_runtime_has_none(setting) -> None:
    assert examples(Settings(**setting), None) is None
