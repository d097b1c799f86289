"""docs/alerts.yml: Prometheus accepts the rules (`promtool check rules`, Debian's prometheus
package, installed by tests/run.sh) and every metric they name is one clausedesk serves."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from prometheus_client import REGISTRY

from agent import metrics
from agent.db.tables import make_engine, make_sessionmaker

RULES = Path(__file__).resolve().parent.parent / "docs" / "alerts.yml"


def test_promtool_accepts_the_alert_rules() -> None:
    promtool = shutil.which("promtool")
    # Not a skip: rules nobody checked are no better than none (tests/run.sh installs it).
    assert promtool, "promtool is missing: apt-get install prometheus (tests/run.sh does it)"
    result = subprocess.run(
        [promtool, "check", "rules", str(RULES)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_every_metric_the_rules_name_is_served(sqlite_url: str) -> None:
    served = {sample.name for family in REGISTRY.collect() for sample in family.samples}
    served |= {f"{family.name}{suffix}" for family in REGISTRY.collect() for suffix in ("_total", "_bucket")}
    engine = make_engine(sqlite_url)
    with make_sessionmaker(engine)() as session:
        served |= {family.name for family in metrics.database_gauges(session)}
    engine.dispose()
    served.add("clausedesk_database_up")
    named = set(re.findall(r"\bclausedesk_[a-z_]+", RULES.read_text(encoding="utf-8")))
    assert named, "the rules name no metric"
    assert named <= served, sorted(named - served)
