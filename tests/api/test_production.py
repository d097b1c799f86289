"""CLAUSEDESK_ENV=production refuses every development default (finding 1), staff users
come from `agent staff add` with a password that is never printed, and the session
cookie is Secure and HSTS is sent in production."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import httpx
import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from agent.api.app import create_app
from agent.db.tables import Claim
from agent.evaluation.localstore import free_port
from agent.production import ProductionRefused
from agent.security import hash_token, new_token
from agent.settings import Settings
from tests.conftest import REPO, STAFF_PASSWORDS, STAFF_TOKENS
from tests.support import run_agent

pytestmark = pytest.mark.slow

SECRET = "a-long-random-production-secret-0123456789abcdef"
STORE = {"CLAUSEDESK_S3_ACCESS_KEY": "prod-access", "CLAUSEDESK_S3_SECRET_KEY": "prod-store-secret"}


def agent_cmd(*args: str, env: dict[str, str], stdin: str | None = None, timeout: float = 60):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CLAUSEDESK_")}
    return run_agent(*args, env={**clean, **env}, stdin=stdin, timeout=timeout)


def production_env(database_url: str, **overrides: str) -> dict[str, str]:
    env = {
        "CLAUSEDESK_ENV": "production",
        "CLAUSEDESK_DATABASE_URL": database_url,
        "CLAUSEDESK_SECRET_KEY": SECRET,
        **STORE,
    }
    env.update(overrides)
    return {k: v for k, v in env.items() if v != ""}


@pytest.mark.parametrize(
    ("unset", "named"),
    [
        ("CLAUSEDESK_SECRET_KEY", "CLAUSEDESK_SECRET_KEY"),
        ("CLAUSEDESK_S3_ACCESS_KEY", "CLAUSEDESK_S3_ACCESS_KEY"),
        ("CLAUSEDESK_S3_SECRET_KEY", "CLAUSEDESK_S3_SECRET_KEY"),
    ],
)
def test_production_serve_with_a_development_default_exits_naming_the_setting(
    sqlite_url, unset, named
) -> None:
    started = agent_cmd("serve", "--port", str(free_port()), env=production_env(sqlite_url, **{unset: ""}))
    assert started.returncode != 0
    assert named in started.stderr
    assert "production refuses to start" in started.stderr


def test_production_serve_with_development_staff_active_exits_naming_them(database_url) -> None:
    seeded = agent_cmd("seed", env={"CLAUSEDESK_DATABASE_URL": database_url})
    assert seeded.returncode == 0, seeded.stderr
    assert "dev-staff-aroha-pw" not in seeded.stdout and "dev-staff-token" not in seeded.stdout

    started = agent_cmd("serve", "--port", str(free_port()), env=production_env(database_url))
    assert started.returncode != 0
    assert "development staff accounts are active (aroha.staff, tama.staff, mere.staff)" in started.stderr
    assert "staff disable" in started.stderr
    with pytest.raises(ProductionRefused, match=r"aroha\.staff"):
        create_app(Settings(env="production", database_url=database_url, secret_key=SECRET))

    for user in ("aroha.staff", "tama.staff", "mere.staff"):
        disabled = agent_cmd("staff", "disable", user, env={"CLAUSEDESK_DATABASE_URL": database_url})
        assert disabled.returncode == 0, disabled.stderr
    # Seeding in production leaves the development accounts disabled.
    reseeded = agent_cmd("seed", env=production_env(database_url))
    assert reseeded.returncode == 0, reseeded.stderr
    assert "development staff users are not seeded" in reseeded.stderr
    listed = agent_cmd("staff", "list", env=production_env(database_url)).stdout
    assert re.search(r"aroha\.staff\s+Aroha Ngata\s+disabled", listed)


def test_app_creation_in_production_refuses_the_development_secret(sqlite_url) -> None:
    with pytest.raises(ProductionRefused, match="CLAUSEDESK_SECRET_KEY"):
        create_app(Settings(env="production", database_url=sqlite_url))


def test_production_serves_with_real_settings_secure_cookie_and_hsts(
    empty_database_url, s3_server, corpus_store
) -> None:
    env = production_env(
        empty_database_url,
        CLAUSEDESK_S3_ENDPOINT=s3_server.endpoint,
        CLAUSEDESK_S3_BUCKET=corpus_store.settings.bucket,
    )
    password = "correct horse battery staple"
    added = agent_cmd(
        "staff",
        "add",
        "rawiri.h",
        "--name",
        "Rawiri Hohaia",
        "--password-stdin",
        env=env,
        stdin=password + "\n",
    )
    assert added.returncode == 0, added.stderr
    assert password not in added.stdout + added.stderr
    again = agent_cmd("staff", "add", "rawiri.h", "--password-stdin", env=env, stdin=password + "\n")
    assert again.returncode == 2 and "exists already" in again.stderr
    short = agent_cmd("staff", "add", "hemi.k", "--password-stdin", env=env, stdin="short\n")
    assert short.returncode == 2 and "at least 12 characters" in short.stderr

    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CLAUSEDESK_")}
    server = subprocess.Popen(
        [sys.executable, "-m", "agent", "serve", "--port", str(port)],
        env={**clean, **env},
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, server.stderr.read()
            try:
                health = httpx.get(f"{base}/health", timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the production server did not start"
                time.sleep(0.2)
        assert health.status_code == 200, health.text
        assert health.headers["strict-transport-security"].startswith("max-age=")

        # A Secure cookie is not sent back over plain HTTP, so the test hands it back itself.
        form = httpx.get(f"{base}/staff/login")
        csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
        assert "secure" in form.headers["set-cookie"].lower()
        login = httpx.post(
            f"{base}/staff/login",
            data={"username": "rawiri.h", "password": password, "csrf": csrf},
            headers={"Cookie": form.headers["set-cookie"].split(";")[0]},
        )
        assert login.status_code == 303, login.text
        cookie = login.headers["set-cookie"]
        assert "secure" in cookie.lower() and "httponly" in cookie.lower()
        queue = httpx.get(f"{base}/staff", headers={"Cookie": cookie.split(";")[0]})
        assert queue.status_code == 200 and "Rawiri Hohaia" in queue.text
        api = httpx.post(f"{base}/staff/api/login", json={"username": "rawiri.h", "password": password})
        assert api.status_code == 201
        me = httpx.get(f"{base}/staff/api/me", headers={"Authorization": f"Bearer {api.json()['token']}"})
        assert me.json() == {"username": "rawiri.h", "display_name": "Rawiri Hohaia", "roles": ["handler"]}
        # The development accounts were never created here: their token opens nothing.
        dev = httpx.get(
            f"{base}/staff/api/me", headers={"Authorization": f"Bearer {STAFF_TOKENS['aroha.staff']}"}
        )
        assert dev.status_code == 401
        refused = httpx.post(
            f"{base}/staff/api/login",
            json={"username": "aroha.staff", "password": STAFF_PASSWORDS["aroha.staff"]},
        )
        assert refused.status_code == 401
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_production_seed_creates_no_development_claims(empty_database_url) -> None:
    database_url = empty_database_url
    seeded = agent_cmd("seed", env=production_env(database_url))
    assert seeded.returncode == 0, seeded.stderr
    assert "development claims are not seeded" in seeded.stderr
    assert "dev-claimant" not in seeded.stdout + seeded.stderr
    engine = create_engine(database_url)
    with Session(engine) as session:
        claims = session.scalars(select(Claim.claim_id)).all()
    engine.dispose()
    assert claims == []


def test_production_serve_with_development_claims_exits_naming_them(database_url, monkeypatch) -> None:
    seeded = agent_cmd("seed", env={"CLAUSEDESK_DATABASE_URL": database_url})
    assert seeded.returncode == 0, seeded.stderr
    for user in ("aroha.staff", "tama.staff", "mere.staff"):  # only the claims are left to refuse
        agent_cmd("staff", "disable", user, env={"CLAUSEDESK_DATABASE_URL": database_url})

    started = agent_cmd("serve", "--port", str(free_port()), env=production_env(database_url))
    assert started.returncode != 0
    named = "development claims open with their published access codes (CLM-118230, CLM-204518"
    assert named in started.stderr
    assert "development staff accounts" not in started.stderr
    for name, value in STORE.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ProductionRefused, match="CLM-204518"):
        create_app(Settings(env="production", database_url=database_url, secret_key=SECRET))

    # A claim given a new access code is no longer a development claim anyone can open.
    engine = create_engine(database_url)
    with Session(engine) as session, session.begin():
        for claim in session.scalars(select(Claim)):
            claim.token_hash = hash_token(new_token())
    engine.dispose()
    app = create_app(Settings(env="production", database_url=database_url, secret_key=SECRET))
    app.state.engine.dispose()


def test_production_refuses_the_explained_style_unless_its_published_risk_is_accepted_by_name(
    sqlite_url, monkeypatch
) -> None:
    from agent.production import EXPLAINED_RISK, check_production, settings_problems

    for name, value in STORE.items():
        monkeypatch.setenv(name, value)
    real = {"env": "production", "database_url": sqlite_url, "secret_key": SECRET}
    quoted = Settings(**real)
    assert settings_problems(quoted) == []
    for accepted in (None, "yes", "explained-lead"):
        explained = Settings(**real, answer_style="explained", accept_explained_risk=accepted)
        [problem] = settings_problems(explained)
        assert "CLAUSEDESK_ANSWER_STYLE=explained" in problem and EXPLAINED_RISK in problem
        assert "\n" not in problem
    named = Settings(**real, answer_style="explained", accept_explained_risk=EXPLAINED_RISK)
    assert settings_problems(named) == []
    # Outside production the style is a development choice.
    check_production(Settings(database_url=sqlite_url, answer_style="explained"))
    started = agent_cmd(
        "serve",
        "--port",
        str(free_port()),
        env=production_env(sqlite_url, CLAUSEDESK_ANSWER_STYLE="explained"),
    )
    assert started.returncode != 0
    assert f"CLAUSEDESK_ACCEPT_EXPLAINED_RISK={EXPLAINED_RISK}" in started.stderr


def test_production_never_honours_an_evaluation_leave_out(sqlite_url, monkeypatch) -> None:
    """The evaluation's leave-one-out header is honoured in development only: production leaves
    it unset (off) and refuses it turned on, so no request can change what the memory recalls."""
    from agent.production import settings_problems

    for name, value in STORE.items():
        monkeypatch.setenv(name, value)
    real = {"env": "production", "database_url": sqlite_url, "secret_key": SECRET}
    assert not Settings(**real).honours_leave_out and settings_problems(Settings(**real)) == []
    [problem] = settings_problems(Settings(**real, evaluation_leave_out=True))
    assert "CLAUSEDESK_EVALUATION_LEAVE_OUT" in problem
    assert Settings(database_url=sqlite_url).honours_leave_out
    assert not Settings(database_url=sqlite_url, evaluation_leave_out=False).honours_leave_out
