"""What an operator watches (Prometheus): every metric defined here, each counted by one small
function the rest of the code calls. agent.api.metrics serves them on /metrics.

Counters and the latency histogram live in each process; with PROMETHEUS_MULTIPROC_DIR set
(`python -m agent serve` sets it before its workers start) each process writes them to files
there and one scrape adds up every worker. What the database already knows (the waiting list,
the outbox) is read from it at scrape time instead (`database_gauges`), once per scrape, so
no process's copy can go stale.

Labels are bounded sets (outcomes, reasons, families, error class names, event kinds), never
IDs or claimant text: IDs go to the logs.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from datetime import datetime

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session, sessionmaker

from agent.db.tables import OutboxEvent, Turn, WaitingItem, utcnow

log = logging.getLogger(__name__)

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
# The statuses of an item still on the waiting list (agent.db.tables.WAITING).
WAITING_STATUSES = ("open", "taken")
# A turn takes milliseconds offline and up to the turn deadline (60 s by default) with a model.
TURN_SECONDS = (0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120)

TURNS = Counter(
    "clausedesk_turns",
    "Claimants' turns finished, by family, outcome and route reason (nothing_asked for chatter, "
    "none for an answer)",
    ["family", "outcome", "reason"],
)
# Release checks and evaluation runs ask through the same turn code, on scratch databases: their
# turns are no claimant's and are counted apart, by what ran them.
TRIAL_TURNS = Counter(
    "clausedesk_trial_turns",
    "Turns run by a release check or an evaluation (no claimant's), by purpose, family and outcome",
    ["purpose", "family", "outcome"],
)
CLAIMANT, RELEASE_CHECK, EVALUATION = "claimant", "release_check", "evaluation"
TURN_SECONDS_HISTOGRAM = Histogram(
    "clausedesk_turn_seconds",
    "A turn's running time, from its start to its record saved, by outcome",
    ["outcome"],
    buckets=TURN_SECONDS,
)
MODEL_ERRORS = Counter(
    "clausedesk_model_errors",
    "Model requests that failed, by kind (timeout, unreachable, rate_limited, server_error, bad_output, "
    "auth_error, error), and turns whose model work ran past the turn deadline (deadline)",
    ["kind"],
)
STORE_ERRORS = Counter(
    "clausedesk_store_errors",
    "Object store calls that failed (not a missing key), by operation and error class",
    ["operation", "kind"],
)
THROTTLED = Counter(
    "clausedesk_throttled",
    "Requests refused by throttling (429), by the limit that refused them",
    ["scope"],
)
EVENTS_DELIVERED = Counter("clausedesk_events_delivered", "Outbox events delivered (2xx), by kind", ["kind"])
DELIVERY_FAILURES = Counter(
    "clausedesk_event_delivery_failures",
    "Outbox event sends that failed (retried later), by event kind and error",
    ["kind", "error"],
)
MODE_CHANGES = Counter(
    "clausedesk_answering_mode_changes",
    "Answering mode changes of a clause or wording, by family, the mode it moved to, and whether "
    "the system made it (automatic) or a policy owner",
    ["family", "mode", "automatic"],
)
DEMOTIONS = Counter(
    "clausedesk_answering_demotions",
    "Clauses or wordings moved back to drafts by the system when their evidence fell below the bar",
    ["family"],
)
DRAFT_VERDICTS = Counter(
    "clausedesk_draft_verdicts",
    "Handlers' verdicts on drafted answers when they answer the item (sent_as_drafted, kept, added, "
    "added_deciding, missed_sentence, dropped, draft_wrong, cited_nothing), by family",
    ["family", "verdict"],
)


# Counted by the rest of the code ---------------------------------------------------------


def turn_finished(record: Turn, purpose: str = CLAIMANT) -> None:
    """A turn's record is saved (agent.turn.runner.TurnRunner.save, after its transaction).
    `purpose`: whose turn it was: a claimant's, or one a release check or evaluation ran (counted
    apart)."""
    outcome = record.outcome or "none"
    if purpose != CLAIMANT:
        TRIAL_TURNS.labels(purpose, record.family or "none", outcome).inc()
        return
    reason = record.route_reason or ("nothing_asked" if outcome == "nothing_asked" else "none")
    TURNS.labels(record.family or "none", outcome, reason).inc()
    if record.latency_ms is not None:
        TURN_SECONDS_HISTOGRAM.labels(outcome).observe(record.latency_ms / 1000)


def model_error(kind: str) -> None:
    MODEL_ERRORS.labels(kind.removeprefix("model_")).inc()


def store_error(operation: str, kind: str) -> None:
    STORE_ERRORS.labels(operation, kind).inc()


def throttled(scope: str) -> None:
    THROTTLED.labels(scope).inc()


def delivered(kind: str) -> None:
    EVENTS_DELIVERED.labels(kind).inc()


def delivery_failed(kind: str, error: str) -> None:
    DELIVERY_FAILURES.labels(kind, error).inc()


def mode_changed(family: str, version: str, clause_id: str | None, mode: str, automatic: bool) -> None:
    """An answering mode set (agent.answering): a clause's, or the whole wording's when clause_id
    is None. An automatic move back to drafts is also a demotion."""
    MODE_CHANGES.labels(family, mode, "true" if automatic else "false").inc()
    if automatic and mode == "drafts":
        DEMOTIONS.labels(family).inc()
    log.info(
        "answering mode %s %s %s -> %s (%s)",
        family,
        version,
        clause_id or "whole wording",
        mode,
        "automatic" if automatic else "policy owner",
    )


def drafted(family: str, verdict: str) -> None:
    """A handler answered an item that carried a drafted answer, with this verdict on the draft."""
    DRAFT_VERDICTS.labels(family, verdict).inc()


def after_commit(session: Session, count: Callable[[], None]) -> None:
    """Count something the session's transaction writes once it is committed, never when it
    rolls back: for code that runs in its caller's transaction (a mode change, a verdict)."""
    session.info.setdefault(_PENDING, []).append(count)


_PENDING = "clausedesk_metrics_pending"


@event.listens_for(Session, "after_commit")
def _committed(session: Session) -> None:
    for count in session.info.pop(_PENDING, ()):
        count()


@event.listens_for(Session, "after_soft_rollback")
def _rolled_back(session: Session, previous_transaction: object) -> None:
    if not session.in_transaction():  # the outermost transaction went: so did what it wrote
        session.info.pop(_PENDING, None)


# Read at scrape time ---------------------------------------------------------------------


def database_gauges(session: Session, now: datetime | None = None) -> list[Metric]:
    """The waiting list per family (depth by status, age of the oldest item) and the outbox
    (events not yet delivered, age of the oldest), as the database has them now."""
    now = now or utcnow()
    depth = GaugeMetricFamily(
        "clausedesk_waiting_items",
        "Items on the staff waiting list, by family and status",
        labels=["family", "status"],
    )
    oldest = GaugeMetricFamily(
        "clausedesk_waiting_oldest_age_seconds",
        "Age of the oldest item still on the waiting list (open or taken), by family",
        labels=["family"],
    )
    rows = session.execute(
        select(WaitingItem.family, WaitingItem.status, func.count(), func.min(WaitingItem.created_at))
        .where(WaitingItem.status.in_(WAITING_STATUSES))
        .group_by(WaitingItem.family, WaitingItem.status)
    ).all()
    first: dict[str, datetime] = {}
    for family, status, count, created in rows:
        depth.add_metric([family or "none", status], count)
        key = family or "none"
        first[key] = min(first.get(key, created), created)
    for family, created in sorted(first.items()):
        oldest.add_metric([family], max((now - created).total_seconds(), 0.0))
    backlog = GaugeMetricFamily(
        "clausedesk_outbox_backlog", "Outbox events not yet delivered, by kind", labels=["kind"]
    )
    backlog_age = GaugeMetricFamily(
        "clausedesk_outbox_oldest_age_seconds", "Age of the oldest outbox event not yet delivered"
    )
    pending = session.execute(
        select(OutboxEvent.kind, func.count(), func.min(OutboxEvent.created_at))
        .where(OutboxEvent.delivered_at.is_(None))
        .group_by(OutboxEvent.kind)
    ).all()
    for kind, count, _ in pending:
        backlog.add_metric([kind], count)
    if pending:
        backlog_age.add_metric([], max((now - min(p[2] for p in pending)).total_seconds(), 0.0))
    else:
        backlog_age.add_metric([], 0.0)
    return [depth, oldest, backlog, backlog_age]


class _FromDatabase:
    """A collector for one scrape: the database gauges, or `clausedesk_database_up 0` when the
    database cannot be read (the process counters are still served)."""

    def __init__(self, sessions: sessionmaker) -> None:
        self.sessions = sessions

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("clausedesk_database_up", "Whether this scrape could read the database")
        try:
            with self.sessions() as session:
                gauges = database_gauges(session)
        except Exception as exc:  # a scrape reports the outage, it does not fail with it
            log.warning("metrics: database unreadable at scrape: %s", type(exc).__name__)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from gauges


class _ThisProcess:
    """The default registry's collectors (this process's counters, and its own process and
    Python figures), when no multiprocess directory is set."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def exposition(sessions: sessionmaker) -> bytes:
    """The text a scrape gets: every worker's counters (or this process's), then the database's."""
    registry = CollectorRegistry()
    if multiprocess_dir():
        MultiProcessCollector(registry)
    else:
        registry.register(_ThisProcess())  # type: ignore[arg-type]
    registry.register(_FromDatabase(sessions))  # type: ignore[arg-type]
    return generate_latest(registry)
