"""What every evaluation run stands on: an HTTP client for the claim message API, fresh
evaluation claims, the turn record of each reply, and (when told how) store control.

Each scenario run and each inventory question gets its own claim, cloned from a seeded
claim (same policy and schedule, new ID and token), so runs never see each other's
conversation history and the report can select exactly this evaluation's turn records.
Once the report has what it needs, `forget` removes those claims and everything the run
made on them (messages, turn records, waiting-list items), so an evaluation of the
development system leaves nothing on the staff waiting list or in its conversations.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import delete, select
from sqlalchemy.orm import sessionmaker

from agent.api.middleware import LEAVE_OUT_HEADER
from agent.db.tables import (
    Claim,
    Draft,
    Message,
    Turn,
    WaitingItem,
    WithdrawalFollowUp,
    make_engine,
    make_sessionmaker,
)
from agent.security import new_token
from agent.seed import CLONE_PREFIX, clone_claim
from agent.settings import get_settings

TURN_FIELDS = (
    "id",
    "claim_id",
    "family",
    "version",
    "directory_seen",
    "requested",
    "returned",
    "not_found",
    "cited",
    "citations",
    "composed",  # its blocks say which clauses the runtime added itself
    "checks",
    "citations_verified",
    "guidance_status",
    "outcome",
    "route_reason",
    "model_name",
    "input_tokens",
    "output_tokens",
    "latency_ms",
    "error",
)


@dataclass(frozen=True)
class EvalClaim:
    claim_id: str
    token: str
    family: str
    policy_number: str


@dataclass
class Exchange:
    """One claimant message through HTTP: the reply served and the turn record behind it."""

    claim_id: str
    family: str
    question: str
    status_code: int
    reply: dict[str, Any]
    turn: dict[str, Any] = field(default_factory=dict)

    @property
    def served_citations(self) -> list[str]:
        return [c["clause_id"] for c in self.reply.get("citations", [])]


class Harness:
    def __init__(self, base_url: str, database_url: str, *, timeout_s: float = 60.0):
        self.base_url = base_url.rstrip("/")
        self.http = httpx.Client(base_url=self.base_url, timeout=timeout_s)
        self.engine = make_engine(database_url)
        self.sessions: sessionmaker = make_sessionmaker(self.engine)
        self.opened: list[str] = []  # the evaluation claims of this run, for `forget`
        self._lock = threading.Lock()

    def forget(self, *, batch: int = 200) -> int:
        """Delete the claims this run opened and all that hangs off them, children first;
        returns how many claims went. Seeded claims are never touched."""
        with self._lock:
            claims, self.opened = [c for c in self.opened if c.startswith(CLONE_PREFIX)], []
        for start in range(0, len(claims), batch):
            ids = claims[start : start + batch]
            with self.sessions.begin() as session:
                # A drafted turn's item carries its draft: it goes first.
                items = select(WaitingItem.id).where(WaitingItem.claim_id.in_(ids))
                session.execute(delete(Draft).where(Draft.item_id.in_(items)))
                for table in (WithdrawalFollowUp, WaitingItem, Turn, Message, Claim):
                    session.execute(delete(table).where(table.claim_id.in_(ids)))
        return len(claims)

    def close(self) -> None:
        self.http.close()
        self.engine.dispose()

    def health(self) -> dict[str, Any]:
        response = self.http.get("/health")
        return response.json()

    def open_claim(self, seeded_claim_id: str) -> EvalClaim:
        """A fresh claim on the same policy as a seeded claim, with its own token."""
        token = new_token()
        claim_id = f"{CLONE_PREFIX}{uuid.uuid4().hex[:10]}-{seeded_claim_id}"[:40]
        with self.sessions.begin() as session:
            _, policy = clone_claim(session, seeded_claim_id, claim_id, token)
            with self._lock:
                self.opened.append(claim_id)
            return EvalClaim(claim_id, token, policy.family, policy.policy_number)

    def send(self, claim: EvalClaim, text: str, *, leave_out: str | None = None) -> Exchange:
        """One message; a dropped connection is an Exchange with status 0 (a failure, not a crash).
        `leave_out` names the evidence question being scored: the offline model's memory leaves it
        out of this turn (leave-one-out), or the question would find itself."""
        headers = {"Authorization": f"Bearer {claim.token}"}
        if leave_out:
            headers[LEAVE_OUT_HEADER] = leave_out
        try:
            response = self.http.post(
                f"/claims/{claim.claim_id}/messages", json={"text": text}, headers=headers
            )
        except httpx.TransportError as exc:
            return Exchange(claim.claim_id, claim.family, text, 0, {"error": f"{type(exc).__name__}: {exc}"})
        body = (
            response.json() if response.headers.get("content-type", "").startswith("application/json") else {}
        )
        exchange = Exchange(claim.claim_id, claim.family, text, response.status_code, body)
        if response.status_code == 200:
            exchange.turn = self.turn_record(body["turn_id"])
        return exchange

    def turn_record(self, turn_id: str) -> dict[str, Any]:
        with self.sessions() as session:
            turn = session.get(Turn, turn_id)
            if turn is None:
                return {}
            return {name: getattr(turn, name) for name in TURN_FIELDS}


# Store control ------------------------------------------------------------------------------


@dataclass
class StoreControl:
    """How the scenario runner stops the object store and brings it back (with its knowledge)."""

    stop: Callable[[], None]
    start: Callable[[], None]
    description: str = "callable"


def reload_knowledge(store: Any = None) -> list[str]:
    """Ingest every wording and apply the release records, as start-dev.sh does.

    The local S3 server keeps state in memory only, so after a restart this is what puts
    the corpus and the approvals back. Idempotent on a store that kept its state.
    """
    from knowledge.ingest import ingest
    from knowledge.manifest import Registry
    from knowledge.releases import apply_releases, load_releases
    from knowledge.rules import check_sources
    from knowledge.source import load_sources
    from knowledge.store import ObjectStore

    store = store or ObjectStore()
    store.ensure_bucket()
    sources = load_sources(get_settings().policies_dir)
    check_sources(sources)
    for source in sources:
        ingest(store, source)
    return apply_releases(Registry(store), load_releases(get_settings().policies_dir / "releases.toml"))


def answer_everything(sessions: Any, store: Any, *, by: str = "adversarial suite") -> None:
    """Every approved wording in the store answers claimants, for the measurements of what is
    served (the attacks, the benchmarks): nothing is held back as a draft for staff."""
    from agent.answering.modes import set_mode
    from knowledge.manifest import Registry
    from knowledge.store import ObjectStore

    manifest, _ = Registry(store or ObjectStore()).read()
    with sessions.begin() as session:
        for family in manifest.families:
            for entry in manifest.approved(family):
                set_mode(session, family, entry.version, None, "answers", by=by)


ANSWER_ALL_BY = "evaluate --answer-all"


@contextmanager
def answering_for_the_run(sessions: Any, store: Any = None) -> Iterator[None]:
    """Every approved wording answers claimants while the block runs, so an evaluation measures
    what a model would serve rather than drafts; the mode rows it added are removed afterwards
    (modes are the latest row of a clause or version, so what was there before holds again)."""
    from sqlalchemy import func

    from agent.db.tables import AnsweringMode

    with sessions() as session:
        before = session.scalar(select(func.max(AnsweringMode.id))) or 0
    answer_everything(sessions, store, by=ANSWER_ALL_BY)
    try:
        yield
    finally:
        with sessions.begin() as session:
            session.execute(
                delete(AnsweringMode).where(
                    AnsweringMode.id > before, AnsweringMode.changed_by == ANSWER_ALL_BY
                )
            )


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


def wait_port(port: int, *, open_: bool, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if port_open(port) == open_:
            return
        time.sleep(0.05)
    raise RuntimeError(f"port {port} did not {'open' if open_ else 'close'} within {timeout_s} s")


def pid_file_control(pid_file: Path, port: int) -> StoreControl:
    """Stop the store process named in a pid file; restart it with the same command line.

    The command line, environment and working directory are read from /proc before the
    process is stopped, so MinIO and the local moto server restart alike; where /proc is
    missing, the local moto server is started. The pid file is updated, so `start-dev.sh
    --stop` still stops the restarted store.
    """
    remembered: dict[str, Any] = {}

    def stop() -> None:
        pid = int(pid_file.read_text().strip())
        proc = Path(f"/proc/{pid}")
        if proc.exists():
            remembered["argv"] = [a.decode() for a in (proc / "cmdline").read_bytes().split(b"\0") if a]
            env = {}
            for item in (proc / "environ").read_bytes().split(b"\0"):
                if b"=" in item:
                    k, v = item.decode(errors="replace").split("=", 1)
                    env[k] = v
            remembered["env"] = env
            remembered["cwd"] = os.readlink(proc / "cwd")
        os.kill(pid, signal.SIGTERM)
        wait_port(port, open_=False)

    def start() -> None:
        argv = remembered.get("argv") or [sys.executable, "-m", "agent.evaluation.localstore", str(port)]
        log = open(pid_file.with_name("store.log"), "ab")  # noqa: SIM115 - handed to the child
        process = subprocess.Popen(
            argv,
            env=remembered.get("env"),
            cwd=remembered.get("cwd"),
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        pid_file.write_text(f"{process.pid}\n")
        wait_port(port, open_=True)
        reload_knowledge()

    return StoreControl(stop, start, f"pid file {pid_file} (port {port})")
