"""Object store settings, read from the environment (prefix CLAUSEDESK_S3_)."""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict


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
