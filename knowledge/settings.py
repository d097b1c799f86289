"""Object store settings, read from the environment (prefix CLAUSEDESK_S3_)."""

from __future__ import annotations

import re

from pydantic import ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")


class StoreSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CLAUSEDESK_S3_", extra="ignore")

    endpoint: str = "127.0.0.1:9000"
    access_key: str = "clausedesk"
    secret_key: str = "clausedesk-secret"
    bucket: str = "clausedesk-knowledge"
    region: str = "us-east-1"
    secure: bool = False
    # Bounded so a stopped store fails fast and a hung one cannot stall a turn.
    connect_timeout_s: float = 1.0
    read_timeout_s: float = 3.0
    retries: int = 1

    @field_validator("bucket")
    @classmethod
    def valid_bucket_name(cls, value: str) -> str:
        if not _BUCKET.match(value):
            raise ValueError(
                f"bucket name {value!r} is not a valid S3 bucket name "
                "(3 to 63 lower-case letters, digits, dots and hyphens)"
            )
        return value

    @field_validator("endpoint")
    @classmethod
    def host_and_port(cls, value: str) -> str:
        if "://" in value or "/" in value:
            raise ValueError(f"endpoint {value!r} must be host:port, without a scheme or path")
        return value


class ImportSettings(BaseSettings):
    """Bounds of `knowledge import` (prefix CLAUSEDESK_IMPORT_): a wording past them is refused
    before it is read, so a damaged or hostile file cannot exhaust the machine."""

    model_config = SettingsConfigDict(env_prefix="CLAUSEDESK_IMPORT_", extra="ignore")

    # The largest real wording seen is 4 MB and 104 pages; a bound well above that.
    max_bytes: int = 50_000_000
    max_pages: int = 3_000
    # A DOCX is a zip: what it would unpack to, in all and as a ratio of its packed size.
    max_decompressed_bytes: int = 200_000_000
    max_compression_ratio: int = 100


def refused_settings(exc: ValidationError, prefixes: dict[str, str]) -> str:
    """A settings error in one line, by environment variable (`prefixes`: the settings class's
    name -> its prefix); the refused value is never echoed, as it may be a secret."""
    prefix = prefixes.get(exc.title, "")
    problems = "; ".join(
        f"{prefix}{'_'.join(str(p) for p in e['loc'])}".upper() + f": {e['msg']}" for e in exc.errors()
    )
    return f"error: a start-up setting was refused: {problems}"


SETTING_PREFIXES = {
    cls.__name__: str(cls.model_config.get("env_prefix", "")) for cls in (StoreSettings, ImportSettings)
}
