"""Probes from outside the suite (`python -m agent probe load|store-outage|fuzz`): the running
system as an operator runs it, `python -m agent serve` processes on a fresh database and a
local S3 server with the corpus, driven over HTTP and then read back from the database.

load          16 claimants (one claim each, one message at a time, each with its own
              Idempotency-Key, retried on the other process when one fails) for 60 s against
              two serve processes on PostgreSQL; one is killed with SIGKILL 40 % of the way in.
store-outage  the same, with the object store killed (SIGKILL) at a third; at two thirds it is
              restarted and the corpus re-ingested, and the claimants go on for a third of the
              run once it is back: outcomes and route reasons by when each turn finished.
fuzz          schemathesis (agent.evaluation.fuzzing) against one serve process on SQLite and
              one on PostgreSQL: cases, 5xx and contract violations per database.

What load and store-outage report, from the database after the run (and the recovery sweep):
sent (messages the claimants sent, one Idempotency-Key each), acknowledged (a 200 came back),
lost (acknowledged but not stored), duplicated (stored or answered more than once), out of
order (stored, or answered, in another order than sent), unanswered (stored without a turn
once the sweep has run), 5xx (responses), connection errors (the killed process's, retried).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, select, text
from sqlalchemy.orm import sessionmaker

from agent.db.tables import Message, Turn, make_engine, make_sessionmaker, upgrade, utcnow
from agent.evaluation.harness import EvalClaim, Harness, answer_everything, reload_knowledge
from agent.evaluation.localstore import LocalS3, LoopbackProcess, free_port, start_local_s3
from agent.evaluation.serving import serve_environment, start_serve
from agent.seed import seed_policies, seed_staff
from knowledge.errors import KnowledgeUnavailable
from knowledge.settings import StoreSettings
from knowledge.store import ObjectStore

POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432"
METRICS_TOKEN = "probe-metrics-token-" + "0" * 24
# A probe is about what happens to messages, not about throttling them.
OPEN_LIMITS = {
    f"CLAUSEDESK_LIMIT_{name}": "1000000/minute"
    for name in (
        "LOGIN_PER_ACCOUNT",
        "LOGIN_PER_ACCOUNT_ADDRESS",
        "LOGIN_PER_ADDRESS",
        "ACCESS_CODE_PER_ADDRESS",
        "ACCESS_CODE_PER_CLAIM",
        "ACCESS_CODE_PER_CLAIM_ADDRESS",
        "MESSAGES_PER_CLAIM",
    )
}
# What the claimants say in turn: questions the corpus answers, one it does not, and thanks.
QUESTIONS = (
    "Can I get a rental car while mine is being repaired?",
    "What is my excess?",
    "Is my windscreen covered?",
    "Thanks!",
    "Will you pay for my holiday flights?",
    "How long can I keep the rental car?",
)
SEED_CLAIM = "CLM-204518"


# The system under probe ---------------------------------------------------------------------


@contextmanager
def fresh_database(kind: str, folder: Path) -> Iterator[str]:
    """A new, empty database of this kind (PostgreSQL at 127.0.0.1:5432, dropped afterwards)."""
    if kind == "sqlite":
        yield f"sqlite:///{folder / 'probe.db'}"
        return
    name = f"clausedesk_probe_{uuid.uuid4().hex[:10]}"
    admin = create_engine(f"{POSTGRES}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield f"{POSTGRES}/{name}"
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def corpus_store(port: int | None = None) -> tuple[LocalS3, StoreSettings]:
    s3 = start_local_s3(port)
    settings = StoreSettings(
        endpoint=s3.endpoint, bucket="probe", access_key="probe", secret_key="probe-secret"
    )
    for attempt in range(5):
        try:
            reload_knowledge(ObjectStore(settings))  # idempotent: a second try finishes the first
            break
        except KnowledgeUnavailable:
            # moto's first answers (it loads its backends) can outlast the store's read timeout
            # on a loaded machine.
            if attempt == 4:
                s3.stop()
                raise
            time.sleep(1)
    return s3, settings


def prepare(database_url: str, store: StoreSettings) -> None:
    """Migrated and seeded (development claims and staff); Kowhai's wordings answer claimants."""
    engine = make_engine(database_url)
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    seed_policies(sessions)
    seed_staff(sessions)
    answer_everything(sessions, ObjectStore(store))
    engine.dispose()


class ProbeFailed(RuntimeError):
    """The probe could not measure what it says it measures (its own process did not answer)."""


@dataclass
class Server(LoopbackProcess):
    # The name this serve process reports on /health (CLAUSEDESK_INSTANCE): proof that what
    # answers on the port is this process, not another listener that got the port first.
    instance: str = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answering(self) -> bool:
        """Alive, and /health on its port names this process."""
        if self.process.poll() is not None:
            return False
        try:
            health = httpx.get(f"{self.url}/health", timeout=10).json()
        except (httpx.HTTPError, ValueError):
            return False
        return isinstance(health, dict) and health.get("instance") == self.instance

    def require_answering(self, what: str) -> None:
        if not self.answering():
            code = self.process.poll()
            state = f"exited with code {code}" if code is not None else "alive, but not the one answering"
            raise ProbeFailed(f"{what}: serve process {self.process.pid} on port {self.port} {state}")

    def stop(self, timeout_s: float = 15) -> None:
        """A serve process is given longer than the store: it finishes its requests first."""
        super().stop(timeout_s)


def start_server(database_url: str, store: StoreSettings, log: Path, timeout_s: float = 120) -> Server:
    """A serve process, once /health on its port names it (a port that merely opened may be
    another listener's: the port is picked, then bound, and something else can take it)."""
    port, instance = free_port(), f"probe-{uuid.uuid4().hex[:12]}"
    env = serve_environment(
        database_url,
        store,
        CLAUSEDESK_METRICS_TOKEN=METRICS_TOKEN,
        CLAUSEDESK_INSTANCE=instance,
        **OPEN_LIMITS,
    )
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # each serve makes its own
    with log.open("ab") as out:
        process = start_serve(port, env, output=out)
    server = Server(port, process, instance)
    deadline = time.monotonic() + timeout_s
    while not server.answering():
        if process.poll() is not None or time.monotonic() > deadline:
            server.stop()
            server.require_answering(f"starting (log: {log})")
        time.sleep(0.2)
    return server


def scrape(server: Server) -> dict[str, float]:
    """The server's /metrics, summed per sample name and label set (as text: `name{a="b"}`)."""
    from prometheus_client.parser import text_string_to_metric_families

    response = httpx.get(
        f"{server.url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=30
    )
    response.raise_for_status()
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}"] = sample.value
    return found


# Claimants ------------------------------------------------------------------------------------


@dataclass
class Tally:
    sent: dict[str, list[str]] = field(default_factory=dict)  # claim -> keys in the order sent
    acknowledged: set[str] = field(default_factory=set)
    server_errors: int = 0
    connection_errors: int = 0
    other_statuses: Counter = field(default_factory=Counter)
    gave_up: int = 0


async def claimant(
    claim: EvalClaim, servers: list[Server], first: int, until: list[float], tally: Tally, alive: list[bool]
) -> None:
    """One claimant: a message, its reply, the next message, until `until`. A message that
    fails (connection refused or reset, a 5xx) is sent again with the same Idempotency-Key to
    the next live process, as a client behind a load balancer would see it."""
    keys = tally.sent.setdefault(claim.claim_id, [])
    headers = {"Authorization": f"Bearer {claim.token}"}
    n, at = 0, first
    async with httpx.AsyncClient(timeout=90) as http:
        while time.monotonic() < until[0]:
            key = f"{claim.claim_id}-{n:05d}"
            keys.append(key)
            body = {"text": QUESTIONS[n % len(QUESTIONS)]}
            for _ in range(12):
                if not alive[at]:
                    at = (at + 1) % len(servers)
                url = f"{servers[at].url}/claims/{claim.claim_id}/messages"
                try:
                    response = await http.post(url, json=body, headers={**headers, "Idempotency-Key": key})
                except httpx.TransportError:
                    tally.connection_errors += 1
                    at = (at + 1) % len(servers)
                    await asyncio.sleep(0.2)
                    continue
                if response.status_code >= 500:
                    tally.server_errors += 1
                    await asyncio.sleep(0.2)
                    continue
                if response.status_code == 200:
                    tally.acknowledged.add(key)
                else:
                    tally.other_statuses[response.status_code] += 1
                break
            else:
                tally.gave_up += 1
            n += 1


@dataclass
class Found:
    figures: dict[str, int]
    outcomes: list[tuple[datetime, str, str]]  # each turn: finished, outcome, reason


def read_back(sessions: sessionmaker, tally: Tally) -> Found:
    """What the database holds of the claimants' messages and their turns."""
    claims = list(tally.sent)
    with sessions() as session:
        messages = session.execute(
            select(Message.id, Message.claim_id, Message.role, Message.idempotency_key, Message.turn_id)
            .where(Message.claim_id.in_(claims))
            .order_by(Message.id)
        ).all()
        turns = session.execute(
            select(Turn.id, Turn.message_id, Turn.finished_at, Turn.outcome, Turn.route_reason).where(
                Turn.claim_id.in_(claims)
            )
        ).all()
    stored: dict[str, list[tuple[int, str]]] = {}
    for m in messages:
        if m.role == "claimant":
            stored.setdefault(m.claim_id, []).append((m.id, m.idempotency_key))
    turns_of: Counter = Counter(t.message_id for t in turns)
    reply_of = {t.id: m.id for m in messages if m.role == "agent" for t in turns if t.id == m.turn_id}
    turn_message = {t.id: t.message_id for t in turns}
    keys = Counter(key for rows in stored.values() for _, key in rows)
    every_stored = set(keys)
    lost = len(tally.acknowledged - every_stored)
    duplicated = sum(n - 1 for n in keys.values() if n > 1) + sum(n - 1 for n in turns_of.values() if n > 1)
    out_of_order = 0
    for claim, rows in stored.items():
        order = {key: i for i, key in enumerate(tally.sent[claim])}
        sent_order = [order.get(key, -1) for _, key in rows]
        out_of_order += sum(1 for a, b in itertools.pairwise(sent_order) if b < a)
        # Replies in the order of the messages they answer.
        ids = [mid for mid, _ in rows]
        answered = sorted(
            (reply, turn_message[turn]) for turn, reply in reply_of.items() if turn_message[turn] in ids
        )
        out_of_order += sum(1 for a, b in itertools.pairwise(answered) if b[1] < a[1])
    unanswered = sum(1 for rows in stored.values() for mid, _ in rows if turns_of[mid] == 0)
    figures = {
        "sent": sum(len(k) for k in tally.sent.values()),
        "acknowledged": len(tally.acknowledged),
        "stored": sum(keys.values()),
        "lost": lost,
        "duplicated": duplicated,
        "out_of_order": out_of_order,
        "unanswered": unanswered,
        "5xx": tally.server_errors,
        "connection_errors": tally.connection_errors,
        "gave_up": tally.gave_up,
        "other_4xx": sum(tally.other_statuses.values()),
    }
    return Found(figures, [(t.finished_at, t.outcome or "", t.route_reason or "") for t in turns])


def wait_for_sweep(sessions: sessionmaker, tally: Tally, timeout_s: float = 90.0) -> None:
    """Until every stored message has its turn (the recovery sweep routes what a killed
    process left), or the timeout."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if read_back(sessions, tally).figures["unanswered"] == 0:
            return
        time.sleep(2)


# The probes ----------------------------------------------------------------------------------


def run_load(
    *, seconds: float = 60.0, claimants: int = 16, kill: str = "server", database: str = "postgresql"
) -> dict[str, Any]:
    """16 claimants against two serve processes; `kill` is "server" (one process, SIGKILL) or
    "store" (the object store, SIGKILL, restarted with the corpus at two thirds)."""
    folder = Path(tempfile.mkdtemp(prefix="clausedesk-probe-"))
    s3, store = corpus_store()
    servers: list[Server] = []
    events: dict[str, datetime] = {}
    try:
        with fresh_database(database, folder) as database_url:
            prepare(database_url, store)
            servers = [start_server(database_url, store, folder / f"server-{i}.log") for i in range(2)]
            harness = Harness(servers[0].url, database_url)
            claims = [harness.open_claim(SEED_CLAIM) for _ in range(claimants)]
            tally, alive = Tally(), [True] * len(servers)
            _say(f"{claimants} claimants for {seconds:.0f} s on {database}, logs in {folder}")

            async def drive() -> None:
                # With the store killed, the claimants go on until it has been back a while.
                until = [time.monotonic() + seconds if kill == "server" else float("inf")]
                runs = [
                    asyncio.create_task(claimant(c, servers, i % len(servers), until, tally, alive))
                    for i, c in enumerate(claims)
                ]
                if kill == "server":
                    await asyncio.sleep(seconds * 0.4)
                    # The process killed is the one the claimants were reaching, and it dies.
                    await asyncio.to_thread(servers[0].require_answering, "before the kill")
                    events["server_killed"] = utcnow()
                    os.kill(servers[0].process.pid, signal.SIGKILL)
                    alive[0] = False
                    code = await asyncio.to_thread(servers[0].process.wait, 30)
                    if code != -signal.SIGKILL:
                        raise ProbeFailed(f"serve process {servers[0].process.pid} ended with {code}")
                    _say(f"killed serve process {servers[0].process.pid} (SIGKILL)")
                else:
                    await asyncio.sleep(seconds / 3)
                    events["store_killed"] = utcnow()
                    os.kill(s3.process.pid, signal.SIGKILL)
                    s3.process.wait()
                    _say("killed the object store (SIGKILL)")
                    await asyncio.sleep(seconds / 3)
                    began = time.monotonic()
                    restarted = await asyncio.to_thread(corpus_store, s3.port)
                    s3.process = restarted[0].process
                    events["store_back"] = utcnow()
                    # However long the re-ingest took under load: a third more with the store back.
                    until[0] = time.monotonic() + seconds / 3
                    took = time.monotonic() - began
                    _say(f"object store restarted, corpus re-ingested and released in {took:.0f} s")
                await asyncio.gather(*runs)

            try:
                asyncio.run(drive())
                _say("load done; waiting for the recovery sweep")
                wait_for_sweep(harness.sessions, tally)
                found = read_back(harness.sessions, tally)
                servers[1].require_answering("after the load")  # the process never killed, still it
                metrics = scrape(servers[1])
            finally:
                harness.close()
                for server in servers:
                    server.stop()
    finally:
        s3.stop()
    return {
        "probe": f"load, {kill} killed",
        "database": database,
        "seconds": seconds,
        "claimants": claimants,
        "servers": [{"pid": s.process.pid, "instance": s.instance} for s in servers],
        **found.figures,
        "outcomes": _periods(found.outcomes, events),
        "surviving_process_metrics": {
            k: v
            for k, v in metrics.items()
            if k.startswith(
                ("clausedesk_turns_total", "clausedesk_store_errors_total", "clausedesk_model_errors")
            )
        },
    }


def _periods(
    outcomes: list[tuple[datetime, str, str]], events: dict[str, datetime]
) -> dict[str, dict[str, int]]:
    """Turns by outcome and reason, by when they finished: before, during and after the outage
    (or the kill)."""
    marks = sorted(events.items(), key=lambda kv: kv[1])
    periods: dict[str, Counter] = {}
    for finished, outcome, reason in outcomes:
        name = "before"
        for label, at in marks:
            if finished >= at:
                name = f"after {label.replace('_', ' ')}"
        periods.setdefault(name, Counter())[f"{outcome}/{reason or '-'}"] += 1
    return {name: dict(sorted(c.items())) for name, c in periods.items()}


# Who signs in for each pass of the fuzzer, by operation tag: every operation is fuzzed past its
# authentication by each role it admits. The handler's pass reaches the owner-only operations too
# (their 403); the policy owner's pass goes past it.
HANDLER, OWNER = "dev-staff-token-aroha", "dev-staff-token-mere"
FUZZ_ROLES: dict[str, dict[str, str]] = {
    "claimant": {"claimant": "dev-claimant-204518"},
    "handler": {"staff": HANDLER, "answering": HANDLER, "wording": HANDLER},
    "policy_owner": {"staff": OWNER, "answering": OWNER, "wording": OWNER},
    "integration": {"integration": ""},  # the token made for the run (python -m agent integration add)
    "no sign-in": {"system": "", "": ""},  # /health and anything without a tag
}


def run_fuzz(
    *, databases: tuple[str, ...] = ("sqlite", "postgresql"), cases_per_operation: int = 85
) -> list[dict]:
    """Per database and role: schemathesis's cases, 5xx and contract violations."""
    from hypothesis.configuration import set_hypothesis_home_dir

    from agent.evaluation.fuzzing import fuzz, waiting_item_keys
    from agent.policy.intake import add_client

    # Hypothesis keeps a cache of its own: with the other local output, as in the tests, not a
    # `.hypothesis` folder wherever the probe is run.
    set_hypothesis_home_dir(Path(".data") / "hypothesis")

    results = []
    for database in databases:
        folder = Path(tempfile.mkdtemp(prefix="clausedesk-fuzz-"))
        s3, store = corpus_store()
        server = None
        try:
            with fresh_database(database, folder) as database_url:
                prepare(database_url, store)
                engine = make_engine(database_url)
                with make_sessionmaker(engine).begin() as db:
                    keys = waiting_item_keys(db, SEED_CLAIM)
                    integration = add_client(db, "probe-fuzz")
                engine.dispose()
                server = start_server(database_url, store, folder / "server.log")
                for role, tokens in FUZZ_ROLES.items():
                    auth = {tag: token for tag, token in tokens.items() if token}
                    if role == "integration":
                        auth = {"integration": integration}
                    _say(
                        f"fuzzing {server.url} on {database} as {role} ({cases_per_operation} cases per mode)"
                    )
                    figures = fuzz(
                        server.url,
                        auth=auth,
                        path_values={
                            "claim_id": [SEED_CLAIM],
                            "item_key": keys,
                            "session_id": ["0" * 32],
                            "message_id": ["1"],
                        },
                        cases_per_operation=cases_per_operation,
                        only=set(tokens),
                    )
                    server.require_answering(f"after fuzzing as {role}")
                    results.append(
                        {
                            "probe": "fuzz",
                            "database": database,
                            "role": role,
                            "cases": figures.cases,
                            "5xx": figures.server_errors,
                            "contract_violations": figures.violations,
                            "seconds": round(figures.seconds),
                            "statuses": {str(k): v for k, v in sorted(figures.statuses.items())},
                            "examples": figures.examples,
                        }
                    )
                server.stop()
                server = None
        finally:
            if server is not None:
                server.stop()
            s3.stop()
    return results


def _say(line: str) -> None:
    print(f"probe: {line}", file=sys.stderr, flush=True)
