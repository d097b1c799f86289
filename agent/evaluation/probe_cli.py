"""`python -m agent probe KIND`: runs one probe (agent.evaluation.probes, agent.evaluation.race_probe)
and prints its figures as JSON; exit 1 when a probe saw what it must not."""

from __future__ import annotations

import json
import sys
from contextlib import suppress
from pathlib import Path
from typing import Any

from agent.evaluation.probes import run_fuzz, run_load
from agent.evaluation.race_probe import FAILING, run_races


def main(args: Any) -> int:
    """`python -m agent probe KIND`: prints the figures as JSON (and writes them with --json)."""
    if args.kind == "races":
        results = run_races(trials=args.trials, database=args.database)
        failed = any(results.get(k) for k in FAILING)
    elif args.kind == "fuzz":
        results: Any = run_fuzz(databases=tuple(args.databases), cases_per_operation=args.cases)
        failed = any(r["5xx"] for r in results)
    else:
        kill = "server" if args.kind == "load" else "store"
        results = run_load(seconds=args.seconds, claimants=args.claimants, kill=kill, database=args.database)
        # A 4xx is no claimant's to get here (limits are open, tokens valid): it fails the probe.
        bad = ("lost", "duplicated", "out_of_order", "unanswered", "5xx", "other_4xx", "gave_up")
        failed = any(results[k] for k in bad)
    text_out = json.dumps(results, indent=2, default=str)
    print(text_out)
    if args.json:
        Path(args.json).write_text(text_out + "\n", encoding="utf-8")
    with suppress(Exception):
        sys.stdout.flush()
    return 1 if failed else 0
