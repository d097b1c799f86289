"""S3 access through the minio client: one versioned bucket, bounded timeouts, typed errors.

The same code runs against real MinIO and against the local S3-compatible stand-in.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, unquote

import urllib3
from minio import Minio
from minio.error import MinioException, S3Error
from minio.versioningconfig import ENABLED, VersioningConfig

from knowledge.errors import KnowledgeUnavailable, ObjectMissing
from knowledge.settings import StoreSettings

log = logging.getLogger(__name__)

# Errors that mean "the store did not answer properly", as opposed to a missing key.
_TRANSPORT_ERRORS = (urllib3.exceptions.HTTPError, MinioException, OSError)
_MISSING_CODES = {"NoSuchKey", "NoSuchVersion", "NoSuchBucket"}

# Told of every failed call as (operation, error class name): the API's metrics count them
# (knowledge never imports agent, so agent registers here).
FailureListener = Callable[[str, str], None]
_LISTENERS: list[FailureListener] = []


def on_failure(listener: FailureListener) -> None:
    """Call `listener(operation, kind)` on each store call that fails (once per listener)."""
    if listener not in _LISTENERS:
        _LISTENERS.append(listener)


@dataclass(frozen=True)
class StoredObject:
    key: str
    data: bytes
    version_id: str | None
    metadata: dict[str, str]


class ObjectStore:
    """A thin, typed wrapper over one bucket. Metadata values are percent-encoded ASCII."""

    def __init__(self, settings: StoreSettings | None = None):
        self.settings = settings or StoreSettings()
        s = self.settings
        http = urllib3.PoolManager(
            timeout=urllib3.Timeout(connect=s.connect_timeout_s, read=s.read_timeout_s),
            retries=urllib3.Retry(
                total=s.retries, connect=s.retries, read=0, backoff_factor=0.05, redirect=0
            ),
            maxsize=16,
        )
        self.bucket = s.bucket
        self.client = Minio(
            s.endpoint,
            access_key=s.access_key,
            secret_key=s.secret_key,
            secure=s.secure,
            region=s.region,
            http_client=http,
        )

    def ensure_bucket(self) -> None:
        """Create the bucket if needed and switch versioning on (idempotent)."""
        try:
            if not self.client.bucket_exists(self.bucket):
                self.client.make_bucket(self.bucket)
            self.client.set_bucket_versioning(self.bucket, VersioningConfig(ENABLED))
        except _TRANSPORT_ERRORS as exc:
            raise self._unavailable("prepare", "prepare bucket", exc) from exc

    def put(
        self,
        key: str,
        data: bytes,
        metadata: dict[str, str] | None = None,
        content_type: str = "text/markdown; charset=utf-8",
    ) -> str | None:
        """Write an object; returns its S3 version ID."""
        encoded = {k: quote(v, safe=" ,.-_/:()") for k, v in (metadata or {}).items()}
        try:
            result = self.client.put_object(
                self.bucket,
                key,
                io.BytesIO(data),
                len(data),
                content_type=content_type,
                metadata=encoded,
            )
        except _TRANSPORT_ERRORS as exc:
            raise self._unavailable("write", f"write {key}", exc) from exc
        return result.version_id

    def get(self, key: str, version_id: str | None = None) -> StoredObject:
        """Read a whole object (a given version when named). Missing keys raise ObjectMissing."""
        response = None
        data: bytes | None = None
        try:
            response = self.client.get_object(self.bucket, key, version_id=version_id)
            data = response.read()
            headers = response.headers
        except S3Error as exc:
            if exc.code in _MISSING_CODES:
                raise ObjectMissing(f"{key} (version {version_id or 'latest'}) is not in the store") from exc
            raise self._unavailable("read", f"read {key}", exc) from exc
        except _TRANSPORT_ERRORS as exc:
            raise self._unavailable("read", f"read {key}", exc) from exc
        finally:
            if response is not None:
                # A body read to the end hands its connection back to the pool for the next
                # request; anything else closes it (close() would also drop a good one).
                if data is None:
                    response.close()
                response.release_conn()
        metadata = {
            name[len("x-amz-meta-") :].lower(): unquote(value)
            for name, value in headers.items()
            if name.lower().startswith("x-amz-meta-")
        }
        return StoredObject(key, data, headers.get("x-amz-version-id"), metadata)

    def keys(self, prefix: str) -> list[str]:
        try:
            return [
                o.object_name for o in self.client.list_objects(self.bucket, prefix=prefix, recursive=True)
            ]
        except _TRANSPORT_ERRORS as exc:
            raise self._unavailable("list", f"list {prefix}", exc) from exc

    def _unavailable(self, operation: str, action: str, exc: Exception) -> KnowledgeUnavailable:
        for listener in _LISTENERS:
            listener(operation, type(exc).__name__)
        log.warning(
            "object store unavailable: %s at %s: %s", action, self.settings.endpoint, type(exc).__name__
        )
        return KnowledgeUnavailable(
            f"object store at {self.settings.endpoint} could not {action}: {type(exc).__name__}"
        )
