"""The measurements: the long conversation built by real turns, the claimant turn at its end
timed, and every staff read, the wording page, `affected` and the conversation reads timed
(p50 and p95), within a time budget per measure."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import httpx
from sqlalchemy import select

from agent.db.tables import WaitingItem
from agent.evaluation.growth.shape import FAMILY_PLAN, LONG_CLAIM, QUESTIONS, REASONS, Sizes
from agent.staff.waiting_list import STATUS_FILTERS
from agent.wording.affected import affected

LONG_TOKEN = "dev-claimant-204518"
STAFF_TOKEN = "dev-staff-token-aroha"
BUDGET_S, MIN_CALLS, SLOW_S, CLIENT_TIMEOUT_S = 20.0, 5, 5.0, 180.0


def _percentiles(values: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(values, n=20, method="inclusive") if len(values) > 1 else values * 19
    return {"p50_ms": round(statistics.median(values), 2), "p95_ms": round(cuts[18], 2), "n": len(values)}


def _timed(call: Callable[[], Any], repeat: int) -> dict[str, Any]:
    """`repeat` timed calls after a warm-up. A measure slower than BUDGET_S in all stops after
    MIN_CALLS, and one whose warm-up alone takes SLOW_S is that one call (a scan of a million
    rows would otherwise take the run's hour); a call past the client's timeout is recorded
    as timed out."""
    times: list[float] = []
    try:
        started = time.perf_counter()
        call()  # warm-up, left out unless it is all there is time for
        warm_up = time.perf_counter() - started
        if warm_up >= SLOW_S:
            return {**_percentiles([warm_up * 1000]), "warm_up_only": True}
        while len(times) < repeat and (len(times) < MIN_CALLS or sum(times) < BUDGET_S * 1000):
            started = time.perf_counter()
            call()
            times.append((time.perf_counter() - started) * 1000)
    except httpx.TimeoutException:
        return {
            "p50_ms": CLIENT_TIMEOUT_S * 1000,
            "p95_ms": CLIENT_TIMEOUT_S * 1000,
            "n": len(times) + 1,
            "timed_out": True,
        }
    return _percentiles(times)


def long_conversation(client: httpx.Client, messages: int) -> None:
    """Real turns on the long claim until its conversation holds `messages` messages."""
    for n in range(messages // 2):
        reply = client.post(
            f"/claims/{LONG_CLAIM}/messages",
            json={"text": f"{QUESTIONS[n % len(QUESTIONS)]} ({n})"},
            headers={"Authorization": f"Bearer {LONG_TOKEN}"},
        )
        reply.raise_for_status()


def turn_at_the_end(client: httpx.Client, repeat: int, label: str) -> dict[str, float]:
    counter = iter(range(10**9))

    def ask() -> None:
        reply = client.post(
            f"/claims/{LONG_CLAIM}/messages",
            json={"text": f"Can I get a rental car while mine is being repaired? ({label} {next(counter)})"},
            headers={"Authorization": f"Bearer {LONG_TOKEN}"},
        )
        reply.raise_for_status()

    return _timed(ask, repeat)


def measure_reads(
    client: httpx.Client, sessions: Any, sizes: Sizes, repeat: int, rng: random.Random
) -> dict[str, dict[str, float]]:
    staff = {"Authorization": f"Bearer {STAFF_TOKEN}"}

    def get(path: str, **params: Any) -> Callable[[], None]:
        def call() -> None:
            client.get(path, params=params, headers=staff).raise_for_status()

        return call

    rows: dict[str, dict[str, float]] = {}
    rows["staff list, no filter"] = _timed(get("/staff/api/items"), repeat)
    for status in STATUS_FILTERS:
        rows[f"staff list, status={status}"] = _timed(get("/staff/api/items", status=status), repeat)
    for reason, _ in REASONS:
        rows[f"staff list, status=waiting, reason={reason}"] = _timed(
            get("/staff/api/items", status="waiting", reason=reason), repeat
        )
    for family in FAMILY_PLAN:
        rows[f"staff list, status=waiting, family={family}"] = _timed(
            get("/staff/api/items", status="waiting", family=family), repeat
        )
    rows["staff list, status=waiting, offset 10,000"] = _timed(
        get("/staff/api/items", status="waiting", offset=min(10_000, sizes.waiting // 3)), repeat
    )
    with sessions() as s:
        references = s.scalars(select(WaitingItem.reference).order_by(WaitingItem.id)).all()
    picks = iter(rng.choices(references, k=repeat + 1))
    rows["one item"] = _timed(lambda: get(f"/staff/api/items/{next(picks)}")(), repeat)
    rows["content gaps"] = _timed(get("/staff/api/content-gaps"), repeat)
    rows["wording page (API)"] = _timed(get("/staff/api/wording"), repeat)

    # As the command asks: each kind's total (agent replies, staff answers, drafts) and a page of each.
    def affected_call(clauses: set[str] | None, offset: int = 0) -> Callable[[], None]:
        def call() -> None:
            with sessions() as session:
                affected(session, "motor", "2026.2", clauses, offset=offset)

        return call

    deep = sizes.turns // 10  # about two thirds of the version's replies
    rows["agent affected motor 2026.2"] = _timed(affected_call(None), repeat)
    rows["agent affected motor 2026.2 --clause MTR-BEN-03"] = _timed(affected_call({"MTR-BEN-03"}), repeat)
    rows[f"agent affected motor 2026.2 --offset {deep:,}"] = _timed(affected_call(None, deep), repeat)
    claimant = {"Authorization": f"Bearer {LONG_TOKEN}"}
    rows["conversation read, long claim"] = _timed(
        lambda: client.get(f"/claims/{LONG_CLAIM}/messages", headers=claimant).raise_for_status(), repeat
    )
    claims = iter(rng.choices(range(sizes.claims), k=repeat + 1))

    def random_conversation() -> None:
        claim = f"CLM-G{next(claims):06d}"
        auth = {"Authorization": f"Bearer growth-{claim}"}
        client.get(f"/claims/{claim}/messages", headers=auth).raise_for_status()

    rows["conversation read, generated claim"] = _timed(random_conversation, repeat)
    return rows
