"""`python -m agent curve`: the learning curve, as the system learns from a scripted handler.

For each bar asked, a fresh system (a throwaway SQLite database and S3 server, seeded and
loaded as start-dev.sh does, the app served over HTTP in this process) replays an inventory:
the stream in a fixed shuffled order (seeded), each question asked by a claimant on a fresh
claim of its policy, the scripted handler answering every drafted or routed item through the
staff API and flagging every served answer the facts judge wrong (agent.evaluation.curve_handler).
At each checkpoint (questions streamed: 0, 50, 100, 200 and all by default) the policy owner's
documented step runs (measure, then promote), or with `--promotion automatic` the system's own
checkpoints promote; then the scored part is asked on fresh claims and judged on its facts.
At checkpoint 0 the memory holds no streamed question: the offline model's memory reads only
the evidence store of this system, never the inventory shipped with the corpus.

Kowhai: stream = the dev then the test part (shuffled together), scored = test2. The AXA car
booklet's own inventory (`--family axa-car`) is split in half by the seed before anything runs.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import httpx
from pydantic_ai.models import Model
from sqlalchemy import func, select
from sqlalchemy.orm import sessionmaker

from agent.answering.bar import upper_bound as bar_upper_bound
from agent.db.tables import Evidence, make_engine, make_sessionmaker, upgrade
from agent.evaluation.curve_defaults import DEFAULT_CHECKPOINTS, DEFAULT_SEED, FAMILIES
from agent.evaluation.curve_handler import (
    OWNER_TOKEN,
    Handled,
    OwnerStep,
    ScriptedHandler,
    answering_clauses,
    owner_step,
    sendable,
)
from agent.evaluation.curve_models import Labelled, scripted_accuracy, scripted_model
from agent.evaluation.harness import Exchange, Harness, reload_knowledge
from agent.evaluation.localstore import start_local_s3
from agent.evaluation.serving import serve_in_thread
from agent.models.memory import Memories
from agent.seed import seed_policies, seed_staff
from agent.settings import Settings
from agent.wording.questions import Question, clauses_for, load_imported, load_questions, seeded_claims
from knowledge.clauses import ClauseLibrary
from knowledge.manifest import Registry
from knowledge.settings import StoreSettings
from knowledge.store import ObjectStore

AXA_FAMILY, AXA_VERSION, AXA_CODE = "axa_car", "2021.1", "MTR"
AXA_BOOKLET = "UK_AXA_car_policy_booklet_2021-04.llamaparse.md"
AXA_EFFECTIVE = "2021-04-01"
PROMOTION_STEPS = {
    "owner": "at each checkpoint the policy owner measures each approved version, then promotes "
    "what meets the bar",
    "automatic": "the system's own checkpoints (CLAUSEDESK_AUTO_PROMOTE=1, every "
    "CLAUSEDESK_MEASURE_EVERY new evidence rows) promote; the curve only reads the modes",
}


# The inventory ---------------------------------------------------------------------------------


@dataclass
class Inventory:
    name: str
    stream: list[Question]
    scored: list[Question]
    split: str  # how stream and scored were chosen, in words


def shuffled(questions: Sequence[Question], seed: int) -> list[Question]:
    """A fixed shuffled order: the questions by ID, shuffled by the seed."""
    ordered = sorted(questions, key=lambda q: q.id)
    random.Random(seed).shuffle(ordered)
    return ordered


def kowhai_inventory(seed: int, questions_dir: Path | None = None) -> Inventory:
    stream = shuffled(load_questions(questions_dir, ("dev", "test")), seed)
    scored = load_questions(questions_dir, ("test2",))
    return Inventory("kowhai", stream, scored, f"stream: dev and test shuffled (seed {seed}); scored: test2")


def axa_inventory(seed: int, questions_dir: Path | None = None) -> tuple[Inventory, list[dict[str, Any]]]:
    """The booklet's own inventory split in half by the seed, before anything runs."""
    questions, claimants = load_imported(AXA_FAMILY, questions_dir)
    order = shuffled(questions, seed)
    half = len(order) // 2
    split = f"the imported inventory shuffled (seed {seed}): first half streamed, second half scored"
    return Inventory("axa-car", order[:half], order[half:], split), claimants


def wordings_dir() -> Path:
    """Where the real wordings lie beside the clone (never copied into it)."""
    import os

    root = Path(__file__).resolve().parents[2]
    return Path(os.environ.get("CLAUSEDESK_WORDINGS", root.parent / "shared" / "wordings"))


def parse_checkpoints(text: str, streamed: int) -> list[int]:
    """ "0,50,100,200,all" -> the checkpoints within the stream, in order (`all`: its length)."""
    found = set()
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if part == "all":
            found.add(streamed)
            continue
        try:
            value = int(part)
        except ValueError as exc:
            raise ValueError(f"checkpoint {part!r} is not a number of questions or `all`") from exc
        if value < 0:
            raise ValueError(f"checkpoint {value} is negative")
        found.add(min(value, streamed))
    return sorted(found)


def reported_bound(wrong: int, served: int) -> float | None:
    """The served-wrong share's one-sided 95 % Clopper–Pearson upper bound, as the bar weighs it
    (agent.answering.bar); None when nothing was served."""
    return round(bar_upper_bound(wrong, served), 4) if served else None


# The system -------------------------------------------------------------------------------------


@dataclass
class System:
    url: str
    database_url: str
    sessions: sessionmaker
    store: ObjectStore
    claims: dict[str, str]  # policy number -> the seeded claim on it
    model_name: str
    settle: Callable[[], None]  # until the system's own checkpoints have finished


def evidence_only_source(sessions: sessionmaker) -> Callable[[str, str], list[Any]]:
    """The offline model's memory from this system's evidence store alone: the inventory shipped
    with the corpus (which holds the stream's dev part) never feeds it."""
    from agent.answering.evidence import verified_examples

    def source(family: str, version: str) -> list[Any]:
        with sessions() as session:
            return verified_examples(session, family, version)

    return source


def build_curve_model(
    spec: str,
    settings: Settings,
    memories: Memories,
    labelled: Sequence[Labelled],
    pools: dict,
    seed: int,
) -> Model:
    """The model the curve serves: `offline` (its memory from the evidence store only), a litellm
    string, or `scripted:P` (evaluation only)."""
    from agent.models.selection import build_model

    accuracy = scripted_accuracy(spec)
    if accuracy is not None:
        return scripted_model(accuracy, labelled, pools, seed=seed)
    return build_model(settings, memories=memories)


Serve = Callable[[Any], tuple[str, Callable[[], None]]]  # app -> its base URL and how to stop it


@dataclass
class Given:
    """Parts a caller hands over instead of the run making its own (the tests' shared S3 server,
    their migrated databases and pooled app servers): an empty migrated database, an object store
    (its bucket empty, or already holding the Kowhai corpus), a way to serve the app."""

    database_url: str | None = None
    store: ObjectStore | None = None
    serve: Serve | None = None


def _serve_here(app: Any) -> tuple[str, Callable[[], None]]:
    url, server, thread = serve_in_thread(app)

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=10)

    return url, stop


@contextmanager
def started(
    inventory: Inventory,
    *,
    model: str,
    bar: float,
    promotion: str,
    measure_every: int,
    seed: int,
    api_base: str | None = None,
    claimants: list[dict[str, Any]] | None = None,
    given: Given | None = None,
) -> Iterator[tuple[System, dict[str, tuple[str, ...]]]]:
    """A fresh system for one run, and each question's labelled clause IDs."""
    from agent.api.app import create_app

    given = given or Given()
    database_url = given.database_url
    if database_url is None:
        folder = Path(tempfile.mkdtemp(prefix="clausedesk-curve-"))
        database_url = f"sqlite:///{folder / 'curve.db'}"
    engine = make_engine(database_url)
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    s3 = None if given.store is not None else start_local_s3()
    stop: Callable[[], None] | None = None
    app = None
    try:
        store = given.store or ObjectStore(
            StoreSettings(endpoint=s3.endpoint, bucket="curve", access_key="curve", secret_key="curve-secret")
        )
        if inventory.name == "axa-car":
            from knowledge.importing.pipeline import import_reviewed
            from knowledge.ingest import ingest

            store.ensure_bucket()
            _, source = import_reviewed(wordings_dir() / AXA_BOOKLET, AXA_FAMILY, AXA_VERSION, AXA_CODE)
            ingest(store, source)
            claims = {s.policy_number: s.claim_id for s in seed_policies(sessions, data=claimants or [])}
        else:
            if given.store is None or not _holds_corpus(store):
                reload_knowledge(store)
            seed_policies(sessions)
            claims = seeded_claims()
        seed_staff(sessions)
        labels = labels_of(inventory, store)
        settings = Settings(
            database_url=database_url,
            model="offline" if scripted_accuracy(model) is not None else model,
            model_api_base=api_base,
            bar_wrong_percent=bar,
            measure_every=measure_every,
            auto_promote=promotion == "automatic",
            limit_messages_per_claim="1000000/minute",
            limit_login_per_address="1000000/minute",
        )
        pools = clause_pools(store)
        labelled = [Labelled(q, labels[q.id]) for q in [*inventory.stream, *inventory.scored]]
        # One memory of this system's evidence alone, read by the offline model and the gate alike.
        memories = Memories(evidence_only_source(sessions), settings.offline_memory)
        served_model = build_curve_model(model, settings, memories, labelled, pools, seed)
        app = create_app(settings, model=served_model, store=store, memories=memories)
        url, stop = (given.serve or _serve_here)(app)
        if inventory.name == "axa-car":
            approve_without_evidence(url)
        yield (
            System(url, database_url, sessions, store, claims, model, app.state.services.checkpoints.wait),
            labels,
        )
    finally:
        if stop is not None:
            stop()
        if app is not None:
            app.state.engine.dispose()
        if s3 is not None:
            s3.stop()
        engine.dispose()


def _holds_corpus(store: ObjectStore) -> bool:
    """Whether the store already holds approved Kowhai wordings (a caller's loaded corpus)."""
    from knowledge.errors import KnowledgeError

    try:
        manifest, _ = Registry(store).read()
    except KnowledgeError:
        return False
    return all(manifest.approved(f) for f in ("motor", "home", "contents"))


def labels_of(inventory: Inventory, store: ObjectStore) -> dict[str, tuple[str, ...]]:
    """Each question's labelled clauses: its own, or the imported units its sections name."""
    questions = [*inventory.stream, *inventory.scored]
    if inventory.name != "axa-car":
        return {q.id: q.clauses for q in questions}
    manifest, _ = Registry(store).read()
    directory = ClauseLibrary(store).directory(manifest.entry(AXA_FAMILY, AXA_VERSION))
    return {q.id: clauses_for(q, directory) for q in questions}


def clause_pools(store: ObjectStore) -> dict[str, list[str]]:
    """family -> the citable clause IDs of every version of it in the store (what a wrong pick
    quotes; an imported wording is still a draft when the model is built)."""
    manifest, _ = Registry(store).read()
    library = ClauseLibrary(store)
    pools: dict[str, list[str]] = {}
    for family, entries in manifest.families.items():
        ids: dict[str, None] = {}
        for entry in entries.values():
            ids.update({e.clause_id: None for e in library.directory(entry).entries if e.citable})
        pools[family] = sorted(ids)
    return pools


def approve_without_evidence(url: str) -> None:
    """An imported version governs in drafts: the owner's release check asking no question, cited
    by the approval (as the docs' import steps say)."""
    auth = {"Authorization": f"Bearer {OWNER_TOKEN}"}
    base = f"/staff/api/wording/{AXA_FAMILY}/{AXA_VERSION}"
    with httpx.Client(base_url=url, timeout=300) as http:
        check = http.post(f"{base}/check", params={"questions": 0}, headers=auth)
        check.raise_for_status()
        approved = http.post(
            f"{base}/approve",
            json={"effective_from": AXA_EFFECTIVE, "check_id": check.json()["check_id"]},
            headers=auth,
        )
        if approved.status_code != 200:
            raise RuntimeError(
                f"approving {AXA_FAMILY} {AXA_VERSION}: {approved.status_code} {approved.text[:300]}"
            )


# One run ----------------------------------------------------------------------------------------


@dataclass
class Scored:
    question: Question
    exchange: Exchange
    draft_sendable: bool = False


def _ask(harness: Harness, claims: dict[str, str], question: Question) -> tuple[Exchange, list[Exchange]]:
    claim = harness.open_claim(claims[question.policy])
    earlier = [harness.send(claim, text) for text in question.earlier]
    return harness.send(claim, question.text), earlier


def served(exchange: Exchange) -> bool:
    return exchange.status_code == 200 and str(exchange.reply.get("outcome") or "").startswith("answered")


def drafted(exchange: Exchange) -> bool:
    return exchange.reply.get("route_reason") == "drafted_for_review"


def score(
    system: System,
    handler: ScriptedHandler,
    questions: Sequence[Question],
    labels: dict[str, tuple[str, ...]],
) -> dict[str, Any]:
    """The scored part asked on fresh claims and judged on its facts; the claims and all they
    made are deleted afterwards, so the scored part leaves no trace the system learns from."""
    harness = Harness(system.url, system.database_url, timeout_s=300)
    results: list[Scored] = []
    try:
        for question in questions:
            exchange, _ = _ask(harness, system.claims, question)
            result = Scored(question, exchange)
            if drafted(exchange):
                reference = handler.item_of(exchange.reply.get("turn_id"))
                if reference:
                    result.draft_sendable = sendable(
                        handler.open_item(reference).get("draft"), labels[question.id]
                    )
            results.append(result)
    finally:
        harness.forget()
        harness.close()
    return figures(results)


def figures(results: Sequence[Scored]) -> dict[str, Any]:
    answerable = [r for r in results if r.question.answerable]
    served_ = [r for r in results if served(r.exchange)]
    verdicts = {r.question.id: r.question.judge(r.exchange.reply.get("reply") or "") for r in served_}
    right = [r for r in served_ if verdicts[r.question.id].right]
    wrong = [r for r in served_ if not verdicts[r.question.id].right]
    drafted_ = [r for r in results if drafted(r.exchange)]
    sendable_ = [r for r in drafted_ if r.draft_sendable]

    def share(part: int, whole: int) -> float | None:
        return round(part / whole, 4) if whole else None

    return {
        "questions": len(results),
        "answerable": len(answerable),
        "served": len(served_),
        "served_right": len(right),
        "served_wrong": len(wrong),
        "served_wrong_share": share(len(wrong), len(served_)),
        "served_wrong_upper_bound": reported_bound(len(wrong), len(served_)),
        "answered_right": sum(r.question.answerable for r in right),
        "answered_right_share": share(sum(r.question.answerable for r in right), len(answerable)),
        "drafted": len(drafted_),
        "drafted_share": share(len(drafted_), len(results)),
        "drafts_sendable": len(sendable_),
        "drafts_sendable_share": share(len(sendable_), len(drafted_)),
        "http_errors": sum(r.exchange.status_code != 200 for r in results),
        "wrong_questions": [r.question.id for r in wrong],
    }


def evidence_rows(sessions: sessionmaker) -> dict[str, int]:
    """Verified evidence rows of this system by source (staff answers, flags)."""
    with sessions() as session:
        rows = session.execute(
            select(Evidence.source, func.count())
            .where(Evidence.status == "verified")
            .group_by(Evidence.source)
        ).all()
    return {source: n for source, n in rows}


def versions_of(store: ObjectStore, families: set[str]) -> list[tuple[str, str]]:
    """The approved versions of the families the inventory asks about: what a checkpoint measures."""
    manifest, _ = Registry(store).read()
    return [(f, e.version) for f in sorted(families) if f in manifest.families for e in manifest.approved(f)]


@dataclass
class RunOptions:
    family: str = "kowhai"
    model: str = "offline"
    bar: float = 5.0
    promotion: str = "owner"
    checkpoints: str = DEFAULT_CHECKPOINTS
    seed: int = DEFAULT_SEED
    stream: int | None = None  # at most this many streamed (a smoke run)
    scored: int | None = None  # at most this many scored
    measure_every: int = 20
    api_base: str | None = None
    given: Given | None = None  # parts handed over (the tests'); the run makes its own otherwise
    progress: Callable[[str], None] = field(default=lambda line: print(line, file=sys.stderr, flush=True))


def run_curve(options: RunOptions) -> dict[str, Any]:
    """One curve: a fresh system, the stream with checkpoints, the scored part at each."""
    started_at = time.monotonic()
    claimants = None
    if options.family == "axa-car":
        inventory, claimants = axa_inventory(options.seed)
    elif options.family == "kowhai":
        inventory = kowhai_inventory(options.seed)
    else:
        raise ValueError(f"family {options.family!r}: one of {', '.join(FAMILIES)}")
    stream = inventory.stream[: options.stream] if options.stream is not None else inventory.stream
    scored = inventory.scored[: options.scored] if options.scored is not None else inventory.scored
    checkpoints = parse_checkpoints(options.checkpoints, len(stream))
    say = options.progress
    points: list[dict[str, Any]] = []
    actions: Counter[str] = Counter()
    refusals: list[str] = []
    with started(
        inventory,
        model=options.model,
        bar=options.bar,
        promotion=options.promotion,
        measure_every=options.measure_every,
        seed=options.seed,
        api_base=options.api_base,
        claimants=claimants,
        given=options.given,
    ) as (system, labels):
        families = {q.family for q in [*stream, *scored]}
        versions = versions_of(system.store, families)
        harness = Harness(system.url, system.database_url, timeout_s=300)
        http = httpx.Client(base_url=system.url, timeout=600)
        handler = ScriptedHandler(http, system.sessions, _clause_reader(system.store))
        try:
            streamed = 0
            for checkpoint in checkpoints:
                while streamed < checkpoint:
                    question = stream[streamed]
                    exchange, earlier = _ask(harness, system.claims, question)
                    handled: Handled = handler.handle(question, labels[question.id], exchange, earlier)
                    actions[handled.action] += 1
                    if handled.refused_send:
                        refusals.append(f"{question.id}: {handled.refused_send}")
                    if handled.action == "failed":
                        say(f"  {question.id}: handler failed ({handled.status}) {handled.detail[:160]}")
                    streamed += 1
                system.settle()  # a checkpoint started by the last evidence finishes first
                steps: list[OwnerStep] = []
                if options.promotion == "owner":
                    steps = [owner_step(http, f, v) for f, v in versions]
                answering = {f"{f} {v}": answering_clauses(http, f, v) for f, v in versions}
                held = score(system, handler, scored, labels)
                point = {
                    "streamed": streamed,
                    "evidence": evidence_rows(system.sessions),
                    "handler": dict(actions),
                    "answering": {k: len(v) for k, v in answering.items()},
                    "answering_clauses": answering,
                    "owner_steps": [s.as_dict() for s in steps],
                    # Subjects the measurement found meeting the bar (measure+promote systems only).
                    "meeting_bar": {
                        f"{s.family} {s.version}": sum(bool(m.get("meets_bar")) for m in s.measured)
                        for s in steps
                        if s.measured
                    },
                    "scored": held,
                    "elapsed_s": round(time.monotonic() - started_at, 1),
                }
                points.append(point)
                say(
                    f"{inventory.name} bar {options.bar:g}% {options.model}: after {streamed} streamed: "
                    f"served {held['served']} (wrong {held['served_wrong']}), answered right "
                    f"{_pct(held['answered_right_share'])}, drafted {held['drafted']} "
                    f"(sendable {held['drafts_sendable']}), answering clauses "
                    f"{sum(point['answering'].values())}, evidence {sum(point['evidence'].values())}"
                )
        finally:
            # The stream's claims stay: the evidence the handler left cites their items and turns.
            harness.close()
            http.close()
    return {
        "family": inventory.name,
        "model": options.model,
        "bar_wrong_percent": options.bar,
        "promotion": options.promotion,
        "promotion_step": PROMOTION_STEPS[options.promotion],
        "seed": options.seed,
        "split": inventory.split,
        "streamed": len(stream),
        "scored": len(scored),
        "stream_ids": [q.id for q in stream],
        "scored_ids": [q.id for q in scored],
        "checkpoints": points,
        "send_refusals": refusals[:50],
        "send_refusals_total": len(refusals),
        "elapsed_s": round(time.monotonic() - started_at, 1),
    }


def _clause_reader(store: ObjectStore) -> Callable[[str, str, str], str]:
    library = ClauseLibrary(store)

    @cache
    def directory(family: str, version: str) -> Any:
        manifest, _ = library.registry.read()
        return library.directory(manifest.entry(family, version))

    @cache
    def read(family: str, version: str, clause_id: str) -> str:
        found = library.fetch(directory(family, version), [clause_id]).clauses
        return found[0].text if found else ""

    return read


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"
