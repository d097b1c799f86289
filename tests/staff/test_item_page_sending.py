"""The item page over plain HTTP (issue 38 Build 2, issue 41 Staff): send as drafted keeps the
claimant's words only as the form beside the button shows them; the words a model wrote are
marked and must be confirmed; the inferred verdict is shown and corrected in one click; an
edited draft sent with a refused citation shows the page with the reason and the edited text,
never raw JSON; emptied citation rows do not count; the page states the API's limits."""

from __future__ import annotations

import html
import re
from contextlib import contextmanager

from tests.answering.support import drafting
from tests.conftest import STAFF_PASSWORDS
from tests.staff.staff_web import csrf_of, web_login
from tests.staff.test_item_form import hidden
from tests.staff.test_send_as_drafted import (
    LEAD,
    RATE,
    REPAIRER,
    THEFT,
    drafted,
    drafted_from_two_clauses,
    evidence_of,
)
from tests.turn.test_claim_turns import use_style


@contextmanager
def logged_in(live):  # type: ignore[no-untyped-def]
    with live.client() as browser:
        assert web_login(browser, "aroha.staff", STAFF_PASSWORDS["aroha.staff"]).status_code == 303
        yield browser


def alert(page) -> str:  # type: ignore[no-untyped-def]
    found = re.search(r'role="alert">(.*?)</p>', page.text, re.S)
    return html.unescape(found.group(1)) if found else ""


def test_send_as_drafted_keeps_the_words_as_shown_and_the_verdict_is_corrected_in_one_click(
    live, database_url
) -> None:
    drafting(database_url)
    question = "My name is Aroha Ngata, how many days of hire car do I get?"
    ref = drafted(live, question, ["MTR-BEN-03"], ("MTR-BEN-03", RATE))
    with logged_in(live) as browser:
        page = browser.get(f"/staff/items/{ref}")
        send_form = page.text[page.text.index('id="send-draft"') :]
        send_form = send_form[: send_form.index("</form>")]
        # Beside the button: the claimant's words, editable, kept only when ticked, or declined.
        assert f">{question}</textarea>" in send_form
        assert 'name="keep_question" value="yes"' in send_form and 'value="decline"' in send_form
        sent = browser.post(
            f"/staff/items/{ref}/send-draft",
            data={
                "csrf": csrf_of(page),
                "draft_id": hidden(page, "draft_id"),
                "keep_question": "yes",
                "question": "How many days of hire car do I get?",
            },
            follow_redirects=False,
        )
        assert sent.status_code == 303, alert(sent)
        row = evidence_of(database_url, ref)
        assert (row.verdict, row.question) == ("sent_as_drafted", "How many days of hire car do I get?")

        answered = browser.get(f"/staff/items/{ref}")
        assert re.search(r'class="verdict">sent as drafted</strong> \(right\)', answered.text)
        fixed = browser.post(
            f"/staff/items/{ref}/verdict",
            data={"csrf": csrf_of(answered), "outcome": "wrong"},
            follow_redirects=False,
        )
        assert fixed.status_code == 303
        assert (evidence_of(database_url, ref).verdict, evidence_of(database_url, ref).outcome) == (
            "said_wrong",
            "wrong",
        )
        assert "The verdict on the draft is corrected." in browser.get(fixed.headers["location"]).text

    # Not ticked: the claimant's words are not kept, whatever the box beside the button holds.
    ref = drafted(live, "How long is the hire car?", ["MTR-BEN-03"], ("MTR-BEN-03", RATE))
    with logged_in(live) as browser:
        page = browser.get(f"/staff/items/{ref}")
        data = {"csrf": csrf_of(page), "draft_id": hidden(page, "draft_id"), "question": "How long?"}
        assert (
            browser.post(f"/staff/items/{ref}/send-draft", data=data, follow_redirects=False).status_code
            == 303
        )
    assert evidence_of(database_url, ref).question is None


def test_an_edited_draft_with_a_refused_citation_comes_back_as_the_page_with_the_reason(
    live, database_url
) -> None:
    drafting(database_url)
    ref = drafted_from_two_clauses(live)
    with logged_in(live) as browser:
        page = browser.get(f"/staff/items/{ref}")
        browser.post(f"/staff/items/{ref}/take", data={"csrf": csrf_of(page)})
        page = browser.get(f"/staff/items/{ref}")
        edited = "Kia ora Aroha, here is what your policy says.\n\nWe pay for the hire car."
        rows = [
            ("MTR-BEN-03", RATE),
            ("MTR-BEN-03", THEFT),
            ("MTR-BEN-03", REPAIRER),
            ("MTR-BEN-01", "We tow"),
        ]
        form = {
            "csrf": csrf_of(page),
            "text": edited,
            "clause_id": [c for c, _ in rows] + [""],
            "quote": [q for _, q in rows] + [""],
            **{f: hidden(page, f) for f in ("basis_message", "basis_family", "basis_version", "basis_hash")},
            "basis_status": hidden(page, "basis_status"),
        }
        refused = browser.post(f"/staff/items/{ref}/answer", data=form)
        assert refused.status_code == 422
        assert refused.headers["content-type"].startswith("text/html")
        assert alert(refused).startswith("Citation refused: motor wording 2026.2:")
        assert alert(refused).endswith("Not sent: your text is kept below.")
        assert html.escape(edited, quote=False) in refused.text  # the edited text is still there
        # Four quotes and a free row; the page says the API's limits.
        assert page.text.count('name="clause_id"') == 5
        assert "up to 3 clauses, any number of their sentences" in page.text
        assert "up to 6" not in page.text

        # Emptied, the refused row does not count: the answer goes out.
        form["clause_id"][3] = form["quote"][3] = ""
        form["csrf"] = csrf_of(refused)
        sent = browser.post(f"/staff/items/{ref}/answer", data=form, follow_redirects=False)
        assert sent.status_code == 303, alert(sent)
    row = evidence_of(database_url, ref)
    assert (row.verdict, row.outcome) == ("dropped", "wrong")  # the towing clause was left out


def test_words_a_model_wrote_are_marked_on_the_page_and_must_be_confirmed(live, database_url) -> None:
    drafting(database_url)
    use_style(live, "explained")
    ref = drafted(
        live, "Do I get a hire car while mine is repaired?", ["MTR-BEN-03"], ("MTR-BEN-03", RATE), lead=LEAD
    )
    with logged_in(live) as browser:
        page = browser.get(f"/staff/items/{ref}")
        marked = page.text[page.text.index('id="model-words"') :]
        assert "Words a model wrote" in marked[:300] and LEAD in marked[:400]
        data = {"csrf": csrf_of(page), "draft_id": hidden(page, "draft_id")}
        unconfirmed = browser.post(f"/staff/items/{ref}/send-draft", data=data)
        assert unconfirmed.status_code == 422
        assert "the draft holds words a model wrote" in alert(unconfirmed)
        data["csrf"], data["model_words"] = csrf_of(unconfirmed), "confirmed"
        assert (
            browser.post(f"/staff/items/{ref}/send-draft", data=data, follow_redirects=False).status_code
            == 303
        )
    assert evidence_of(database_url, ref).verdict == "sent_as_drafted"
