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

from knowledge.errors import KnowledgeUnavailable, ObjectMissing, WriteConflict
from knowledge.settings import StoreSettings

log = logging.getLogger(__name__)

# Errors that mean "the store did not answer properly"; among them S3Error, whose code may
# say something else first (a missing key, a lost conditional write).
_TRANSPORT_ERRORS = (urllib3.exceptions.HTTPError, MinioException, OSError)
_MISSING_CODES = {"NoSuchKey", "NoSuchVersion", "NoSuchBucket"}
# A conditional write that lost: 412 when the object's ETag no longer matches (or it exists
# under If-None-Match), 409 while another conditional write of the key is in flight (AWS),
# and a missing key under If-Match (someone removed what was read).
_CONFLICT_CODES = {"PreconditionFailed", "ConditionalRequestConflict", "NoSuchKey"}

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
    etag: str | None = None  # without quotes; what a conditional write names (put's if_match)


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
        *,
        if_match: str | None = None,
        if_absent: bool = False,
    ) -> str | None:
        """Write an object; returns its S3 version ID. With `if_match` (an ETag) the write takes
        effect only if the object is still that one, with `if_absent` only if there is none;
        otherwise WriteConflict, and nothing is written. The store decides, atomically: S3 and
        MinIO honour If-Match / If-None-Match on PutObject (so does the moto server the tests
        and probes run)."""
        encoded = {k: quote(v, safe=" ,.-_/:()") for k, v in (metadata or {}).items()}
        if if_match is not None or if_absent:
            return self._put_conditional(key, data, encoded, content_type, if_match)
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

    def _put_conditional(
        self, key: str, data: bytes, metadata: dict[str, str], content_type: str, if_match: str | None
    ) -> str | None:
        headers = {f"x-amz-meta-{k}": v for k, v in metadata.items()}
        headers["Content-Type"] = content_type
        if if_match is not None:
            headers["If-Match"] = f'"{if_match}"'
        else:
            headers["If-None-Match"] = "*"
        try:
            # minio 7.2's put_object takes no condition headers; the PutObject call it makes
            # for a one-part body does, and sends them as given.
            result = self.client._put_object(self.bucket, key, data, headers)
        except _TRANSPORT_ERRORS as exc:
            if isinstance(exc, S3Error) and exc.code in _CONFLICT_CODES:
                raise WriteConflict(f"{key} changed since it was read ({exc.code})") from exc
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
        except _TRANSPORT_ERRORS as exc:
            if isinstance(exc, S3Error) and exc.code in _MISSING_CODES:
                raise ObjectMissing(f"{key} (version {version_id or 'latest'}) is not in the store") from exc
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
        etag = (headers.get("etag") or "").strip('"') or None
        return StoredObject(key, data, headers.get("x-amz-version-id"), metadata, etag)

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
