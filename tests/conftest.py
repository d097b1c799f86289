"""Shared fixtures: a real S3 server over HTTP, started once per test session."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic_ai import models

from knowledge.localstore import LocalS3, start_local_s3
from knowledge.settings import StoreSettings
from knowledge.store import ObjectStore

# No test may reach a real model provider.
models.ALLOW_MODEL_REQUESTS = False

REPO = Path(__file__).resolve().parent.parent
POLICIES = REPO / "policies"


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
