"""The report as an HTML page with simple bar charts, written beside its JSON."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from agent.evaluation.report.tables import FACT_ROWS, ROWS, cell, part_columns, part_heading, pct
from agent.evaluation.report.verdict import adversarial_line, outcome_line

_LOWER_IS_BETTER = {"served_wrong_share"}


def _bar(value: float | None, *, good: float = 0.85, lower_is_better: bool = False) -> str:
    if value is None:
        return "-"
    ok = value <= good if lower_is_better else value >= good
    colour = "#2f855a" if ok else "#c05621"
    width = max(0.0, min(1.0, value)) * 100
    return (
        f'<div class="bar"><div style="width:{width:.1f}%;background:{colour}"></div>'
        f"<span>{value:.0%}</span></div>"
    )


_GOOD = {"served_wrong_share": 0.02, "answered_right_share": 0.60, "unanswerable_routed": 0.90}


def _table_html(columns: list[tuple[str, dict[str, Any]]], rows: tuple[tuple[str, str], ...]) -> str:
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h, _ in columns)
    body = []
    for key, label in rows:
        cells = []
        for _, m in columns:
            value = m.get(key)
            if isinstance(value, float):
                bar = _bar(value, good=_GOOD.get(key, 0.85), lower_is_better=key in _LOWER_IS_BETTER)
                count = ""
                if key == "served_wrong_share":
                    count = f"<small>{m['served_wrong']} of {m['served']}</small>"
                cells.append(f"<td>{bar}{count}</td>")
            else:
                cells.append(f"<td>{e(cell(m, key))}</td>")
        body.append(f"<tr><th>{e(label)}</th>{''.join(cells)}</tr>")
    return f"<table><tr><th></th>{head}</tr>{''.join(body)}</table>"


def _run_line(report: dict[str, Any], json_name: str) -> str:
    """When, against what and how the run was made, in words; every figure is in the JSON."""
    meta, e = report["meta"], html.escape
    said = [e(report["generated_at"])]
    if meta.get("base_url"):
        said.append(f"against {e(str(meta['base_url']))}")
    if meta.get("only") not in (None, "all"):
        said.append(f"only {e(str(meta['only']))}")
    said.append(f'<a href="{e(json_name)}">every figure as JSON</a>')
    return " · ".join(said)


def render_html(report: dict[str, Any], json_name: str = "latest.json") -> str:
    """The page, readable at 1,280 px: each table scrolls within its own box when it is wider
    than the page, and the run's settings and figures are behind the link to `json_name`."""
    e = html.escape
    columns = part_columns(report)
    targets = "".join(
        f"<li class={'met' if t['met'] else 'missed'}>{'met' if t['met'] else 'missed'}: {e(t['target'])}"
        f" — {pct(t['value'])} ({t['margin'] * 100:+.1f} points)</li>"
        for t in report["targets"]
    )
    wrong = "".join(
        f"<tr id=wrong-{e(w['question_id'])}><td>{e(w['part'])} {e(w['question_id'])}<br>"
        f"<small>{e(w['policy'])}</small></td>"
        f"<td>{''.join(f'<div class=earlier>{e(x)}</div>' for x in w['earlier'])}{e(w['question'])}</td>"
        f"<td class=said>{e(w['said'])}</td>"
        f"<td>{''.join(f'<div class=fail>{e(y)}</div>' for y in w['why'])}</td>"
        f"<td>{e(', '.join(dict.fromkeys(w['cited'])) or '-')}</td></tr>"
        for w in report.get("wrong_answers", [])
    )
    scen = "".join(
        f"<tr><td class={s['status']}>{e(s['status'])}</td><td>{s['runs_passed']}/{s['runs_wanted']}</td>"
        f"<td>{e(s['id'])}</td><td>{e(s['title'])}"
        + "".join(
            f"<div class=fail>run {f['run']} · {e(f['turn'])}: {e(f['failure'])}</div>" for f in s["failures"]
        )
        + (f"<div class=fail>{e(s['not_runnable'])}</div>" if s["not_runnable"] else "")
        + "</td></tr>"
        for s in report["scenarios"]
    )
    miss = "".join(
        f"<tr><td>{e(m['part'])} {e(m['question_id'])}</td><td>{e(m['question'])}</td>"
        f"<td>{e(', '.join(m['expected']))}</td>"
        f"<td>{e(', '.join(m['fetched']) or '-')}</td><td>{e('; '.join(m['why']))}</td>"
        f"<td><details><summary>{len(m['directory_seen'])} titles ({e(str(m['version']))})</summary>"
        f"<ul>{''.join(f'<li>{e(d)}</li>' for d in m['directory_seen'])}</ul></details></td></tr>"
        for m in report["misses"]
    )
    t = report["totals"]
    last_word = outcome_line(report)
    parts = " · ".join(part_heading(report, p) for p in report["parts"])
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>clausedesk evaluation</title>
<style>
body{{font:14px/1.4 system-ui,sans-serif;margin:2em auto;padding:0 1em;max-width:1200px}}
table{{border-collapse:collapse;margin:1em 0;display:block;max-width:100%;overflow-x:auto}}
td,th{{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:break-word}}
th{{min-width:6em}} td.said{{min-width:20em}} tr>th:first-child{{position:sticky;left:0;background:#fff}}
.bar{{position:relative;width:80px;height:18px;background:#eee}} .bar div{{height:100%}}
.bar span{{position:absolute;left:6px;top:0;font-size:12px}}
.passed,.met{{color:#2f855a}} .failed,.missed,.not_runnable,.fail{{color:#c53030}}
.said{{max-width:420px;white-space:pre-wrap;font-size:13px}} .earlier{{color:#666;font-style:italic}}
</style></head><body>
<h1>clausedesk evaluation</h1>
<p>{_run_line(report, json_name)}</p>
<p>Model <b>{e(str(report["meta"].get("model")))}</b> · {e(report["meta"].get("runs_note", ""))}</p>
<p>Scenarios passed {t["scenarios_passed"]}/{t["scenarios"]} · invented citations {t["invented_citations"]}
· decisions served {t["decisions_served"]} · HTTP 5xx {t["server_errors"]} · without turn record
{t["without_turn_record"]} · quotes re-read {t["quotes_rechecked"]}, mismatched {t["quote_mismatches"]}
· inventory questions {t["inventory_questions"]} · <b>{e(last_word)}</b></p>
{f"<p>{e(adversarial_line(report) or '')}</p>" if report.get("adversarial") else ""}
<h2 id=facts>Right for this claimant</h2>
<p>Parts: {e(parts)}. A served answer is right when it holds every fact of the question and none
of its wrong strings, in the text the claimant reads.</p>
{_table_html(columns, FACT_ROWS)}
<h2>Targets</h2><ul>{targets}</ul>
<h2 id=wrong>Served answers wrong or irrelevant ({len(report.get("wrong_answers", []))})</h2>
<table><tr><th>id</th><th>question</th><th>what it said</th><th>why wrong</th><th>cited</th></tr>
{wrong}</table>
<h2>Diagnostics: clauses fetched and cited</h2>
{_table_html(columns, ROWS)}
<h2>Scenarios (pass^k)</h2><table><tr><th>status</th><th>runs</th><th>id</th><th>title</th></tr>{scen}</table>
<h2>Clause and outcome misses</h2><table><tr><th>id</th><th>question</th><th>expected</th><th>fetched</th>
<th>why</th><th>directory seen</th></tr>{miss}</table>
</body></html>
"""


def write_report(report: dict[str, Any], folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    json_path, html_path = folder / "latest.json", folder / "latest.html"
    json_path.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    html_path.write_text(render_html(report, json_path.name), encoding="utf-8")
    return json_path, html_path
