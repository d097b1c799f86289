"""Playing attacks through the real app over HTTP: each on a fresh claim, in both answer
styles, with the app's runner given the attack's hostile model; `run_adversarial_suite`
starts an app of its own for it."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.evaluation.attacks.adversary import adversary
from agent.evaluation.attacks.attack import Attack
from agent.evaluation.attacks.catalogue import catalogue
from agent.evaluation.attacks.judging import STYLES, Outcome, Suite, judge
from agent.evaluation.harness import Harness


def play(attack: Attack, app: Any, harness: Harness, style: str = "quoted") -> Outcome:
    """All the attack's turns on a fresh claim (cloned from its seeded claim) over HTTP, with
    the app's runner in the given answer style."""
    runner = app.state.services.runner
    runner.model = adversary(attack)
    runner.settings = runner.settings.model_copy(update={"answer_style": style})
    claim = harness.open_claim(attack.claim)
    exchange = None
    for turn in attack.turns:
        exchange = harness.send(claim, turn.question)
    assert exchange is not None
    return judge(attack, style, exchange.status_code, exchange.reply, exchange.turn, claim.claim_id)


def run_attacks(
    app: Any,
    base_url: str,
    attacks: list[Attack] | None = None,
    *,
    progress: Callable[[str], None] | None = None,
) -> Suite:
    """Play every attack in both styles, one at a time, against `app` served at `base_url`.

    The app's runner gets each attack's model and style in turn, so nothing else may use the
    app meanwhile; its database is read for the turn records.
    """
    suite = Suite()
    harness = Harness(base_url, app.state.services.settings.database_url)
    runner = app.state.services.runner
    original = (runner.model, runner.settings)
    try:
        for a in attacks if attacks is not None else catalogue():
            quoted, explained = (play(a, app, harness, style) for style in STYLES)
            suite.quoted.add(quoted)
            suite.explained.add(explained)
            if progress:
                progress(
                    f"attack {a.id}: quoted {'held' if quoted.blocked else 'SERVED ' + quoted.why}; "
                    f"explained {'blocked' if explained.blocked else 'served'}"
                )
    finally:
        runner.model, runner.settings = original
        harness.close()
    return suite


def run_adversarial_suite(
    store: Any = None,
    attacks: list[Attack] | None = None,
    *,
    progress: Callable[[str], None] | None = None,
) -> Suite:
    """Self-contained: the app in this process on a temporary SQLite file, over HTTP on a
    free local port, with the store the settings name (the one the evaluation uses)."""
    from agent.api.app import create_app
    from agent.db.tables import make_engine, make_sessionmaker, upgrade
    from agent.evaluation.harness import answer_everything
    from agent.evaluation.serving import serve_in_thread
    from agent.seed import seed_policies
    from agent.settings import Settings

    folder = Path(tempfile.mkdtemp(prefix="clausedesk-attacks-"))
    settings = Settings(database_url=f"sqlite:///{folder / 'attacks.db'}")
    engine = make_engine(settings.database_url)
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    seed_policies(sessions)
    answer_everything(sessions, store)  # what a model can bend is what is served
    engine.dispose()
    app = create_app(settings, model=adversary(Attack("none", "", "", (), (), frozenset())), store=store)
    url, server, thread = serve_in_thread(app)
    try:
        return run_attacks(app, url, attacks, progress=progress)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        app.state.engine.dispose()
