"""`python -m agent curve`: its arguments, and the runs it makes (one per bar asked)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from agent.evaluation.curve_defaults import DEFAULT_CHECKPOINTS, DEFAULT_SEED, FAMILIES

DESCRIPTION = (
    "Starts its own system (a temporary SQLite database, a local S3 server, the app over HTTP in "
    "this process) for each bar and replays an inventory through the HTTP API: a claimant asks each "
    "streamed question on a fresh claim, a scripted handler answers every drafted or routed item "
    "through the staff API citing the labelled clauses and flags every served answer the facts "
    "judge wrong; at each checkpoint the policy owner measures and promotes (or the system promotes "
    "by itself) and the scored part is asked and judged. Writes report.json and report.html."
)


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    c = sub.add_parser(
        "curve", help="the learning curve: answers earned from a handler's work", description=DESCRIPTION
    )
    c.add_argument("--family", choices=FAMILIES, default="kowhai", help="the inventory: kowhai or axa-car")
    c.add_argument(
        "--model",
        default="offline",
        help="offline (default), a litellm model string, or scripted:P (evaluation only, right P of the "
        "time)",
    )
    c.add_argument("--api-base", help="the litellm model's API base URL")
    c.add_argument(
        "--bar",
        type=float,
        action="append",
        help="the bar X: served wrong or irrelevant at most X %% (repeat for runs side by side; default 5)",
    )
    c.add_argument("--promotion", choices=("owner", "automatic"), default="owner")
    c.add_argument(
        "--checkpoints",
        default=DEFAULT_CHECKPOINTS,
        help=f"questions streamed (default {DEFAULT_CHECKPOINTS})",
    )
    c.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the stream's order (and the AXA split)")
    c.add_argument("--stream", type=int, help="stream at most this many questions (a smoke run)")
    c.add_argument("--scored", type=int, help="score at most this many questions (a smoke run)")
    c.add_argument("--measure-every", type=int, default=20, help="evidence rows per automatic checkpoint")
    c.add_argument(
        "--compare", type=Path, nargs="*", default=[], help="earlier report.json files drawn beside"
    )
    c.add_argument(
        "--out", type=Path, default=Path("reports/curve"), help="folder for report.json and report.html"
    )
    c.set_defaults(run=run)
    return c


def run(args: argparse.Namespace) -> int:
    # Here, not at the top: every command's parser reads this module, and the curve loads the system.
    from agent.evaluation.curve import RunOptions, run_curve
    from agent.evaluation.curve_models import ScriptedSpecError, scripted_accuracy
    from agent.evaluation.curve_report import CompareError, load_runs, render_text, report_of, write_report

    logging.getLogger().setLevel(logging.WARNING)
    logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs each index it builds at DEBUG
    try:
        scripted_accuracy(args.model)
        earlier = load_runs(args.compare)
    except (ScriptedSpecError, CompareError) as exc:
        print(f"curve: {exc}", file=sys.stderr)
        return 2
    bars = args.bar or [5.0]
    if any(not 0 <= b <= 100 for b in bars):
        print("curve: --bar is a percentage between 0 and 100", file=sys.stderr)
        return 2
    runs = []
    for bar in bars:
        options = RunOptions(
            family=args.family,
            model=args.model,
            bar=bar,
            promotion=args.promotion,
            checkpoints=args.checkpoints,
            seed=args.seed,
            stream=args.stream,
            scored=args.scored,
            measure_every=args.measure_every,
            api_base=args.api_base,
        )
        try:
            runs.append(run_curve(options))
        except ValueError as exc:
            print(f"curve: {exc}", file=sys.stderr)
            return 2
    report = report_of([*runs, *earlier], args.compare)
    print(render_text(report))
    json_path, html_path = write_report(report, args.out)
    print(f"\nreport: {json_path}  {html_path}")
    return 0
