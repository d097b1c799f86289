"""Runtime settings in one object, read from the environment (prefix CLAUSEDESK_)."""

from __future__ import annotations

from functools import lru_cache

from pydantic_settings import BaseSettings, SettingsConfigDict

from knowledge.settings import StoreSettings


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CLAUSEDESK_", extra="ignore")

    # SQLite file by default; PostgreSQL as postgresql+psycopg://user@host/db.
    database_url: str = "sqlite:///.data/clausedesk.db"
    # "offline" is the built-in model; anything else is a litellm model string,
    # e.g. "openai/gpt-4o-mini", "anthropic/claude-sonnet-4-5", "bedrock/…", "ollama/qwen2.5".
    model: str = "offline"
    model_api_base: str | None = None
    model_api_key: str | None = None
    model_timeout_s: float = 30.0
    # Signs staff session cookies and CSRF tokens; set a real secret outside development.
    secret_key: str = "clausedesk-development-secret-change-me"
    max_message_chars: int = 2000
    # The whole turn's model work (every request, tool call and retry); past it the question
    # is routed with reason model_timeout.
    turn_deadline_s: float = 60.0
    # One turn at a time per claim: the lease's time to live (renewed while held).
    turn_lease_ttl_s: float = 15.0
    # Messages left without a turn (a killed process) are swept this often, once older than
    # the grace period, and routed to staff as `interrupted`.
    recovery_interval_s: float = 10.0
    interrupted_grace_s: float = 10.0
    # Without an Idempotency-Key, the same text on the same claim while the first copy waits for
    # its turn (and within this window) is a retry of it.
    duplicate_window_s: float = 120.0

    @property
    def store(self) -> StoreSettings:
        return StoreSettings()


@lru_cache
def get_settings() -> Settings:
    return Settings()
