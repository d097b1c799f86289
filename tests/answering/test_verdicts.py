"""The verdict on a draft, judged by what decides, without a server."""

from __future__ import annotations

from agent.answering.verdicts import judge
from agent.boundary.citation import Quote

RATE = Quote("MTR-BEN-03", "We pay up to NZD 60 a day.")
START = Quote("MTR-BEN-03", "After a theft, this benefit starts on the day you report it.")
TOW = Quote("MTR-BEN-01", "We pay up to NZD 2,000 for towing.")
ABROAD = Quote("MTR-EXC-04", "We do not cover a rental car you hire overseas.")
DUTY = Quote("MTR-CON-01", "You must keep your car roadworthy.")
CAP = Quote("HOM-LIM-02", "We pay at most NZD 5,000 for jewellery.")
TEXT = "From MTR-BEN-03:\n“We pay up to NZD 60 a day.”"


def verdict_on(*args, **kwargs) -> tuple[str, str]:
    """(verdict, outcome): what these tests compare; judge()'s reasons are checked below."""
    judged = judge(*args, **kwargs)
    return judged.verdict, judged.outcome


def test_the_verdict_on_a_draft_is_read_from_what_decides() -> None:
    assert verdict_on(TEXT, [RATE], TEXT, [RATE]) == ("sent_as_drafted", "right")
    assert verdict_on(TEXT, [RATE], "Kia ora. " + TEXT, [RATE]) == ("kept", "right")
    # Only added, nothing that changes the outcome: what decides was in the draft.
    assert verdict_on(TEXT, [RATE], TEXT, [RATE, TOW]) == ("added", "right")
    # An exclusion, a condition or a limit added: the draft left out what decides.
    for deciding in (ABROAD, DUTY, CAP):
        judged = judge(TEXT, [RATE], TEXT, [RATE, deciding])
        assert (judged.verdict, judged.outcome, judged.because) == (
            "added_deciding",
            "wrong",
            (deciding.clause_id,),
        )
    # The draft's clause, but a deciding sentence the draft does not hold.
    assert verdict_on(TEXT, [RATE], TEXT, [RATE, START]) == ("missed_sentence", "wrong")
    # A shorter part of a sentence the draft holds is in it.
    assert verdict_on(TEXT, [RATE], TEXT, [Quote("MTR-BEN-03", "NZD 60 a day")]) == (
        "kept",
        "right",
    )
    assert verdict_on(TEXT, [RATE, TOW], TEXT, [RATE]) == ("dropped", "wrong")
    assert verdict_on(TEXT, [RATE], "Towing.", [TOW]) == ("dropped", "wrong")
    assert verdict_on(TEXT, [RATE], "We'll call you.", []) == ("cited_nothing", "irrelevant")
    assert verdict_on(TEXT, [RATE], TEXT, [RATE], said_wrong=True) == ("draft_wrong", "wrong")


def test_clauses_the_runtime_added_count_on_neither_side() -> None:
    added = {"MTR-EXC-04"}
    # The handler keeps the runtime's exclusion, or leaves it out: neither is an addition or a drop.
    assert verdict_on(TEXT, [RATE, ABROAD], TEXT, [RATE, ABROAD], runtime_added=added) == (
        "sent_as_drafted",
        "right",
    )
    assert verdict_on(TEXT, [RATE, ABROAD], TEXT, [RATE], runtime_added=added) == ("kept", "right")
    assert verdict_on(TEXT, [RATE], TEXT, [RATE, ABROAD], runtime_added=added) == ("kept", "right")
    # Without the mark, the same exclusion cited by the handler decides.
    assert verdict_on(TEXT, [RATE], TEXT, [RATE, ABROAD]) == ("added_deciding", "wrong")


def test_a_quote_of_two_sentences_is_held_when_the_draft_holds_each() -> None:
    """The draft sets each sentence apart (in quotes, on its own line): a handler quoting two
    sentences of one clause at once keeps what the draft held."""
    first, second = "We pay up to NZD 60 a day.", "We pay for up to 21 days for each event."
    draft = f"From the wording:\n“{first}”\n“{second}”"
    quoted = [Quote("MTR-BEN-03", first), Quote("MTR-BEN-03", second)]
    both = [Quote("MTR-BEN-03", f"{first} {second}")]
    assert verdict_on(draft, quoted, draft, both) == ("kept", "right")
    other = [Quote("MTR-BEN-03", f"{first} We do not pay for fuel.")]
    assert verdict_on(draft, quoted, draft, other) == ("missed_sentence", "wrong")
