"""The suite's budget, checked without timing anything: what a test module may start.

The suite stays under 10 minutes on two cores because expensive things happen once: an app
server is started once per test run and reused (tests/servers.py), a database is migrated
and seeded once (tests/databases.py), the corpus is ingested once per run or per module
(tests/conftest.py). A module that starts more than this fails at its end, naming what it
started: share a fixture instead (a module-scoped one, a fresh claim, the module's own
bucket restored after each test).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

# Most a test module may start. A module that builds a session fixture first pays for it
# (one server, one corpus load, one template of each database kind).
LIMITS = {
    "servers started": 2,  # uvicorn servers (each app a test builds is mounted on a pooled one)
    "corpus loads": 2,  # ingesting the whole Kowhai corpus into a bucket (about 3 s)
    "databases migrated": 2,  # migration runs (each template once per run; blank databases aside)
}


@dataclass
class Used:
    servers_started: int = 0
    corpus_loads: int = 0
    databases_migrated: int = 0

    def minus(self, other: Used) -> Used:
        return Used(**{k: v - getattr(other, k) for k, v in asdict(self).items()})

    def over(self) -> list[str]:
        used = {k.replace("_", " "): v for k, v in asdict(self).items()}
        return [f"{name} {used[name]} (limit {n})" for name, n in LIMITS.items() if used[name] > n]


USED = Used()


def snapshot() -> Used:
    return Used(**asdict(USED))
