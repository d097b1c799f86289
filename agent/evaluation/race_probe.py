"""`python -m agent probe races`: the races of issue 40 through HTTP against two `serve`
processes on one database (PostgreSQL by default), each trial's requests released together.

Per trial:
- approvals: motor and home drafts of their own approved at once, one on each process, with the
  same motor approval sent to the second process too; then both withdrawn at once, one on each.
  Counted: approvals or withdrawals lost (answered 200 but not in the manifest), audit rows
  beyond one per change.
- evidence: the clauses one question is answered from are put back in `answers`, the question
  is asked twice (two served answers), then two handlers flag the first answer and a third the
  second, at once, across the two processes. Counted: evidence rows beyond one per key, clause
  fall backs and `clause_demoted` events beyond one per clause per trial.
And every 5xx. Exits 1 on any of these.
"""

from __future__ import annotations

import re
import tempfile
import threading
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, select

from agent.answering.modes import set_mode
from agent.db.tables import AnsweringMode, Evidence, OutboxEvent, ReleaseCheck, WordingAudit
from agent.evaluation.harness import Harness
from agent.evaluation.probes import (
    SEED_CLAIM,
    _say,
    corpus_store,
    fresh_database,
    prepare,
    start_server,
)
from knowledge.ingest import ingest
from knowledge.manifest import Registry
from knowledge.source import parse_wording
from knowledge.store import ObjectStore

OWNER, HANDLERS = "dev-staff-token-mere", ("dev-staff-token-aroha", "dev-staff-token-tama")
BASES = {"motor": "policies/motor/2027.1.md", "home": "policies/home/2026.2.md"}
QUESTION = "Can I get a rental car while mine is being repaired?"


def at_once(calls: list[Callable[[], httpx.Response]]) -> list[httpx.Response]:
    """Every call started together (a barrier), in threads of their own."""
    barrier = threading.Barrier(len(calls))

    def go(call: Callable[[], httpx.Response]) -> httpx.Response:
        barrier.wait()
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(go, calls))


def post(http: httpx.Client, url: str, token: str, body: dict[str, Any]) -> Callable[[], httpx.Response]:
    return lambda: http.post(url, json=body, headers={"Authorization": f"Bearer {token}"})


def drafts(store: ObjectStore, sessions: Any, root: Path, trials: int) -> None:
    """A motor and a home draft per trial (copies of the corpus wordings under versions of their
    own), each with a release check on record, as an approval needs."""
    for family, base in BASES.items():
        text = (root / base).read_text(encoding="utf-8")
        for n in range(trials):
            version = f"2100.{n + 1}"
            copy = re.sub(r"(?m)^version: .*$", f"version: {version}", text, count=1)
            ingest(store, parse_wording(f"policies/{family}/{version}.md", copy))
    manifest, _ = Registry(store).read()
    with sessions.begin() as session:
        for family in BASES:
            for n in range(trials):
                entry = manifest.entry(family, f"2100.{n + 1}")
                session.add(
                    ReleaseCheck(
                        id=f"RC-{uuid.uuid4().hex[:8]}",
                        family=family,
                        version=entry.version,
                        content_hash=entry.content_hash,
                        model_name="probe",
                        created_by="probe races",
                    )
                )


def check_of(sessions: Any, family: str, version: str) -> str:
    with sessions() as session:
        return session.scalar(
            select(ReleaseCheck.id).where(ReleaseCheck.family == family, ReleaseCheck.version == version)
        )


def audit_rows(sessions: Any, action: str, family: str, version: str) -> int:
    with sessions() as session:
        return session.scalar(
            select(func.count()).where(
                WordingAudit.action == action, WordingAudit.family == family, WordingAudit.version == version
            )
        )


# A raced wording action: the noun its figures are named by and the status it leaves behind.
CHANGES = {"approve": ("approval", "approved"), "withdraw": ("withdrawal", "withdrawn")}


def count_changes(
    figures: Counter,
    store: ObjectStore,
    sessions: Any,
    action: str,
    version: str,
    responses: list[httpx.Response],
) -> None:
    """Count the motor and home changes of one raced action (the first two responses, in that
    order): each made, each lost (answered 200 but not in the manifest), audit rows beyond one."""
    noun, status = CHANGES[action]
    manifest, _ = Registry(store).read()
    for family, response in zip(("motor", "home"), responses, strict=False):
        figures[f"{noun}s"] += 1
        if response.status_code == 200 and manifest.entry(family, version).status != status:
            figures[f"{noun}s_lost"] += 1
        figures[f"extra_{noun}_audit_rows"] += max(0, audit_rows(sessions, action, family, version) - 1)


def run_races(*, trials: int = 20, database: str = "postgresql") -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="clausedesk-races-"))
    root = Path(__file__).resolve().parents[2]
    s3, store_settings = corpus_store()
    store = ObjectStore(store_settings)
    figures: Counter = Counter()
    statuses: Counter = Counter()
    servers = []
    try:
        with fresh_database(database, folder) as database_url:
            prepare(database_url, store_settings)
            harness = Harness("http://unused.invalid", database_url)
            sessions = harness.sessions
            drafts(store, sessions, root, trials)
            servers = [start_server(database_url, store_settings, folder / f"server-{i}.log") for i in (0, 1)]
            a, b = (s.url for s in servers)
            _say(f"{trials} trials on {database} against {a} and {b}, logs in {folder}")
            http = httpx.Client(timeout=120)

            def note(responses: list[httpx.Response]) -> None:
                for r in responses:
                    statuses[r.status_code] += 1

            for n in range(trials):
                version = f"2100.{n + 1}"
                start = date(2100 + n, 1, 1).isoformat()
                motor = {"effective_from": start, "check_id": check_of(sessions, "motor", version)}
                home = {"effective_from": start, "check_id": check_of(sessions, "home", version)}
                approvals = at_once(
                    [
                        post(http, f"{a}/staff/api/wording/motor/{version}/approve", OWNER, motor),
                        post(http, f"{b}/staff/api/wording/home/{version}/approve", OWNER, home),
                        post(http, f"{b}/staff/api/wording/motor/{version}/approve", OWNER, motor),
                    ]
                )
                note(approvals)
                count_changes(figures, store, sessions, "approve", version, approvals)
                reason = {"reason": "probe races"}
                withdrawals = at_once(
                    [
                        post(http, f"{a}/staff/api/wording/motor/{version}/withdraw", OWNER, reason),
                        post(http, f"{b}/staff/api/wording/home/{version}/withdraw", OWNER, reason),
                    ]
                )
                note(withdrawals)
                count_changes(figures, store, sessions, "withdraw", version, withdrawals)
                evidence_trial(http, harness, sessions, a, b, figures, note)
            http.close()
            harness.close()
            for server in servers:
                server.require_answering("after the races")
    finally:
        for server in servers:
            server.stop()
        s3.stop()
    figures["5xx"] = sum(v for k, v in statuses.items() if k >= 500)
    return {
        "probe": "races",
        "database": database,
        "trials": trials,
        **dict(sorted(figures.items())),
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
    }


def evidence_trial(http, harness, sessions, a, b, figures, note) -> None:  # type: ignore[no-untyped-def]
    claim = harness.open_claim(SEED_CLAIM)
    ask = {"Authorization": f"Bearer {claim.token}"}
    turns = [
        http.post(
            f"{url}/claims/{claim.claim_id}/messages", json={"text": f"{QUESTION} ({n})"}, headers=ask
        ).json()
        for n, url in ((1, a), (2, b))
    ]
    if any(t.get("outcome") != "answered" for t in turns):
        figures["evidence_trials_not_served"] += 1
        return
    with sessions() as session:
        demoted_before = session.scalar(select(func.count()).where(AnsweringMode.automatic.is_(True)))
        events_before = session.scalar(select(func.count()).where(OutboxEvent.kind == "clause_demoted"))
    one, two = (t["turn_id"] for t in turns)
    flags = at_once(
        [
            post(http, f"{a}/staff/api/turns/{one}/flag", HANDLERS[0], {"question": None}),
            post(http, f"{b}/staff/api/turns/{one}/flag", HANDLERS[1], {"question": None}),
            post(http, f"{b}/staff/api/turns/{two}/flag", OWNER, {"question": None}),
        ]
    )
    note(flags)
    figures["evidence_trials"] += 1
    quoted = {c["clause_id"] for t in turns for c in t["citations"]}
    with sessions() as session:
        for turn in (one, two):
            rows = session.scalar(select(func.count()).where(Evidence.key == f"flag-{turn}"))
            figures["extra_evidence_rows"] += max(0, rows - 1)
        demoted = (
            session.scalar(select(func.count()).where(AnsweringMode.automatic.is_(True))) - demoted_before
        )
        events = (
            session.scalar(select(func.count()).where(OutboxEvent.kind == "clause_demoted")) - events_before
        )
    figures["clause_fall_backs"] += demoted
    figures["extra_fall_backs"] += max(0, demoted - len(quoted))
    figures["extra_demotion_events"] += max(0, events - len(quoted))
    family, version = turns[0]["release"]["family"], turns[0]["release"]["version"]
    with sessions.begin() as session:  # the quoted clauses answer again for the next trial
        for cid in sorted(quoted):
            set_mode(session, family, version, cid, "answers", by="probe races")


FAILING = (
    "approvals_lost",
    "withdrawals_lost",
    "extra_approval_audit_rows",
    "extra_withdrawal_audit_rows",
    "extra_evidence_rows",
    "extra_fall_backs",
    "extra_demotion_events",
    "5xx",
)
