"""`affected` in pages: each kind's exact total and one page of each, oldest first, with the clause
filter exact; the same through the function, the staff API, the wording page and the command
line, and bad page values refused with a reason (SQLite and PostgreSQL)."""

from __future__ import annotations

import csv
import io
import os
import subprocess
from datetime import timedelta

import pytest

from agent.db.tables import Draft, WaitingItem, utcnow
from agent.wording.affected import BadPage, Counts, affected, each_affected
from tests.conftest import STAFF_PASSWORDS
from tests.db import rows
from tests.db.rows import CLAIM
from tests.staff.staff_web import web_login
from tests.staff.test_staff_api import staff
from tests.support import run_agent, seeded_database

# The database is the subject: these run on SQLite and PostgreSQL in every run.
pytestmark = pytest.mark.databases

# Cited by each agent reply, oldest first: MTR-BEN-030 only looks like MTR-BEN-03.
CITED = [
    ["MTR-BEN-03"],
    ["MTR-BEN-01"],
    ["MTR-BEN-01", "MTR-BEN-03"],
    ["MTR-BEN-030"],
    ["MTR-BEN-03"],
    ["MTR-BEN-02"],
    ["MTR-BEN-03", "MTR-BEN-02"],
]


def _fill(sessions) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    """Seven agent replies, three staff answers and two drafts on motor 2026.2, and some that
    stood on other versions; returns the refs of each kind, oldest first."""
    start = utcnow() - timedelta(days=10)
    refs: dict[str, list[str]] = {"agent": [], "staff": [], "draft": []}
    with sessions.begin() as s:
        for n, cited in enumerate(CITED):
            turn = rows.turn(s, n, returned=cited, cited=cited, started_at=start + timedelta(hours=n))
            refs["agent"].append(turn.id)
        rows.turn(s, 20, version="2025.1", cited=["MTR-BEN-03"], started_at=start)
        rows.turn(s, 21, cited=[], outcome="routed_to_staff", started_at=start)  # cited nothing
        for n, (version, quoted) in enumerate(
            [("2026.2", []), ("2025.1", ["2026.2"]), ("2026.2", ["2026.2"])]
        ):
            item = rows.answered_item(
                s,
                f"WL-8{n:05d}",
                version,
                quoted,
                answered_by="aroha.staff",
                answered_at=start + timedelta(days=1, hours=n),
            )
            refs["staff"].append(item.reference)
        s.add(WaitingItem(reference="WL-899999", claim_id=CLAIM, family="motor", question="?", reason="x"))
        s.flush()
        waiting = s.query(WaitingItem).filter_by(reference="WL-899999").one()
        for n, version in enumerate(["2026.2", "2025.1", "2026.2"]):
            cited = [{"clause_id": "MTR-BEN-01" if n else "MTR-BEN-03", "version": version, "title": "t"}]
            draft = Draft(
                item_id=waiting.id,
                made_at=start + timedelta(days=2, hours=n),
                origin="turn",
                text="draft",
                citations=cited,
                family="motor",
                version=version,
                content_hash="h",
                claim_status="open",
            )
            s.add(draft)
            if version == "2026.2":
                refs["draft"].append(waiting.reference)
    return refs


def _refs(found) -> tuple[list[str], list[str], list[str]]:  # type: ignore[no-untyped-def]
    return [r.ref for r in found.agent], [r.ref for r in found.staff], [r.ref for r in found.drafts]


def test_pages_of_each_kind_add_up_to_the_whole_list_and_its_totals(database_url) -> None:
    engine, sessions = seeded_database(database_url)
    refs = _fill(sessions)
    agent = refs["agent"]
    with sessions() as s:
        pages = [affected(s, "motor", "2026.2", limit=3, offset=o) for o in (0, 3, 6, 9)]
        every = list(each_affected(s, "motor", "2026.2"))
        clause = [affected(s, "motor", "2026.2", {"MTR-BEN-03"}, limit=2, offset=o) for o in (0, 2)]
        both = affected(s, "motor", "2026.2", {"MTR-BEN-03", "MTR-BEN-01"}, limit=10)
        every_both = list(each_affected(s, "motor", "2026.2", {"MTR-BEN-03", "MTR-BEN-01"}))
        older = affected(s, "motor", "2025.1")
        for limit, offset in ((0, 0), (1001, 0), (1, -1)):
            with pytest.raises(BadPage):
                affected(s, "motor", "2026.2", limit=limit, offset=offset)
    engine.dispose()

    assert {p.totals for p in pages} == {Counts(7, 3, 2)}
    assert [p.next_offset for p in pages] == [3, 6, None, None]
    assert [_refs(p) for p in pages] == [
        (agent[0:3], refs["staff"], refs["draft"]),
        (agent[3:6], [], []),
        (agent[6:], [], []),
        ([], [], []),
    ]
    # Everything, in pages or at once: each kind oldest first, agent replies, staff answers, drafts.
    assert [(r.kind, r.ref) for r in every] == [
        *(("agent", a) for a in agent),
        *(("staff", r) for r in refs["staff"]),
        *(("draft", r) for r in refs["draft"]),
    ]
    assert [r.at for r in every[:7]] == sorted(r.at for r in every[:7])
    assert every[2].cited == ["MTR-BEN-01", "MTR-BEN-03"] and every[2].detail == "answered"
    # One clause: exactly the replies citing it (not MTR-BEN-030), staff answers quoting it in
    # this version, drafts citing it.
    assert {p.totals for p in clause} == {Counts(4, 2, 1)}
    assert [_refs(p)[0] for p in clause] == [[agent[0], agent[2]], [agent[4], agent[6]]]
    assert [p.next_offset for p in clause] == [2, None]
    # Two clauses: a reply citing both is one reply.
    assert both.totals == Counts(5, 2, 2)
    assert _refs(both)[0] == [agent[0], agent[1], agent[2], agent[4], agent[6]]
    assert [r.ref for r in every_both if r.kind == "agent"] == _refs(both)[0]
    # An answer sent under 2025.1 quoting 2026.2 stood on both.
    assert older.totals == Counts(1, 1, 1)


@pytest.fixture
def filled(staff_live):
    staff_live.refs = _fill(staff_live.app.state.services.sessions)
    return staff_live


def test_the_staff_api_pages_with_totals_and_refuses_bad_page_values(filled) -> None:
    with staff(filled) as aroha:
        url = "/staff/api/wording/motor/2026.2/affected"
        first = aroha.get(url, params={"limit": 3}).json()
        assert first["totals"] == {"agent_replies": 7, "staff_answers": 3, "drafts": 2}
        assert (first["limit"], first["offset"], first["next_offset"]) == (3, 0, 3)
        assert [len(first[k]) for k in ("agent_replies", "staff_answers", "drafts")] == [3, 3, 2]
        last = aroha.get(url, params={"limit": 3, "offset": 6}).json()
        assert last["next_offset"] is None and len(last["agent_replies"]) == 1
        assert last["agent_replies"][0]["cited"] == ["MTR-BEN-03", "MTR-BEN-02"]
        assert (last["staff_answers"], last["drafts"]) == ([], [])
        default = aroha.get(url).json()
        assert (default["limit"], len(default["agent_replies"]), default["next_offset"]) == (50, 7, None)
        clauses = aroha.get(url, params=[("clause", "MTR-BEN-03"), ("clause", "MTR-BEN-01")]).json()
        assert clauses["clauses"] == ["MTR-BEN-01", "MTR-BEN-03"]
        assert clauses["totals"] == {"agent_replies": 5, "staff_answers": 2, "drafts": 2}
        one = aroha.get(url, params={"clause": "MTR-BEN-030"}).json()
        assert one["totals"]["agent_replies"] == 1

        for bad in (
            {"limit": 0},
            {"limit": 1001},
            {"limit": "ten"},
            {"offset": -1},
            {"offset": "1.5"},
            {"offset": 1_000_001},
            {"page": 2},
            {"clause": ""},
            {"clause": "X" * 41},
            [("clause", f"MTR-BEN-{n:02d}") for n in range(21)],
        ):
            refused = aroha.get(url, params=bad)
            assert refused.status_code == 422, (bad, refused.text)
            assert refused.json()["detail"], bad


def test_the_wording_page_shows_totals_and_links_to_the_next_page(filled) -> None:
    with filled.client() as browser:
        assert web_login(browser, "mere.staff", STAFF_PASSWORDS["mere.staff"]).status_code == 303
        page = browser.get("/staff/wording/motor/2026.2/affected")
        assert page.status_code == 200
        assert "Agent replies (7)" in page.text and "Staff answers (3)" in page.text
        assert "showing 1–7 of 7" in page.text and "Next page" not in page.text
        far = browser.get("/staff/wording/motor/2026.2/affected", params={"offset": "5"})
        assert "showing 6–7 of 7" in far.text and "None on this page." in far.text
        assert 'href="/staff/wording/motor/2026.2/affected?offset=0"' in far.text
        # A hand-edited offset gets the first page.
        assert "showing 1–7 of 7" in browser.get("/staff/wording/motor/2026.2/affected?offset=x").text


def _cli(live, *args: str) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    env = dict(os.environ, CLAUSEDESK_DATABASE_URL=live.app.state.services.settings.database_url)
    return run_agent("affected", "motor", "2026.2", *args, env=env, timeout=60)


@pytest.mark.slow  # a process of its own
def test_the_command_line_says_what_it_shows_and_how_to_get_the_rest(filled) -> None:
    refs = filled.refs
    paged = _cli(filled, "--limit", "2", "--offset", "2")
    assert paged.returncode == 0, paged.stderr
    lines = paged.stdout.strip().splitlines()
    assert len(lines) == 5 and all("agent reply, turn" in line for line in lines[:2])
    assert f"staff answer, {refs['staff'][2]}" in lines[2] and "cited MTR-BEN-03" in lines[2]
    assert lines[3] == (
        "10 replies relied on motor 2026.2: 7 agent replies, 3 staff answers; 2 drafts were made from it"
    )
    assert lines[4] == (
        "showing 3–4 of 7 agent replies, 3–3 of 3 staff answers, 0 of 2 drafts, oldest first; "
        "next page: --offset 4, every row: --all (or --csv)"
    )
    clause = _cli(filled, "--clause", "MTR-BEN-03", "--limit", "50")
    assert clause.stdout.strip().splitlines()[-1] == (
        "showing 1–4 of 4 agent replies, 1–2 of 2 staff answers, 1–1 of 1 drafts, oldest first"
    )

    every = _cli(filled, "--all")
    assert every.returncode == 0, every.stderr
    lines = every.stdout.strip().splitlines()
    assert len(lines) == 13 and lines[-1].startswith("10 replies relied on motor 2026.2: 7 agent replies")
    table = list(csv.reader(io.StringIO(_cli(filled, "--csv").stdout)))
    assert table[0] == ["kind", "at", "claim_id", "ref", "detail", "cited"]
    assert [row[0] for row in table[1:]] == ["agent"] * 7 + ["staff"] * 3 + ["draft"] * 2
    assert table[3][5] == "MTR-BEN-01 MTR-BEN-03"

    for args, says in (
        (("--limit", "0"), "argument --limit: must be between 1 and 1000, not 0"),
        (("--limit", "many"), "argument --limit: must be a whole number, not 'many'"),
        (("--offset", "-5"), "argument --offset: must be a whole number, not '-5'"),
        (("--all", "--offset", "5"), "--all and --csv list every row; leave out --limit and --offset"),
        (("--all", "--csv"), "not allowed with argument"),
    ):
        refused = _cli(filled, *args)
        assert refused.returncode == 2 and says in refused.stderr, (args, refused.stderr)
