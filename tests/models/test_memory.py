"""The offline model's evidence memory: recall by fused meaning and words, the close threshold,
leave-one-out, the lexical path and its fallback, the cache, wordllama offline, and the runtime
drafting what the memory does not back (through HTTP)."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Sequence

import numpy as np
import pytest

from agent.answering.examples import Cover, Example
from agent.api.middleware import LEAVE_OUT_HEADER
from agent.evaluation.harness import Harness
from agent.models import meaning
from agent.models.memory import CLOSE, Memories, Memory, Recall, _rrf, leaving_out
from agent.models.offline import offline_model
from agent.models.offline.model import confident
from agent.models.offline.prompt import cover_of
from agent.models.offline.quotes import decided_first
from agent.wording.inventory_examples import inventory_source
from tests.conftest import TOKENS, make_live_app, stop_live, use_model
from tests.support import answer, scripted

HIRE = Example(
    "Q-HIRE", "motor", "2026.2", "Can I get a rental car while mine is being repaired?", ("MTR-BEN-03",)
)
ROOF = Example("Q-ROOF", "motor", "2026.2", "Is storm damage to my roof covered?", ("HOM-COV-01",))
WINDSCREEN = Example(
    "Q-GLASS",
    "motor",
    "2026.2",
    "A stone chipped my windscreen, what do I pay?",
    ("MTR-COV-03", "MTR-EXS-01"),
)
ROUTED = Example("Q-ROUTE", "motor", "2026.2", "When will my claim be paid?", (), routed=True)


def source_of(*examples: Example):
    def source(family: str, version: str) -> Sequence[Example]:
        return [e for e in examples if (e.family, e.version) == (family, version)]

    return source


class Vectors:
    """An embedder with chosen vectors: the fusion test decides what meaning says."""

    def __init__(self, table: dict[str, Sequence[float]]):
        self.table = table

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.array([self.table[t] for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_reciprocal_rank_fusion_prefers_what_both_rank_well() -> None:
    keep = np.ones(4, dtype=bool)
    words = np.array([3.0, 0.0, 2.0, 0.1])  # item 0 first and item 1 last; item 2 second
    meaning_ = np.array([0.0, 0.9, 0.8, 0.1])  # item 1 first and item 0 last; item 2 second
    fused = _rrf(words, keep) + _rrf(meaning_, keep)
    assert int(np.argmax(fused)) == 2
    # An item left out ranks last whatever its score.
    assert _rrf(np.array([5.0, 1.0]), np.array([False, True]))[1] == pytest.approx(1 / 61)


def test_fused_recall_takes_the_example_both_rankings_agree_on() -> None:
    question = "rental car after a storm"
    # Words alone: the roof question shares "storm"; the hire question shares "rental car".
    # Meaning here says hire first, windscreen second, roof last: the fusion follows both.
    embed = Vectors({question: [1, 0, 0], HIRE.question: [0.9, 0.1, 0], ROOF.question: [0, 0, 1],
                     WINDSCREEN.question: [0.5, 0.5, 0]})  # fmt: skip
    memory = Memory([HIRE, ROOF, WINDSCREEN], embed)
    recall = memory.recall(question)
    assert recall is not None and recall.matching == "fused"
    assert recall.example.key == "Q-HIRE" and recall.closeness == pytest.approx(0.994, abs=0.01)
    assert [e.key for e in recall.neighbours][:1] == ["Q-HIRE"] and len(recall.neighbours) == 3


def test_the_close_threshold_decides_whether_the_nearest_question_alone_serves() -> None:
    at = Recall((HIRE,), CLOSE["fused"], "fused")
    below = Recall((HIRE, WINDSCREEN), CLOSE["fused"] - 0.01, "fused")
    hire = {"outcome": "answered", "points": [{"clause_id": "MTR-BEN-03", "span": "x"}]}
    hire_and_cover = {"outcome": "answered", "points": [
        {"clause_id": "MTR-BEN-03", "span": "x"}, {"clause_id": "MTR-COV-01", "span": "y"}]}  # fmt: skip
    assert at.close and not below.close
    # Close: an answer that quotes first what it cites is served, whatever else it quotes.
    assert confident(hire_and_cover, at)
    # Not close: served only where every clause quoted is cited by the nearest questions.
    assert confident(hire, below) and not confident(hire_and_cover, below)
    glass = {"outcome": "answered", "points": [
        {"clause_id": "MTR-EXS-01", "span": "x"}, {"clause_id": "MTR-COV-03", "span": "y"}]}  # fmt: skip
    assert confident(glass, below)
    # No memory, or no points: drafted.
    assert not confident(hire, None) and not confident({"outcome": "answered", "points": []}, at)
    # A close routed question backs no answer; its neighbours' clauses still can.
    routed = Recall((ROUTED, HIRE), 0.95, "fused")
    assert confident(hire, routed) and not confident(hire_and_cover, routed)


def test_leave_one_out_excludes_the_scored_question() -> None:
    memory = Memory([HIRE, ROOF, WINDSCREEN], None)
    itself = memory.recall(HIRE.question)
    assert itself is not None and itself.example.key == "Q-HIRE" and itself.closeness == pytest.approx(1.0)
    without = memory.recall(HIRE.question, excluding=frozenset({"Q-HIRE"}))
    assert without is None or without.example.key != "Q-HIRE"
    assert memory.recall(HIRE.question, excluding=frozenset({"Q-HIRE", "Q-ROOF", "Q-GLASS"})) is None
    # Through the context an evaluation sets per turn.
    memories = Memories(source_of(HIRE, ROOF, WINDSCREEN), "lexical")
    assert memories.recall("motor", "2026.2", HIRE.question).example.key == "Q-HIRE"
    with leaving_out("Q-HIRE"):
        found = memories.recall("motor", "2026.2", HIRE.question)
        assert found is None or found.example.key != "Q-HIRE"
    assert memories.recall("motor", "2026.2", HIRE.question).example.key == "Q-HIRE"


def test_lexical_path_never_loads_wordllama(monkeypatch) -> None:
    monkeypatch.setattr(
        meaning, "embedder", lambda name="wordllama": pytest.fail("wordllama loaded on the lexical path")
    )
    memories = Memories(source_of(HIRE, ROOF), "lexical")
    recall = memories.recall("motor", "2026.2", "hire car while my car is repaired")
    assert recall is not None and recall.matching == "lexical" and recall.example.key == "Q-HIRE"
    # No word in common with any example: nothing recalled.
    assert memories.recall("motor", "2026.2", "zzz qqq") is None


def test_fused_falls_back_to_lexical_when_wordllama_cannot_load(monkeypatch, caplog) -> None:
    def broken() -> meaning.WordLlamaEmbedder:
        raise FileNotFoundError("Tokenizer file not found, and downloads are disabled.")

    monkeypatch.setattr(meaning, "load_wordllama", broken)
    monkeypatch.setattr(meaning, "_loaded", {})
    with caplog.at_level(logging.WARNING, logger="agent.models.meaning"):
        recall = Memories(source_of(HIRE, ROOF), "fused").recall("motor", "2026.2", "rental car repaired")
    assert recall is not None and recall.matching == "lexical" and recall.example.key == "Q-HIRE"
    assert "matching on words only" in caplog.text and "FileNotFoundError" in caplog.text


COMPREHENSIVE = Cover("Comprehensive", frozenset({"part_a", "part_b"}))
THIRD_PARTY = Cover("Third Party only", frozenset({"part_b"}))
COURTESY = "can I have a courtesy car while my bumper is sorted out?"


def plan_example(key: str, cover: Cover, clause: str, question: str = COURTESY) -> Example:
    return Example(key, "axa_car", "2021.1", question, (clause,), cover=cover)


def test_recall_prefers_the_claimants_plan_and_never_another_plans_clause_it_lacks() -> None:
    comprehensive = plan_example("Q-COMP", COMPREHENSIVE, "MTR-COV-10")
    third_party = plan_example("Q-TPO", THIRD_PARTY, "MTR-COV-03")
    # The same words for both plans, the Comprehensive one first: each claimant recalls their own.
    both = Memory([comprehensive, third_party], None)
    assert both.recall(COURTESY, cover=THIRD_PARTY).example.key == "Q-TPO"
    assert both.recall(COURTESY, cover=Cover("third party ONLY")).example.key == "Q-TPO"  # case aside
    assert both.recall(COURTESY, cover=COMPREHENSIVE).example.key == "Q-COMP"
    # Another plan's example is recalled where every clause it cites is known to be in the
    # claimant's plan: shown in the directory now, or cited for a claimant of their plan.
    alone = Memory([comprehensive], None)
    assert alone.recall(COURTESY, cover=THIRD_PARTY) is None
    assert (
        alone.recall(COURTESY, cover=THIRD_PARTY, visible=frozenset({"MTR-COV-10"})).example.key == "Q-COMP"
    )
    liability = plan_example("Q-TPO-B", THIRD_PARTY, "MTR-COV-10", "who pays for the other car I hit?")
    assert (
        Memory([comprehensive, liability], None).recall(COURTESY, cover=THIRD_PARTY).example.key == "Q-COMP"
    )
    # Left out (leave-one-out), the own-plan example makes nothing known.
    assert (
        Memory([comprehensive, liability], None).recall(
            COURTESY, cover=THIRD_PARTY, excluding=frozenset({"Q-TPO-B"})
        )
        is None
    )
    # Where a plan is not recorded, on either side, there is nothing to compare: recalled as before.
    assert alone.recall(COURTESY).example.key == "Q-COMP"
    assert alone.recall(COURTESY, cover=Cover()).example.key == "Q-COMP"
    unrecorded = plan_example("Q-STAFF", Cover(), "MTR-COV-10")
    assert Memory([unrecorded], None).recall(COURTESY, cover=THIRD_PARTY).example.key == "Q-STAFF"


def test_of_two_close_examples_of_the_claimants_plan_the_nearer_schedule_comes_first() -> None:
    without = plan_example("Q-A", Cover("Comprehensive"), "MTR-COV-10")
    listed = plan_example("Q-B", Cover("Comprehensive", frozenset({"part_a", "part_b"})), "MTR-COV-10")
    memory = Memory([without, listed], None)
    assert memory.recall(COURTESY, cover=COMPREHENSIVE).example.key == "Q-B"
    assert memory.recall(COURTESY, cover=Cover("Comprehensive")).example.key == "Q-A"
    # Not close: the nearest by words and meaning, whatever its schedule.
    far = memory.recall("courtesy car", cover=COMPREHENSIVE)
    assert far is not None and not far.close and far.example.key == "Q-A"


def test_the_claimants_cover_is_read_from_the_context_every_model_reads() -> None:
    context = (
        "Claim C-1, policy P-1 (axa_car, plan Third Party only), term 2021-05-01 to 2022-05-01.\n"
        "Schedule: plan Third Party only; optional sections listed: part_b, endorsement_30; "
        "excess: none shown; sums insured: none shown\n"
    )
    assert cover_of(context) == Cover("Third Party only", frozenset({"part_b", "endorsement_30"}))
    nothing = context.replace("part_b, endorsement_30", "none")
    assert cover_of(nothing) == Cover("Third Party only", frozenset())
    assert cover_of("no context") == Cover()


def test_a_recalled_clause_leads_with_the_sentence_that_decided_the_recalled_question() -> None:
    clause = {
        "clause_id": "MTR-COV-03",
        "text": "## MTR-COV-03 - Third Party only\nYou are not covered under Parts A, D and E.\n"
        "Cover for loss of or damage to other people's property applies.",
    }
    decided = (("MTR-COV-03", "You are not covered under  Parts A, D and E"),)
    # No word of "courtesy car" in it: only the recalled answer's own sentence is quoted.
    assert decided_first([], clause, decided, None) == [(1.0, "You are not covered under Parts A, D and E.")]
    scored = [(2.0, "Cover for loss of or damage to other people's property applies.")]
    assert [span for _, span in decided_first(scored, clause, decided, None)] == [
        "You are not covered under Parts A, D and E.",
        "Cover for loss of or damage to other people's property applies.",
    ]
    # Another clause's sentence, or a quote of a few words, decides nothing here.
    assert (
        decided_first(scored, clause, (("MTR-COV-02", "You are not covered under Parts A"),), None) == scored
    )
    assert decided_first(scored, clause, (("MTR-COV-03", "Parts A, D"),), None) == scored


class Counting(Vectors):
    """An embedder that records what it was asked to embed."""

    def __init__(self) -> None:
        super().__init__({})
        self.asked: list[str] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.asked += list(texts)
        return np.array([[len(t), 1.0, 0.0] for t in texts], dtype=np.float32)


def test_a_rebuild_embeds_only_new_questions_and_a_relabelled_example_rebuilds(monkeypatch) -> None:
    counting = Counting()
    monkeypatch.setattr("agent.models.memory.embedder", lambda name="wordllama": counting)
    examples = [HIRE, ROOF]
    memories = Memories(lambda family, version: list(examples), "fused")
    first = memories.memory("motor", "2026.2")
    assert sorted(counting.asked) == sorted([HIRE.question, ROOF.question])
    assert memories.memory("motor", "2026.2") is first  # shared by every turn: nothing embedded again
    examples.append(WINDSCREEN)
    counting.asked.clear()
    assert len(memories.memory("motor", "2026.2")) == 3 and counting.asked == [WINDSCREEN.question]
    # The same key with another label (a handler's answer corrected) is another memory.
    examples[0] = Example(HIRE.key, "motor", "2026.2", HIRE.question, ("MTR-BEN-01",))
    counting.asked.clear()
    relabelled = memories.memory("motor", "2026.2")
    assert relabelled.examples[0].clause_ids == ("MTR-BEN-01",) and counting.asked == []


def test_memory_is_built_once_per_version_and_rebuilt_when_its_examples_change() -> None:
    examples = [HIRE, ROOF]
    memories = Memories(lambda family, version: list(examples), "lexical")
    first = memories.memory("motor", "2026.2")
    assert memories.memory("motor", "2026.2") is first and len(first) == 2
    examples.append(WINDSCREEN)
    rebuilt = memories.memory("motor", "2026.2")
    assert rebuilt is not first and len(rebuilt) == 3
    # Another version has its own (empty) memory: evidence is per wording version.
    assert len(memories.memory("motor", "2025.1")) == 0
    assert memories.recall("motor", "2025.1", HIRE.question) is None


def test_wordllama_loads_from_its_package_with_the_network_off() -> None:
    # A fresh interpreter where any socket connection fails and the hub variables are unset.
    code = (
        "import os, socket\n"
        "for k in ('HF_HUB_OFFLINE', 'TRANSFORMERS_OFFLINE', 'HF_HOME'): os.environ.pop(k, None)\n"
        "def refuse(*a, **k): raise OSError('network is off in this test')\n"
        "socket.socket.connect = refuse\nsocket.create_connection = refuse\n"
        "from agent.models.meaning import load_wordllama\n"
        "e = load_wordllama()\n"
        "v = e(['Can I get a loan car?', 'Do I get a rental car while mine is repaired?', 'roof leak'])\n"
        "assert v.shape == (3, 256), v.shape\n"
        "assert float(v[0] @ v[1]) > float(v[0] @ v[2])\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_the_inventory_feeds_the_memory_of_the_governing_version_from_the_dev_part_only() -> None:
    source = inventory_source()
    motor = source("motor", "2026.2")
    assert len(motor) > 50 and all(e.key.startswith("MTR-Q") for e in motor)
    assert all(e.version == "2026.2" and e.source == "inventory" for e in motor)
    # Each with its claimant's plan and schedule sections, from the development schedules.
    assert all(e.cover.plan for e in motor)
    assert any("alternative_transport" in e.cover.sections for e in motor)
    assert any(e.routed and not e.clause_ids for e in motor)
    # No dev question's policy term is governed by the older wording: its memory is empty.
    assert source("motor", "2025.1") == ()


def test_an_answer_the_memory_does_not_back_is_drafted_and_one_it_backs_is_served(live, database_url) -> None:
    """Through HTTP: the runtime reads the model's doubt and drafts; the evaluation's
    leave-one-out header takes the backing example out for that turn."""
    memory = Memories(source_of(HIRE), "lexical")
    use_model(live, offline_model(memory))
    harness = Harness(live.url, database_url)
    try:
        backed = harness.send(
            harness.open_claim("CLM-204518"), "Can I get a rental car while mine is being repaired?"
        )
        assert backed.reply["outcome"] == "answered", backed.reply
        assert backed.turn["outcome"] == "answered"
        # The same question with its backing example left out: no memory backs it, so drafted.
        claim = harness.open_claim("CLM-204518")
        left_out = harness.send(
            claim, "Can I get a rental car while mine is being repaired?", leave_out="Q-HIRE"
        )
        assert left_out.reply["outcome"] == "routed_to_staff"
        assert left_out.reply["route_reason"] == "drafted_for_review"
        # A question about another subject is drafted too: the memory has nothing on it.
        other = harness.send(
            harness.open_claim("CLM-204518"), "Is my windscreen covered if a stone chips it?"
        )
        assert other.reply["route_reason"] == "drafted_for_review"
        # The leave-out header is honoured on evaluation claims only: a seeded claim ignores it.
        with live.client(TOKENS["CLM-204518"]) as client:
            seeded = client.post(
                "/claims/CLM-204518/messages",
                json={"text": "Can I get a rental car while mine is being repaired?"},
                headers={LEAVE_OUT_HEADER: "Q-HIRE"},
            ).json()
        assert seeded["outcome"] == "answered", seeded
    finally:
        harness.forget()
        harness.close()


def test_an_app_that_does_not_honour_leave_out_ignores_the_header(database_url, corpus_store) -> None:
    """No claimant route reads the evaluation's header: only the middleware development installs
    does. Without it (production's default, or the setting off) the question finds its own
    example, header or not."""
    live = make_live_app(database_url, corpus_store, evaluation_leave_out=False)
    use_model(live, offline_model(Memories(source_of(HIRE), "lexical")))
    harness = Harness(live.url, database_url)
    try:
        sent = harness.send(
            harness.open_claim("CLM-204518"),
            "Can I get a rental car while mine is being repaired?",
            leave_out="Q-HIRE",
        )
        assert sent.reply["outcome"] == "answered", sent.reply
    finally:
        harness.forget()
        harness.close()
        stop_live(live)


def test_a_schedule_only_answer_the_model_doubts_is_drafted(live, database_url) -> None:
    """An answer from the schedule alone quotes no clause, so no clause's mode governs it; the
    model's doubt does: drafted when it doubts, served when it does not."""
    harness = Harness(live.url, database_url)
    try:
        for confident, outcome in ((False, "routed_to_staff"), (True, "answered")):
            use_model(live, scripted([], answer("", schedule_facts=["standard"], confident=confident)))
            sent = harness.send(harness.open_claim("CLM-204518"), "What excess do I pay on a claim?")
            assert sent.reply["outcome"] == outcome, sent.reply
            if not confident:
                assert sent.reply["route_reason"] == "drafted_for_review"
    finally:
        harness.forget()
        harness.close()
