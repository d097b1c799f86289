"""Shared fixtures: a real S3 server over HTTP and the corpus in it, fresh databases, the app
served over HTTP. What is expensive is made once (tests/budget.py says how often)."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis.configuration import set_hypothesis_home_dir
from pydantic_ai import models

from agent.evaluation.localstore import LocalS3, start_local_s3
from knowledge.settings import StoreSettings
from knowledge.store import ObjectStore
from tests import budget

# No test may reach a real model provider.
models.ALLOW_MODEL_REQUESTS = False
# The turn's tests check what the title-matching offline model composes, serves and routes; its
# evidence memory (which drafts what no verified question backs) is tested in tests/models, which
# set it on. Subprocesses (a served API) inherit this.
os.environ.setdefault("CLAUSEDESK_OFFLINE_MEMORY", "off")

REPO = Path(__file__).resolve().parent.parent
POLICIES = REPO / "policies"

# Hypothesis (under schemathesis) keeps a cache; it goes with the other local output.
set_hypothesis_home_dir(REPO / ".data" / "hypothesis")


@pytest.fixture(scope="session")
def s3_server() -> Iterator[LocalS3]:
    server = start_local_s3()
    yield server
    server.stop()


def store_settings(endpoint: str, bucket: str | None = None) -> StoreSettings:
    return StoreSettings(
        endpoint=endpoint,
        bucket=bucket or f"test-{uuid.uuid4().hex[:12]}",
        access_key="test",
        secret_key="test-secret",
    )


@pytest.fixture
def store(s3_server: LocalS3) -> ObjectStore:
    """A fresh, empty, versioned bucket on the shared server."""
    store = ObjectStore(store_settings(s3_server.endpoint))
    store.ensure_bucket()
    return store


def load_corpus(store: ObjectStore) -> ObjectStore:
    """The whole corpus ingested into `store` and released, as start-dev.sh does (about 3 s:
    counted against each module's budget, tests/budget.py)."""
    from agent.evaluation.harness import reload_knowledge

    reload_knowledge(store)
    budget.USED.corpus_loads += 1
    return store


@pytest.fixture(scope="session")
def corpus_store(s3_server: LocalS3) -> ObjectStore:
    """One bucket holding the whole corpus, for every test that only reads it."""
    return load_corpus(ObjectStore(store_settings(s3_server.endpoint)))


@pytest.fixture(scope="module")
def module_corpus_store(s3_server: LocalS3) -> ObjectStore:
    return load_corpus(ObjectStore(store_settings(s3_server.endpoint)))


# The AXA car booklet among the real wordings (../shared/wordings), imported as this family.
AXA_BOOKLET = "UK_AXA_car_policy_booklet_2021-04.llamaparse.md"
AXA_FAMILY, AXA_VERSION = "axa_car", "2021.1"


@pytest.fixture(scope="module")
def axa_store(s3_server: LocalS3) -> ObjectStore:
    """The AXA booklet imported as axa_car 2021.1 on its own bucket, its drafted titles accepted,
    ingested as a draft (never approved)."""
    from knowledge.importing.pipeline import import_reviewed
    from knowledge.ingest import ingest
    from tests.support import wording

    store = ObjectStore(store_settings(s3_server.endpoint))
    store.ensure_bucket()
    _, source = import_reviewed(wording(AXA_BOOKLET), AXA_FAMILY, AXA_VERSION, "MTR")
    ingest(store, source)
    return store


@pytest.fixture
def changing_store(module_corpus_store: ObjectStore) -> Iterator[ObjectStore]:
    """The corpus on this module's own bucket, for a test that changes it (approves, withdraws,
    ingests a draft, rewrites a clause): afterwards the manifest is put back as it was. Every
    read goes through the manifest to object versions, so that undoes the change whole."""
    from knowledge.manifest import MANIFEST_KEY

    before = module_corpus_store.get(MANIFEST_KEY).data
    yield module_corpus_store
    module_corpus_store.put(MANIFEST_KEY, before, content_type="application/json")


@pytest.fixture(scope="module", autouse=True)
def within_budget(request: pytest.FixtureRequest) -> Iterator[None]:
    """A module that starts more servers, corpus loads or migrations than tests/budget.py
    allows fails at its end."""
    before = budget.snapshot()
    yield
    over = budget.snapshot().minus(before).over()
    if over:
        pytest.fail(f"{request.module.__name__} is over the suite's budget: {'; '.join(over)}", pytrace=False)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser tests run last, and count as slow (left out of `-m "not slow"`). Within
    each group the files that hold slow tests come first: the two workers (one file at a time
    each) start on the long files and finish on short ones, instead of one worker running a
    long file alone at the end while the other waits."""
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: (item.get_closest_marker("browser") is not None, item.path not in slow_files))


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config):  # type: ignore[no-untyped-def]
    """One line, in a clone without the real wordings: how many tests were not run, and how to
    run them (tests/support.py: where CI runs or CLAUSEDESK_WORDINGS is set, they fail instead).
    After pytest's own summary, just above the counts."""
    from tests.support import NOT_HERE, WORDINGS

    yield
    skipped = terminalreporter.stats.get("skipped", [])
    missing = sum(1 for r in skipped if isinstance(r.longrepr, tuple) and NOT_HERE in str(r.longrepr[2]))
    if missing:
        terminalreporter.write_line(
            f"{missing} tests not run: they need the real wordings, which are not at {WORDINGS}; "
            "set CLAUSEDESK_WORDINGS=/path/to/wordings to run them"
        )


@pytest.fixture(autouse=True)
def _no_borrowed_event_loop(request: pytest.FixtureRequest) -> Iterator[None]:
    """One Chromium serves the whole run, and while Playwright's sync API is open it keeps its
    event loop marked as running in the main thread, where asyncio.run() (the tests that drive
    the turn runner directly) would refuse to start. A test that is not a browser test runs
    with no loop marked running; Playwright's is put back after it."""
    held = asyncio._get_running_loop()
    if held is None or request.node.get_closest_marker("browser"):
        yield
        return
    asyncio._set_running_loop(None)
    try:
        yield
    finally:
        asyncio._set_running_loop(held)


# Databases ---------------------------------------------------------------------------------
#
# SQLite by default. A test whose subject is the database (races, leases, constraints,
# migrations, crash recovery, event delivery) is marked `databases` and always runs on both.
# `--db=postgresql` (or CLAUSEDESK_TEST_DB=postgresql) runs every other test on PostgreSQL
# too, for parity: `./tests/run.sh --db=postgresql`.

DATABASES = ("sqlite", "postgresql")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--db",
        choices=DATABASES,
        default=os.environ.get("CLAUSEDESK_TEST_DB", "sqlite"),
        help="the database of the tests not marked `databases` (those always run on both)",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for name in ("database_url", "empty_database_url"):
        if name not in metafunc.fixturenames:
            continue
        chosen = [m for m in metafunc.definition.iter_markers("parametrize") if name in str(m.args[0])]
        if chosen:  # the test names its database itself
            continue
        both = metafunc.definition.get_closest_marker("databases") is not None
        metafunc.parametrize(name, DATABASES if both else [metafunc.config.getoption("--db")], indirect=True)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory):
    from tests.databases import SQLiteTemplate

    return SQLiteTemplate(tmp_path_factory.mktemp("template"))


@pytest.fixture(scope="session")
def postgres_template():
    from tests.databases import PostgresTemplate

    with closing(PostgresTemplate()) as template:
        yield template


@pytest.fixture
def database_url(request, tmp_path: Path) -> str:
    """A fresh database, migrated and seeded (development policies, claims and staff)."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_template").fresh(tmp_path)
    return request.getfixturevalue("postgres_template").fresh()


@pytest.fixture
def empty_database_url(request, tmp_path: Path) -> str:
    """A fresh database, migrated, with nothing in it (production refuses the development seed)."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_template").fresh(tmp_path, seeded=False)
    return request.getfixturevalue("postgres_template").fresh(seeded=False)


@pytest.fixture
def sqlite_url(sqlite_template, tmp_path: Path) -> str:
    """A fresh SQLite file, migrated and seeded, for tests that are about SQLite alone."""
    return sqlite_template.fresh(tmp_path)


@pytest.fixture
def empty_sqlite_url(sqlite_template, tmp_path: Path) -> str:
    """A fresh SQLite file, migrated, with nothing in it (production refuses the development seed)."""
    return sqlite_template.fresh(tmp_path, seeded=False)


@pytest.fixture
def postgres_url(postgres_template) -> str:
    """The fresh PostgreSQL database, migrated and seeded, for tests about PostgreSQL alone."""
    return postgres_template.fresh()


@pytest.fixture(params=DATABASES)
def blank_database_url(request, tmp_path: Path) -> Iterator[str]:
    """An empty database, no schema at all, on both kinds: for the migration tests."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'blank.db'}"
        return
    from tests.databases import POSTGRES_SERVER, create_database, drop_database

    name = f"clausedesk_blank_{uuid.uuid4().hex[:10]}"
    create_database(name)
    yield f"{POSTGRES_SERVER}/{name}"
    drop_database(name)


# The running system -------------------------------------------------------------------------


def make_live_app(database_url: str, store: ObjectStore, model=None, **overrides):
    """The app on a migrated, seeded database (the `database_url` fixture's), served over HTTP."""
    from agent.api.app import create_app
    from agent.settings import Settings
    from tests.support import serve

    settings = Settings(database_url=database_url, **overrides)
    return serve(create_app(settings, model=model, store=store))


def stop_live(server) -> None:
    checkpoints = server.app.state.services.checkpoints
    checkpoints.wait()  # a background measure must not outlive its test's database
    checkpoints.close()
    server.stop()
    server.app.state.engine.dispose()


@pytest.fixture
def live(database_url: str, corpus_store: ObjectStore):
    """The real app over HTTP on a fresh database, offline model by default."""
    server = make_live_app(database_url, corpus_store)
    yield server
    stop_live(server)


def use_model(server, model) -> None:
    server.app.state.services.runner.model = model


TOKENS = {
    "CLM-204518": "dev-claimant-204518",
    "CLM-204519": "dev-claimant-204519",
    "CLM-118230": "dev-claimant-118230",
    "CLM-310442": "dev-claimant-310442",
    "CLM-402117": "dev-claimant-402117",
    "CLM-402118": "dev-claimant-402118",
}


# Staff ----------------------------------------------------------------------------------------

STAFF_TOKENS = {
    "aroha.staff": "dev-staff-token-aroha",
    "tama.staff": "dev-staff-token-tama",
    "mere.staff": "dev-staff-token-mere",
}
STAFF_PASSWORDS = {
    "aroha.staff": "dev-staff-aroha-pw",
    "tama.staff": "dev-staff-tama-pw",
    "mere.staff": "dev-staff-mere-pw",
}


@pytest.fixture
def staff_live(live):
    """The live app; the development staff accounts are in every test database's seed."""
    return live


@pytest.fixture
def wording_live(database_url, changing_store):
    """The live app on the module's own corpus bucket, for tests that change the manifest
    (approve, withdraw): the shared corpus bucket is never touched."""
    server = make_live_app(database_url, changing_store)
    yield server
    stop_live(server)


# Model providers ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def fake_openai():
    """A misbehaving OpenAI-compatible server on loopback (tests/fake_openai.py)."""
    from tests.fake_openai import start_fake_openai

    fake = start_fake_openai()
    yield fake
    fake.stop()


@pytest.fixture
def allow_model_requests(monkeypatch) -> None:
    """The litellm path makes real HTTP requests, to loopback servers only."""
    monkeypatch.setattr(models, "ALLOW_MODEL_REQUESTS", True)
