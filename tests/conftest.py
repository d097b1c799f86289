"""Shared fixtures: a real S3 server over HTTP, started once per test session."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis.configuration import set_hypothesis_home_dir
from pydantic_ai import models

from agent.evaluation.localstore import LocalS3, start_local_s3
from knowledge.settings import StoreSettings
from knowledge.store import ObjectStore

# No test may reach a real model provider.
models.ALLOW_MODEL_REQUESTS = False

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


@pytest.fixture(scope="session")
def corpus_store(s3_server: LocalS3) -> ObjectStore:
    """One bucket holding the whole corpus, ingested and released as start-dev.sh does."""
    from knowledge.ingest import ingest
    from knowledge.manifest import Registry
    from knowledge.releases import apply_releases, load_releases
    from knowledge.rules import check_sources
    from knowledge.source import load_sources

    store = ObjectStore(store_settings(s3_server.endpoint))
    store.ensure_bucket()
    sources = load_sources(POLICIES)
    check_sources(sources)
    for source in sources:
        ingest(store, source)
    apply_releases(Registry(store), load_releases(POLICIES / "releases.toml"))
    return store


# Databases ---------------------------------------------------------------------------------

POSTGRES_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this test session, dropped afterwards."""
    from sqlalchemy import create_engine, text

    name = f"clausedesk_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def _empty_tables(url: str) -> None:
    from sqlalchemy import create_engine

    from agent.db.tables import Base, upgrade

    engine = create_engine(url)
    upgrade(engine)
    with engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            connection.execute(table.delete())
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path: Path) -> str:
    """Each test using this runs twice: on a fresh SQLite file and on the real PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'clausedesk.db'}"
    url = request.getfixturevalue("postgres_url")
    _empty_tables(url)
    return url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'clausedesk.db'}"


# The running system -------------------------------------------------------------------------


def make_live_app(database_url: str, store: ObjectStore, model=None, **overrides):
    from agent.api.app import create_app
    from agent.settings import Settings
    from tests.support import serve

    settings = Settings(database_url=database_url, **overrides)
    app = create_app(settings, model=model, store=store)
    from agent.seed import seed_policies

    seed_policies(app.state.services.sessions)
    return serve(app)


@pytest.fixture
def live(database_url: str, corpus_store: ObjectStore):
    """The real app over HTTP on SQLite and on PostgreSQL, seeded, offline model by default."""
    server = make_live_app(database_url, corpus_store)
    yield server
    server.stop()
    server.app.state.engine.dispose()


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
    """The live app with the development staff accounts seeded."""
    from agent.seed import seed_staff

    seed_staff(live.app.state.services.sessions)
    return live


@pytest.fixture
def wording_live(database_url, store):
    """The live app on its own bucket holding the whole corpus, released (tests that change
    the manifest never touch the shared corpus bucket), staff seeded."""
    from agent.seed import seed_staff
    from knowledge.ingest import ingest
    from knowledge.manifest import Registry
    from knowledge.releases import apply_releases, load_releases
    from knowledge.source import load_sources

    for source in load_sources(POLICIES):
        ingest(store, source)
    apply_releases(Registry(store), load_releases(POLICIES / "releases.toml"))
    server = make_live_app(database_url, store)
    seed_staff(server.app.state.services.sessions)
    yield server
    server.stop()
    server.app.state.engine.dispose()


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
