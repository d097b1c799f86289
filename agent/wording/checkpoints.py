"""Measuring a version again, on demand and at checkpoints.

`measure_version` is the one way a version is measured: a release check of all its verified
evidence (agent.wording.measurement), with the model and memory the runtime serves, stored so
approval, promotion, the fall back and the pages read it. A checkpoint comes every
`measure_every` new verified evidence rows of a version: it measures in the background and, where
`auto_promote` is set, moves every subject that meets the bar to `answers`
(agent.answering.approval.promote). One measure of a version runs at a time per process; one
that is asked for while another runs is skipped (the running one will be as fresh).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from pydantic_ai.models import Model
from sqlalchemy.orm import sessionmaker

from agent.answering import approval, evidence
from agent.answering.bar import Bar
from agent.answering.measured import rows_since
from agent.db.tables import ReleaseCheck
from agent.models.memory import Memories
from agent.settings import Settings
from agent.wording import lifecycle
from agent.wording.measurement import measure_replay
from agent.wording.release_check import run_release_check
from knowledge.clauses import ClauseLibrary
from knowledge.manifest import Registry
from knowledge.store import ObjectStore

log = logging.getLogger(__name__)
CHECKPOINT_ACTOR = "checkpoint"


def measure_version(
    store: ObjectStore,
    sessions: sessionmaker,
    family: str,
    version: str,
    *,
    model: Model,
    memories: Memories | None,
    settings: Settings,
    by: str,
) -> ReleaseCheck:
    """Replay every verified evidence question of the version and store the check."""
    replay = measure_replay(sessions, family, version)
    report = run_release_check(
        store,
        family,
        version,
        model=model,
        created_by=by,
        settings=settings,
        compare=False,
        replay=replay,
        memories=memories,
    )
    with sessions.begin() as session:
        check = lifecycle.store_check(session, report)
    log.info(
        "measured %s %s by %s: %s (%d replayed)",
        family,
        version,
        by,
        report.check_id,
        len(replay.questions),
    )
    return check


def known_clauses(store: ObjectStore, family: str, version: str) -> set[str]:
    manifest, _ = Registry(store).read()
    return {e.clause_id for e in ClauseLibrary(store).directory(manifest.entry(family, version)).entries}


@dataclass
class Checkpoints:
    """The checkpoints of one process: the API calls `after_evidence` once evidence is committed."""

    store: ObjectStore
    sessions: sessionmaker
    model: Model
    memories: Memories | None
    settings: Settings

    def __post_init__(self) -> None:
        self._running: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        self.threads: list[threading.Thread] = []

    def listen(self) -> None:
        """Hear of every evidence row committed to this process's database."""
        url = self.sessions.kw["bind"].url.render_as_string(hide_password=False)

        def heard(database: str, family: str, version: str) -> None:
            if database == url:
                self.after_evidence(family, version)

        evidence.LISTENERS.append(heard)
        self._heard = heard

    def close(self) -> None:
        if getattr(self, "_heard", None) in evidence.LISTENERS:
            evidence.LISTENERS.remove(self._heard)

    def due(self, family: str, version: str) -> bool:
        with self.sessions() as session:
            return rows_since(session, family, version) >= self.settings.measure_every

    def after_evidence(self, family: str | None, version: str | None) -> bool:
        """Start a checkpoint in the background when one is due; whether one started."""
        if not family or not version or not self.due(family, version):
            return False
        with self._lock:
            if (family, version) in self._running:
                return False
            self._running.add((family, version))
        thread = threading.Thread(
            target=self.run, args=(family, version), name=f"checkpoint-{family}-{version}"
        )
        self.threads = [t for t in self.threads if t.is_alive()] + [thread]
        thread.start()
        return True

    def run(self, family: str, version: str) -> None:
        try:
            measure_version(
                self.store,
                self.sessions,
                family,
                version,
                model=self.model,
                memories=self.memories,
                settings=self.settings,
                by=CHECKPOINT_ACTOR,
            )
            if self.settings.auto_promote:
                known = known_clauses(self.store, family, version)
                with self.sessions.begin() as session:
                    moved = approval.promote(
                        session,
                        family,
                        version,
                        known,
                        Bar.of(self.settings),
                        by=CHECKPOINT_ACTOR,
                        automatic=True,
                    )
                log.info("checkpoint %s %s promoted %d subjects", family, version, len(moved))
        except Exception:  # a checkpoint must never take the API down; the next one tries again
            log.exception("checkpoint of %s %s failed", family, version)
        finally:
            with self._lock:
                self._running.discard((family, version))

    def wait(self, timeout: float = 120.0) -> None:
        """Until every started checkpoint has finished (tests, shutdown)."""
        for thread in list(self.threads):
            thread.join(timeout)
