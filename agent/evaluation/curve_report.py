"""The learning curve's report: report.json, and report.html with a table per run and a plot
(inline SVG, no dependency) of answered right and served wrong against questions streamed, every
run drawn side by side (several bars, models, or earlier report.json files compared)."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
WIDTH, HEIGHT, PAD = 640, 320, 48
COLUMNS = (
    ("streamed", "streamed"),
    ("evidence", "evidence rows"),
    ("answering", "clauses answering"),
    ("served", "served"),
    ("served_wrong", "served wrong or irrelevant"),
    ("served_wrong_share", "share of served"),
    ("served_wrong_upper_bound", "95 % upper bound"),
    ("answered_right_share", "answered right (of answerable)"),
    ("drafted", "drafted"),
    ("drafts_sendable", "drafts sendable unchanged"),
)


class CompareError(ValueError):
    """A --compare file that is not a learning-curve report."""


def load_runs(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """The runs of earlier report.json files, each marked with the file it came from."""
    runs = []
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CompareError(f"{path}: cannot read a report ({exc})") from exc
        if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
            raise CompareError(f"{path}: not a learning-curve report (no `runs` list)")
        runs += [{**run, "from_file": str(path)} for run in data["runs"]]
    return runs


def label(run: dict[str, Any]) -> str:
    return f"{run['family']} · {run['model']} · bar {run['bar_wrong_percent']:g} % · {run['promotion']}"


def row(point: dict[str, Any]) -> dict[str, Any]:
    """One checkpoint as the table shows it."""
    held = point["scored"]
    return {
        "streamed": point["streamed"],
        "evidence": sum(point.get("evidence", {}).values()),
        "answering": sum(point.get("answering", {}).values()),
        **{k: held.get(k) for k, _ in COLUMNS[3:]},
    }


def _cell(key: str, value: Any, held: dict[str, Any] | None = None) -> str:
    if value is None:
        return "–"
    if key.endswith("_share") or key.endswith("_bound"):
        return f"{value:.1%}"
    return str(value)


def render_text(report: dict[str, Any]) -> str:
    lines = []
    for run in report["runs"]:
        lines.append(label(run))
        lines.append("  " + " | ".join(title for _, title in COLUMNS))
        for point in run["checkpoints"]:
            r = row(point)
            lines.append("  " + " | ".join(_cell(k, r[k]) for k, _ in COLUMNS))
    return "\n".join(lines)


def _scale(value: float, top: float, span: int) -> float:
    return span * (value / top) if top else 0.0


def plot(
    runs: Sequence[dict[str, Any]], key: str, title: str, *, top: float | None = None, bars: bool = False
) -> str:
    """One SVG: `key` (a share of the scored part) against questions streamed, a line per run;
    with `bars`, each run's bar X as a dashed line."""
    x_top = max((p["streamed"] for r in runs for p in r["checkpoints"]), default=0) or 1
    values = [p["scored"].get(key) for r in runs for p in r["checkpoints"]]
    limits = [r["bar_wrong_percent"] / 100 for r in runs] if bars else []
    y_top = top or max([v for v in values if v is not None] + limits + [0.05])
    inner_w, inner_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD
    height = HEIGHT + 14 * len(runs) + 6  # the legend goes under the plot, a line per run
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" role="img" '
        f'aria-label="{html.escape(title)}">',
        f'<text x="{PAD}" y="20" font-size="14">{html.escape(title)}</text>',
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" stroke="#333"/>',
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="#333"/>',
    ]
    for fraction in (0, 0.5, 1):
        y = HEIGHT - PAD - inner_h * fraction
        parts.append(f'<text x="4" y="{y + 4:.0f}" font-size="11">{y_top * fraction:.0%}</text>')
    for point in sorted({p["streamed"] for r in runs for p in r["checkpoints"]}):
        x = PAD + _scale(point, x_top, inner_w)
        parts.append(f'<text x="{x - 8:.0f}" y="{HEIGHT - PAD + 16}" font-size="11">{point}</text>')
    parts.append(f'<text x="{WIDTH / 2 - 50:.0f}" y="{HEIGHT - 8}" font-size="11">questions streamed</text>')
    for i, run in enumerate(runs):
        colour = COLOURS[i % len(COLOURS)]
        xy = [
            (
                PAD + _scale(p["streamed"], x_top, inner_w),
                HEIGHT - PAD - _scale(p["scored"][key], y_top, inner_h),
            )
            for p in run["checkpoints"]
            if p["scored"].get(key) is not None
        ]
        if bars:
            y = HEIGHT - PAD - _scale(run["bar_wrong_percent"] / 100, y_top, inner_h)
            parts.append(
                f'<line x1="{PAD}" y1="{y:.1f}" x2="{WIDTH - PAD}" y2="{y:.1f}" stroke="{colour}" '
                'stroke-dasharray="4 4"/>'
            )
        if xy:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
            parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>' for x, y in xy]
        parts.append(
            f'<text x="{PAD}" y="{HEIGHT + 8 + 14 * i}" font-size="11" fill="{colour}">'
            f"{html.escape(label(run))}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def render_html(report: dict[str, Any]) -> str:
    runs = report["runs"]
    tables = []
    for run in runs:
        head = "".join(f"<th>{html.escape(title)}</th>" for _, title in COLUMNS)
        body = "".join(
            "<tr>" + "".join(f"<td>{_cell(k, r[k])}</td>" for k, _ in COLUMNS) + "</tr>"
            for r in (row(p) for p in run["checkpoints"])
        )
        source = f" (from {html.escape(run['from_file'])})" if run.get("from_file") else ""
        tables.append(
            f"<h2>{html.escape(label(run))}{source}</h2>"
            f"<p>{html.escape(run['split'])}; {run['streamed']} streamed, {run['scored']} scored; "
            f"seed {run['seed']}; {run['elapsed_s']} s.</p>"
            f"<table><tr>{head}</tr>{body}</table>"
        )
    plots = (
        plot(runs, "answered_right_share", "answered right, share of answerable (scored part)", top=1.0),
        plot(
            runs,
            "served_wrong_share",
            "served wrong or irrelevant, share of served (scored part; dashed: the bar)",
            bars=True,
        ),
        plot(
            runs,
            "drafts_sendable_share",
            "drafts sendable unchanged, share of drafted (scored part)",
            top=1.0,
        ),
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Learning curve</title>"
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}</style></head><body>"
        f"<h1>Learning curve</h1><p>Generated {html.escape(report['generated_at'])}.</p>"
        + "".join(f"<figure>{p}</figure>" for p in plots)
        + "".join(tables)
        + "</body></html>"
    )


def report_of(runs: list[dict[str, Any]], compared: Sequence[Path] = ()) -> dict[str, Any]:
    return {
        "kind": "learning curve",
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "compared": [str(p) for p in compared],
        "runs": runs,
    }


def write_report(report: dict[str, Any], folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    json_path, html_path = folder / "report.json", folder / "report.html"
    json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    html_path.write_text(render_html(report), encoding="utf-8")
    return json_path, html_path
