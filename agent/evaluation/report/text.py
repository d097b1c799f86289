"""The report as text, as `python -m agent evaluate` prints it."""

from __future__ import annotations

from typing import Any

from agent.evaluation.report.tables import FACT_ROWS, ROWS, cell, part_columns, part_heading, pct
from agent.evaluation.report.verdict import adversarial_line, outcome_line


def _table_text(columns: list[tuple[str, dict[str, Any]]], rows: tuple[tuple[str, str], ...]) -> list[str]:
    width = max(len(label) for _, label in rows) + 2
    lines = ["".ljust(width) + "".join(h.rjust(15) for h, _ in columns)]
    for key, label in rows:
        lines.append(label.ljust(width) + "".join(cell(m, key).rjust(15) for _, m in columns))
    return lines


def render_text(report: dict[str, Any], *, show_misses: int = 40, show_wrong: int = 40) -> str:
    meta = report["meta"]
    lines = [
        "",
        f"Model: {meta.get('model') or '-'}" + (f" at {meta['api_base']}" if meta.get("api_base") else ""),
    ]
    if meta.get("runs_note"):
        lines.append(meta["runs_note"])
    columns = part_columns(report)
    if columns:
        parts = ", ".join(part_heading(report, p) for p in report["parts"])
        lines += ["", f"Right for this claimant, by part: {parts}"]
        lines += _table_text(columns, FACT_ROWS)
        lines += ["", "Diagnostics: clauses fetched and cited"]
        lines += _table_text(columns, ROWS)
    families = report["families"]
    models = sorted({m for f in families.values() for m in f["models"]})
    lines.append(f"model(s) in the turn records: {', '.join(models) or '-'}")
    lines += ["", "Targets"]
    for t in report["targets"]:
        lines.append(
            f"  {'met   ' if t['met'] else 'MISSED'} {t['target']}: {pct(t['value'])} "
            f"({t['margin'] * 100:+.1f} points)"
        )
    wrong = report.get("wrong_answers", [])
    lines += ["", f"Served answers wrong or irrelevant ({len(wrong)})"]
    for w in wrong[:show_wrong]:
        lines.append(f"  {w['part']:<5} {w['question_id']:<8} {w['policy']}: “{w['question'][:90]}”")
        lines.append(f"           {'; '.join(w['why'])[:160]}")
        lines.append(f"           said: {' '.join(w['said'].split())[:160]}")
    if len(wrong) > show_wrong:
        lines.append(f"  … and {len(wrong) - show_wrong} more")
    lines += ["", "Scenarios (pass^k: every run must pass)"]
    for s in report["scenarios"]:
        state = {"passed": "pass", "failed": "FAIL", "not_runnable": "NOT RUNNABLE"}[s["status"]]
        lines.append(f"  {state:<12} {s['runs_passed']}/{s['runs_wanted']}  {s['id']}: {s['title']}")
        if s["not_runnable"]:
            lines.append(f"               {s['not_runnable']}")
        for f in s["failures"][:4]:
            lines.append(f"               run {f['run']} '{f['turn'][:50]}': {f['failure'][:160]}")
    for q in report.get("quote_problems", [])[:10]:
        lines.append(f"  QUOTE {q['clause_id']} {q['version']} (claim {q['claim_id']}): {q['detail']}")
    miss = report["misses"]
    lines += ["", f"Clause and outcome misses ({len(miss)}; the directory titles seen: JSON and HTML report)"]
    for m in miss[:show_misses]:
        lines.append(
            f"  {m['part']:<5} {m['question_id']:<8} {'; '.join(m['why'])}: expected {m['expected']} "
            f"fetched {m['fetched']}"
        )
        lines.append(f"           “{m['question'][:100]}”")
    if len(miss) > show_misses:
        lines.append(f"  … and {len(miss) - show_misses} more")
    if adversarial_line(report):
        lines += ["", str(adversarial_line(report))]
        for served in report["adversarial"]["served_attacks"]:
            lines.append(f"  SERVED {served['attack']}: {served['why']}")
        for served in (report["adversarial"].get("explained") or {}).get("served_attacks", []):
            lines.append(f"  served in the explained style {served['attack']}: {served['why']}")
    t = report["totals"]
    lines += [
        "",
        f"Scenarios passed {t['scenarios_passed']}/{t['scenarios']} (failed {t['scenarios_failed']}, "
        f"not runnable {t['scenarios_not_runnable']}); invented citations {t['invented_citations']}; "
        f"decisions served {t['decisions_served']}; HTTP 5xx {t['server_errors']}; replies without a "
        f"turn record {t['without_turn_record']}; quotes re-read from the store {t['quotes_rechecked']}, "
        f"mismatched {t['quote_mismatches']}",
    ]
    lines.append(outcome_line(report))
    return "\n".join(lines)
