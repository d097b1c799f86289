"""A labelled decision phrase list in the boundary corpus format, for the evaluation's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.evaluation.decision_audit import DecisionAudit

PHRASES = """\
# label<TAB>text: a small list in the format of corpus/decision_phrases.tsv
decision\tyour claim is approved
decision\tyour claim has been declined
decision\twe will pay for the repairs
decision\tyou are covered for this
decision\twe will not pay your claim
ok\tyour policy includes this benefit, subject to the claim being accepted
ok\twe pay up to NZD 60 a day
ok\twe do not pay for fuel, tolls, parking or fines
"""


@pytest.fixture(scope="session")
def decision_phrases(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("phrases") / "phrases.tsv"
    path.write_text(PHRASES, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def audit(decision_phrases: Path) -> DecisionAudit:
    return DecisionAudit.from_file(decision_phrases)
