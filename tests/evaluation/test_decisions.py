"""The evaluation's decision audit: its own labelled list, not the runtime's regex."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.evaluation.decision_audit import DecisionAudit, PhraseFileError, load_phrases


def test_a_labelled_decision_phrase_is_found_in_any_case_and_quote_style(audit: DecisionAudit) -> None:
    assert audit.find("Good news — YOUR CLAIM IS APPROVED.") == "your claim is approved"
    assert audit.find("You’re covered for this, don't worry") == "you are covered for this"


def test_patterns_built_from_the_phrases_catch_rewordings(audit: DecisionAudit) -> None:
    assert audit.find("Your claim has now been approved by us.") == "your claim is approved (pattern)"
    assert audit.find("We'll definitely pay for all the repairs.") == "we will pay for the repairs (pattern)"
    assert audit.find("We won't pay your claim.") == "we will not pay your claim"


def test_quoted_wording_and_ok_phrases_are_not_decisions(audit: DecisionAudit) -> None:
    reply = (
        "MTR-BEN-03 says: “We pay up to NZD 60 a day.” "
        "Your policy includes this benefit, subject to the claim being accepted."
    )
    assert audit.find(reply, ["We pay up to NZD 60 a day."]) is None
    # A quote may say what the wording says; the same words outside it are the reply's own.
    assert audit.find("“You are covered for this event.”", ["You are covered for this event."]) is None


def test_a_phrase_found_in_an_ok_text_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "p.tsv"
    path.write_text("decision\twe pay\ndecision\tcovered!\nok\twe pay up to NZD 60 a day\n", encoding="utf-8")
    audit = DecisionAudit.from_file(path)
    assert audit.find("We pay up to NZD 60 a day.") is None
    assert audit.find("We definitely pay it.") is None  # the pattern would have matched the ok text
    assert audit.find("Covered!") == "covered!"
    path.write_text(path.read_text() + "ok\tthe roof was covered with a tarp\n", encoding="utf-8")
    assert DecisionAudit.from_file(path).find("Covered!") is None


def test_a_malformed_or_missing_list_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PhraseFileError, match="not found"):
        load_phrases(tmp_path / "missing.tsv")
    bad = tmp_path / "bad.tsv"
    bad.write_text("maybe\tyour claim is approved\n", encoding="utf-8")
    with pytest.raises(PhraseFileError, match=r"bad.tsv:1"):
        load_phrases(bad)
