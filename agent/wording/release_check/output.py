"""Output: the report as terminal text, as the HTML body the staff page shares, as a standalone
HTML page, and written to a folder as JSON and HTML."""

from __future__ import annotations

import json
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from agent.answering.check_report import Asked, CheckReport, DiffOp
from agent.wording.release_check.applicability import APPLIES
from agent.wording.release_check.bar import _pct

# The templates stay with the rest of agent.wording's, one level up from this package.
TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def _diff_text(ops: tuple[DiffOp, ...]) -> str:
    marks = {"equal": "{}", "delete": "[-{}-]", "insert": "{{+{}+}}"}
    return " ".join(marks[o.op].format(o.words) for o in ops)


def render_text(report: CheckReport, *, width: int = 60) -> str:
    """The terminal view: the summary, then one table per part of the comparison."""
    s = report.summary
    base = s.baseline or "-"
    out = [*s.lines, ""]
    evidence = report.clause_evidence
    if evidence:
        out.append("Per clause (questions: those whose right answer cites it or whose answer quoted it):")
        heads = f"{'questions':>9} {'served':>6} {'wrong':>6} {'answered right':>15}"
        out.append(f"  {'clause':<16} {heads}  bar")
        for c in evidence:
            right = f"{c.answered_right} of {c.expecting}"
            bar = "meets" if c.meets_bar else "short: " + "; ".join(c.short_of_bar)
            out.append(
                f"  {c.clause_id:<16} {c.questions:>9} {c.served:>6} "
                f"{_pct(c.served_wrong_share):>6} {right:>15}  {bar}"
            )
        out.append("")
    wrong = report.wrong_answers
    out.append(f"Served answers wrong or irrelevant ({len(wrong)}):")
    for w in wrong:
        why = (
            "irrelevant: no clause answers this question"
            if w.irrelevant
            else "; ".join(
                [*(f"missed: {' | '.join(g)}" for g in w.missed), *(f"wrong: {x}" for x in w.wrong)]
            )
        )
        out.append(f"  {w.id} ({w.policy}) {w.text}")
        served = " ".join(w.served.split())
        out.append(f"    served (citing {', '.join(w.cited) or 'nothing'}): {served[: width * 4]}")
        out.append(f"    {why}")
    out.append("")
    for c in report.applicability.changed:
        for f in c.changes:
            before, after = ", ".join(f.before) or "none", ", ".join(f.after) or "none"
            out.append(f"  {c.clause_id} {APPLIES[f.field]}: {before} → {after}")
    changed = [r for r in report.questions if r.changes]
    out.append(f"Questions whose answer changes ({len(changed)} of {len(report.questions)}):")
    if changed:
        heads = (f"{base} outcome", f"{s.version} outcome")
        out.append(f"  {'question':<9} {heads[0]:<34} {heads[1]:<34} changes")
        for r in changed:
            out.append(f"  {r.id:<9} {_side(r.baseline):<34} {_side(r.candidate):<34} {', '.join(r.changes)}")
            out.append(f"  {'':<9} {r.text[:width]}")
    clauses = report.clauses
    out.append("")
    out.append(
        f"Clauses: added {', '.join(c.clause_id for c in clauses.added) or 'none'}; "
        f"removed {', '.join(c.clause_id for c in clauses.removed) or 'none'}"
    )
    for c in clauses.reworded:
        retitled = f" (title: {c.old_title} → {c.title})" if c.title_changed else ""
        out.append(f"  {c.clause_id} reworded{retitled}")
        for f in c.figures_removed:
            out.append(f"    − {f.figure:<12} {f.sentence}")
        for f in c.figures_added:
            out.append(f"    + {f.figure:<12} {f.sentence}")
        out.append(f"    {_diff_text(c.diff)}")
    return "\n".join(out)


def _side(asked: Asked | None) -> str:
    if asked is None:
        return "-"
    cited = ",".join(asked.cited) or "-"
    judged = {True: "right ", False: "WRONG ", None: ""}[asked.right]
    return f"{judged}{asked.outcome[:8]} {cited}"[:33]


def _environment() -> Environment:
    return Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]))


def render_body(report: CheckReport) -> Markup:
    """The report's body, shared by the staff page and the standalone file."""
    return Markup(_environment().get_template("release_check_body.html").render(r=report))


def render_html(report: CheckReport) -> str:
    """A standalone page with the same body as the staff page's release check view."""
    return _environment().get_template("release_check_report.html").render(r=report)


def write_report(report: CheckReport, folder: Path) -> tuple[Path, Path]:
    """The report as JSON (as stored) and as a standalone HTML page, named by its check ID."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"release-check-{report.check_id}"
    json_path, html_path = folder / f"{stem}.json", folder / f"{stem}.html"
    json_path.write_text(json.dumps(report.as_dict(), indent=2, default=str), encoding="utf-8")
    html_path.write_text(render_html(report), encoding="utf-8")
    return json_path, html_path
