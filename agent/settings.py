"""Runtime settings in one object, read from the environment (prefix CLAUSEDESK_)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from knowledge.settings import SETTING_PREFIXES as STORE_PREFIXES
from knowledge.settings import StoreSettings

OutputMode = Literal["tool", "native", "prompted"]

CHECKOUT = Path(__file__).resolve().parents[1]  # the folder holding the agent package
# Known to everyone who has read the code: accepted in development only.
DEVELOPMENT_SECRET_KEY = "clausedesk-development-secret-change-me"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CLAUSEDESK_", extra="ignore")

    # "production" refuses to start with any development default (agent.production).
    env: Literal["development", "production"] = "development"
    # SQLite file by default; PostgreSQL as postgresql+psycopg://user@host/db.
    database_url: str = "sqlite:///.data/clausedesk.db"
    # "offline" is the built-in model; anything else is a litellm model string,
    # e.g. "openai/gpt-4o-mini", "anthropic/claude-sonnet-4-5", "bedrock/…", "ollama/qwen2.5".
    model: str = "offline"
    model_api_base: str | None = None
    model_api_key: str | None = None
    # One model request (litellm's and the OpenAI client's retries are off: one attempt).
    model_timeout_s: float = 30.0
    # How the model returns its structured reply: "tool" (a forced output tool call),
    # "native" (JSON-schema response format) or "prompted" (JSON asked for in the
    # instructions). Unset: chosen from the model's profile (see agent.models.selection).
    model_output: OutputMode | None = None
    # The offline model's evidence memory (agent.models.memory): "paraphrase" matches a question
    # to the governing wording's verified questions by BM25 and all-MiniLM-L6-v2, a sentence
    # encoder that recognises paraphrase; "fused" by BM25 and wordllama's embeddings; "lexical" by
    # BM25 alone (also what the first two fall back to, logged, when their package cannot load);
    # "off" matches titles only and serves as it selects, with no memory to back or doubt it.
    offline_memory: Literal["paraphrase", "fused", "lexical", "off"] = "paraphrase"
    # An evaluation's leave-one-out through HTTP (agent.api.middleware.EvaluationLeaveOut): the
    # question it scores, named in a header on a message to an evaluation claim, is left out of
    # the memory for that turn. Unset: on in development, off in production (which refuses it on).
    evaluation_leave_out: bool | None = None
    # Signs staff session cookies and CSRF tokens; set a real secret outside development.
    secret_key: str = DEVELOPMENT_SECRET_KEY
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
    # What a claimant reads: "quoted" (the default, for every model) is composed by the runtime
    # from whole clause sentences and the schedule, with no word the model wrote; "explained"
    # puts the model's short lead, under the free-text checks, before the same composition.
    answer_style: Literal["quoted", "explained"] = "quoted"
    # Production serves the explained style only when this names its published residual risk
    # (agent.production.EXPLAINED_RISK, docs/changelog.md): its checks do not hold.
    accept_explained_risk: str | None = None
    # What a drafted reply says about when to expect the answer until the last 28 days hold at
    # least 30 staff answers to promise from (agent.turn.waiting).
    draft_wait: str = "Our claims team usually answers within one working day."
    # The bar a subject (a clause, or a pooled rule) meets to answer claimants, and below which
    # it goes back to `drafts`: the one-sided 95 % upper bound of its served answers' wrong or
    # irrelevant share, measured on replayed evidence, at most this percent (agent.answering.bar).
    bar_wrong_percent: float = Field(5.0, ge=0, le=100)
    # A checkpoint measures a version again (a release check of all its evidence) after this many
    # new verified evidence rows; with auto_promote, the subjects that then meet the bar move to
    # `answers` by themselves (agent.wording.checkpoints).
    measure_every: int = Field(20, ge=1)
    auto_promote: bool = False
    # Claimants' words kept as evidence are dropped after this many days (agent.answering.retention);
    # None: kept until deleted on request.
    evidence_words_days: int | None = Field(None, ge=1)

    # Staff sessions (server-side): idle and absolute lifetimes.
    session_idle_s: int = 30 * 60
    session_absolute_s: int = 8 * 3600

    # Throttling (`limits` notation, e.g. "10/minute"). In memory per process unless
    # redis_url is set, then shared by every API process using that Redis.
    redis_url: str | None = None
    redis_key_prefix: str = "clausedesk"
    # Wrong staff passwords: per user from one address, per address, and per user from every
    # address (past that, only the addresses that guessed are refused: agent.throttle.Guard).
    limit_login_per_account_address: str = "5/minute;20/hour"
    limit_login_per_account: str = "5/minute;20/hour"
    limit_login_per_address: str = "20/minute;100/hour"
    limit_access_code_per_address: str = "30/minute"
    limit_access_code_per_claim: str = "10/minute"
    limit_messages_per_claim: str = "10/minute;60/hour"

    # Data folders: the policy sources, schedules and release records; the question inventory,
    # scenarios and labelled phrases. By default those of the checkout, wherever the process
    # starts (a release check asked of an API started elsewhere still finds its questions); a
    # relative path given in the environment is read from the working directory.
    policies_dir: Path = CHECKOUT / "policies"
    corpus_dir: Path = CHECKOUT / "corpus"
    # The evaluation's labelled decision phrases (`python -m agent evaluate`).
    decision_phrases: Path = CHECKOUT / "corpus" / "decision_phrases.tsv"

    # Claimants signed in by the insurer (agent.api.claimant_tokens): a short-lived JWT signed
    # with the insurer's private key, checked with its public keys (a PEM file, one or more
    # keys) or its JWKS URL (fetched within the timeout, cached). Issuer and audience are
    # required with either. Access codes can be turned off once the insurer signs everyone in.
    claimant_access_codes: bool = True
    claimant_token_public_keys: Path | None = None
    claimant_token_jwks_url: str | None = None
    claimant_token_issuer: str | None = None
    claimant_token_audience: str | None = None
    claimant_token_algorithms: list[Literal["RS256", "RS384", "RS512", "ES256", "ES384", "PS256"]] = [
        "RS256",
        "ES256",
    ]
    # A token may live at most this long from its `iat`; clock skew allowed on exp/iat.
    claimant_token_max_lifetime_s: int = 3600
    claimant_token_leeway_s: int = 30
    claimant_token_jwks_timeout_s: float = 3.0
    # The JWKS is trusted this long after each fetch (a key the insurer removed is refused once
    # it has passed); a key ID it does not hold fetches it again, at most once per refetch_s.
    claimant_token_jwks_cache_s: float = Field(300.0, gt=0)
    claimant_token_jwks_refetch_s: float = Field(10.0, ge=0)

    # Events out (agent.events): POSTed to this URL, signed with HMAC-SHA256 of the secret,
    # retried with exponential backoff until a 2xx. No URL: events wait in the outbox.
    events_url: str | None = None
    events_secret: str | None = None
    events_timeout_s: float = 5.0
    events_retry_base_s: float = 1.0
    events_retry_max_s: float = 300.0
    events_poll_s: float = 1.0

    # Input limits: request bodies are refused (413) past this many bytes before parsing.
    max_body_bytes: int = 64 * 1024
    # Conversation pages.
    conversation_page_size: int = 50
    conversation_max_page_size: int = 200

    # Hardening (issue 20). Wrong claimant access codes for one claim from one address; the
    # per-claim limit above then only refuses addresses that already sent a wrong code for it.
    limit_access_code_per_claim_address: str = "10/minute"
    # Proxies whose X-Forwarded-For is believed (comma-separated addresses or networks, e.g.
    # "10.0.0.0/8,127.0.0.1"); from any other peer the header is ignored. Empty: none.
    trusted_proxies: str = ""

    # Prometheus scrapes /metrics with this bearer token (agent.api.metrics); unset, /metrics
    # answers 404. A long random value of its own, never a staff or claimant token.
    metrics_token: str | None = Field(None, min_length=32)

    # A name for this process that /health reports (`instance`): what a probe or a load balancer
    # checks to know it reached the process it started, not whatever holds the port.
    instance: str | None = Field(None, max_length=64)

    @property
    def production(self) -> bool:
        return self.env == "production"

    @property
    def honours_leave_out(self) -> bool:
        return not self.production if self.evaluation_leave_out is None else self.evaluation_leave_out

    @property
    def store(self) -> StoreSettings:
        return StoreSettings()


# Each settings class's name -> its environment prefix, for one-line refusals (refused_settings).
SETTING_PREFIXES = {**STORE_PREFIXES, Settings.__name__: "CLAUSEDESK_"}


@lru_cache
def get_settings() -> Settings:
    return Settings()
