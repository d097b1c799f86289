"""The import report for the policy owner: counts, review steps, amendments with the text
they replaced, every unit with its drafted title, as JSON and as Markdown to read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from knowledge.importing.accounting import RULES
from knowledge.importing.amend import Amendment

# A unit with less text than this is likely a piece of a table or a layout the extraction
# did not follow: the report lists it for the owner to check against the document.
FRAGMENT_CHARS = 40


@dataclass
class Report:
    file: str
    family: str
    version: str
    code: str
    insurer: str
    currency: str
    draft: str
    counts: dict[str, int] = field(default_factory=dict)
    units: list[dict] = field(default_factory=list)
    amendments: list[dict] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)
    review_steps: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    not_linked_terms: list[str] = field(default_factory=list)
    plans: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    fragments: list[dict] = field(default_factory=list)
    supplement: str = ""  # the supplement the owner named (a file, or pages of this file)
    accounting: dict = field(default_factory=dict)  # each source character: knowledge.importing.accounting
    matrix: dict = field(default_factory=dict)  # the cover matrix, see knowledge.importing.cover_matrix
    cover_levels: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    endorsements: list[dict] = field(default_factory=list)


def amendment_entry(a: Amendment, first_id: dict[int, str]) -> dict:
    target = first_id.get(a.applied_to) if a.applied_to is not None else None
    return {
        "change": a.change,
        "instruction_page": a.page,
        "target_page": a.target_page,
        "target": a.target,
        "applied_to": target,
        "replaced_text": a.replaced,
        "replacement_text": a.replacement,
    }


def review_steps(report: Report) -> list[str]:
    steps = [
        "Review in the page: `python -m knowledge review` on the draft shows each unit beside its source "
        "and records every decision below; it writes the reviewed draft and validates it.",
        f"Titles: read the {report.counts['titles_to_review']} drafted titles (units[].title) and accept "
        "or rewrite each so it says plainly what the clause covers; then take 'titles' out of the header's "
        "review line.",
    ]
    for f in report.failures:
        where = f", page {f['page']}" if f["page"] else ""
        steps.append(f"Failure ({Path(f['file']).name}{where}, {f['unit']}): {f['problem']}. {f['action']}.")
    if report.failures:
        steps.append("When every failure is resolved, take 'failures' out of the header's review line.")
    if report.retired:
        steps.append(
            f"Retired: {len(report.retired)} IDs of the previous version match no unit by text and are "
            f"retired ({', '.join(report.retired[:12])}{' …' if len(report.retired) > 12 else ''}); give a "
            "unit one of them back only if it is the same subject, then take 'retired' out of the review."
        )
    if report.fragments:
        listed = ", ".join(f"{f['id']} (page {f['page']})" for f in report.fragments[:10])
        steps.append(
            f"Fragments: {len(report.fragments)} units hold under {FRAGMENT_CHARS} characters, likely pieces "
            f"of a table or of a layout the extraction did not follow: {listed}"
            f"{' …' if len(report.fragments) > 10 else ''}. Check each against the document; merge it into "
            "its neighbour or delete it (and list a deleted ID of an earlier version under retired)."
        )
    if report.counts.get("applicability_drafted"):
        steps.append(
            f"Applicability: {report.counts['applicability_drafted']} units have plans, added_by, removed_by "
            "or changed_by drafted from the text (a part a cover level leaves out, an optional section, "
            "an endorsement that names a part or a heading); check each applies line against the wording."
        )
    if report.plans:
        steps.append(
            f"Plans: the wording names {len(report.plans)} plans or cover levels "
            f"({', '.join(report.plans)}); plans= is set only where a part is headed by a plan's name: "
            "add it where the text says so."
        )
    steps.append("Then delete the review line and run `python -m knowledge validate` on the draft.")
    return steps


def _accounting_lines(acc: dict) -> list[str]:
    if not acc:
        return []
    lines = [
        f"{acc['source_characters']:,} characters of the source (whitespace aside): "
        f"{acc['placed_in_units']:,} placed in units, {acc['headings_kept_in_units']:,} kept as their "
        f"headings, {acc['notes_not_contract_text']:,} in notes that are not contract text, "
        f"{sum(acc['removed_by_rule'].values()):,} removed by rule; {acc['unaccounted']} unaccounted.",
        "",
        "| removed by rule | why | characters |",
        "| --- | --- | --- |",
    ]
    return lines + [f"| {rule} | {RULES[rule]} | {n:,} |" for rule, n in acc["removed_by_rule"].items()]


def render_report(report: Report) -> str:
    c = report.counts
    lines = [
        f"# Import report: {Path(report.file).name}",
        "",
        f"{report.family} {report.version}, code {report.code}, insurer {report.insurer}, "
        f"currency {report.currency or 'not found'}. Draft: {report.draft}",
        "",
        "| units | titles to review | links | amendments | failures | carried over | new IDs | retired |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        f"| {c['units']} | {c['titles_to_review']} | {c['links']} | {c['amendments']} | {c['failures']} | "
        f"{c['carried_over']} | {c['new_ids']} | {c['retired']} |",
        "",
        "## Every character accounted for",
        "",
        *_accounting_lines(report.accounting),
        "",
        "## Cover levels, options and endorsements",
        "",
        f"- Cover levels: {', '.join(report.cover_levels) or 'none named'}",
        f"- Options: {', '.join(report.options) or 'none'}",
        f"- Endorsements: {', '.join(e['entry'] for e in report.endorsements) or 'none'}",
        f"- Cover matrix: {len(report.matrix.get('cells', []))} cells, stated by "
        f"{', '.join(report.matrix.get('stated_by', [])) or 'nothing found'}; check each on the review page",
        "",
        "## Review steps",
        "",
        *(f"{n}. {s}" for n, s in enumerate(report.review_steps, start=1)),
        "",
        "## Amendments applied",
        "",
        *(
            f"- {a['change']} (instruction on file page {a['instruction_page']}): {a['target']!r} on "
            f"printed page {a['target_page']} replaced in {a['applied_to']}"
            for a in report.amendments
        ),
        "",
        "## Units (every title is drafted: review it)",
        "",
        "| ID | title | page | links | note |",
        "| --- | --- | --- | --- | --- |",
        *(
            f"| {u['id']} | {u['title'].replace('|', '/')} | {u['printed_page'] or u['page'] or ''} | "
            f"{', '.join(u['links'])} | {'' if u['citable'] else 'not citable'}"
            f"{' split ' + u['split'] if u['split'] else ''} |"
            for u in report.units
        ),
        "",
    ]
    if report.left_out:
        lines += ["## Left out", "", *(f"- {x}" for x in report.left_out), ""]
    if report.not_linked_terms:
        lines += [
            f"Defined terms used nearly everywhere, not linked: {', '.join(report.not_linked_terms)}",
            "",
        ]
    return "\n".join(lines)
