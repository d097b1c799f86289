"""`knowledge import`: an insurer's wording in, a draft source file and a report out.

extract (layout-aware text) → segment (units by meaning) → amend (supplementary changes
applied) → split long units → IDs (carried over from the previous version by text, never
reused for another subject) → titles (drafted from the text, for review) → links
(definitions, cross-references) → applicability (plans, optional sections, endorsements) →
the draft in the project's format and the report for the policy owner.

The draft carries `review: …` in its header until the owner has done the review steps the
report lists; validation refuses it until then (rule `import-review-pending`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from knowledge.amend import Failure, consolidate
from knowledge.applicability import applicability, heading_words, plans_named, slug
from knowledge.errors import KnowledgeError, ValidationFailed
from knowledge.extract import ExtractionFailed, extract
from knowledge.import_report import FRAGMENT_CHARS, Report, amendment_entry, render_report, review_steps
from knowledge.links import link
from knowledge.rules import KINDS, MAX_CLAUSE_CHARS, SAME_SUBJECT, check_sources, subject_similarity
from knowledge.segment import Unit, is_generic, segment, split_long
from knowledge.source import Clause, PolicySource, applies_line, parse_wording
from knowledge.titles import draft_title, unique_titles

# Room for the heading line ("## XXX-KIND-NNN - " and a title of at most 150 characters).
BODY_BUDGET = MAX_CLAUSE_CHARS - 180
# Currency marks, the most frequent one wins; "$" alone is read by the country named most.
CURRENCIES = (
    ("GBP", r"£"),
    ("EUR", r"€"),
    ("NZD", r"\bNZD\b|NZ\$"),
    ("AUD", r"\bAUD\b|A\$"),
    ("$", r"(?<![A-Z])\$"),
)
DOLLAR_COUNTRY = (("AUD", r"\bAustralia"), ("NZD", r"\bNew Zealand"), ("USD", r"\bUnited States|\bU\.S\."))
LEGAL_NAME = re.compile(
    r"\b((?:[A-Z][A-Za-z&]+ )(?:[A-Za-z&]+ ){0,3}(?:plc|Limited|Ltd|SA|S\.A\.|Inc\.?|Company))\b(?:.{0,60}?"
    r"trading as ([A-Z][A-Za-z]+(?: [A-Z][A-Za-z]+){0,3}))?"
)
INSURER_CUE = re.compile(r"underwrit|issued by|insurer|provided by", re.I)


@dataclass(frozen=True)
class Imported:
    draft: str  # the draft source file's text
    report: Report


def detect_currency(text: str) -> str:
    counts = {code: len(re.findall(mark, text)) for code, mark in CURRENCIES}
    code = max(counts, key=lambda c: counts[c])
    if not counts[code]:
        return ""
    if code != "$":
        return code
    country = max(DOLLAR_COUNTRY, key=lambda c: len(re.findall(c[1], text)))
    return country[0] if re.search(country[1], text) else "USD"


def detect_insurer(text: str) -> str:
    names: Counter[str] = Counter()
    for sentence in re.split(r"(?<=[.;])\s", text):
        if not INSURER_CUE.search(sentence):
            continue
        for m in LEGAL_NAME.finditer(sentence):
            legal = " ".join(m[1].split())
            names[f"{m[2]} ({legal})" if m[2] else legal] += 1
    used = Counter(" ".join(m[1].split()) for m in LEGAL_NAME.finditer(text))
    if not names:  # no sentence says who underwrites: the legal name the wording uses most
        names.update({n: k for n, k in used.items() if "insur" in n.lower()})
    # A wording may name the underwriter of one optional section too (an assistance company):
    # a name that says insurance comes first, then the one named most often.
    return max(names, key=lambda n: ("insur" in n.lower(), names[n] + used[n])) if names else ""


def _same_heading(unit: Unit, old: Clause, score: float) -> bool:
    """Text alone can pair two different definitions or two lists of one shape: a definition
    keeps its ID only for the same term, anything else needs a heading word in common with
    the old title unless the texts are close (half their words or more)."""
    title = old.title
    if unit.kind == "DEF":
        term = re.search(r"'([^']+)'", title)
        return bool(term) and heading_words(term[1]) == heading_words(unit.heading)
    return score >= 0.5 or bool(heading_words(" ".join(unit.path[-2:])) & heading_words(title))


def _ids(units: list[Unit], code: str, previous: PolicySource | None) -> tuple[list[str], list[str], int]:
    """(an ID per unit, IDs of the previous version retired, how many were carried over)."""
    texts = [u.body() for u in units]
    taken: dict[int, str] = {}
    if previous is not None:
        pairs = []
        for n, (unit, text) in enumerate(zip(units, texts, strict=True)):
            for old in previous.clauses:
                if old.clause_id.split("-")[1] != unit.kind:
                    continue
                score = subject_similarity(old.text, text)
                if score >= SAME_SUBJECT and _same_heading(unit, old, score):
                    pairs.append((score, n, old.clause_id))
        used: set[str] = set()
        for _score, n, cid in sorted(pairs, reverse=True):
            if n not in taken and cid not in used:
                taken[n] = cid
                used.add(cid)
    known = [c.clause_id for c in previous.clauses] + list(previous.retired) if previous else []
    next_number: Counter[str] = Counter()
    for cid in known:
        _, kind, number = cid.split("-")
        next_number[kind] = max(next_number[kind], int(number))
    ids = []
    for n, unit in enumerate(units):
        if n in taken:
            ids.append(taken[n])
            continue
        next_number[unit.kind] += 1
        ids.append(f"{code}-{unit.kind}-{next_number[unit.kind]:02d}")
    retired = [c.clause_id for c in previous.clauses if c.clause_id not in set(ids)] if previous else []
    return ids, retired, len(taken)


def build(
    path: Path, family: str, version: str, code: str, insurer: str | None, previous: Path | None
) -> Imported:
    """Import one wording file; raises KnowledgeError subclasses for what stops it outright."""
    blocks = extract(path)
    whole = "\n".join(b.text for b in blocks)
    units, left_out = segment(blocks, BODY_BUDGET)
    units, amendments, failures = consolidate(units)
    origin: list[int] = []  # for each unit after splitting, the consolidated unit it came from
    parts: list[Unit] = []
    for n, unit in enumerate(units):
        for part in split_long(unit, BODY_BUDGET):
            parts.append(part)
            origin.append(n)
    units = parts
    prior = parse_wording(previous) if previous else None
    ids, retired, carried = _ids(units, code, prior)
    titles = unique_titles([draft_title(u) for u in units], units)
    linked = link(units, ids)
    plans = plans_named(units)
    applies = applicability(units, ids, plans)
    detected_insurer = detect_insurer(whole)
    currency = detect_currency(whole)
    if not (insurer or detected_insurer):
        failures.append(
            Failure(None, "header", "the insurer is not named in the wording", "pass --insurer NAME")
        )
    clauses = []
    for unit, cid, title, links, fields in zip(units, ids, titles, linked.links, applies, strict=True):
        body = re.sub(r"(?m)^(#|---|<!--)", r"\\\1", unit.body())
        clause = Clause(cid, title, "", links=links, citable=unit.citable, part=unit.part, **fields)
        head = f"## {cid} - {title}"
        line = applies_line(clause)
        clauses.append((unit, clause, "\n".join(x for x in (head, line) if x) + f"\n\n{body}\n"))
    first_heading = next((b.text for b in blocks if b.kind == "heading"), path.stem)
    document_id = f"{code}-{slug(path.stem).upper().replace('_', '-')}"[:60]
    header = {
        "family": family,
        "code": code,
        "version": version,
        "document_id": document_id,
        "insurer": insurer or detected_insurer or "UNKNOWN",
        "currency": currency,
        "title": " ".join(first_heading.split())[:120],
        "kinds": ", ".join(k for k in KINDS if any(i.split("-")[1] == k for i in [*ids, *retired])),
    }
    if prior and prior.header.get("document_id") != document_id:
        header["replaces"] = prior.header.get("document_id", "")
    if retired:
        header["retired"] = ", ".join(retired)
    review = ["titles"] + (["failures"] if failures else []) + (["retired"] if retired else [])
    header["review"] = ", ".join(review)
    parts_out: list[str] = []
    last_part: str | None = None
    for _unit, clause, text in clauses:
        if clause.part and clause.part != last_part:
            parts_out.append(f"# {' '.join(clause.part.split())}\n")
            last_part = clause.part
        parts_out.append(text)
    draft = (
        "---\n"
        + "".join(f"{k}: {v}\n" for k, v in header.items() if v)
        + "---\n\n"
        + f"> Draft imported from {path.name} by `knowledge import`; see the import report.\n\n"
        + "\n".join(parts_out)
    )
    report = Report(
        str(path), family, version, code, header["insurer"], currency, "", left_out=left_out, plans=plans
    )
    report.retired = retired
    report.not_linked_terms = linked.everywhere
    for (unit, clause, _), cid in zip(clauses, ids, strict=True):
        report.units.append(
            {
                "id": cid,
                "title": clause.title,
                "title_review": "drafted from the text"
                + ("; the heading says nothing alone" if is_generic(unit.heading) else ""),
                "kind": unit.kind,
                "heading_path": list(unit.path),
                "page": unit.page,
                "printed_page": unit.printed_page,
                "chars": len(f"## {cid} - {clause.title}\n\n{unit.body()}\n"),
                "split": f"{unit.part_no} of {unit.parts}" if unit.parts else None,
                "links": list(clause.links),
                "citable": clause.citable,
                "plans": list(clause.plans),
                "added_by": list(clause.added_by),
                "removed_by": list(clause.removed_by),
                "carried_over": bool(prior and any(c.clause_id == cid for c in prior.clauses)),
            }
        )
    first_id = {}
    for n, cid in zip(origin, ids, strict=True):
        first_id.setdefault(n, cid)
    report.amendments = [amendment_entry(a, first_id) for a in amendments]
    report.failures = [{"file": str(path), **asdict(f)} for f in failures]
    report.counts = {
        "units": len(units),
        "titles_to_review": len(units),
        "generic_headings_retitled": sum(1 for u in units if is_generic(u.heading)),
        "links": sum(len(x) for x in linked.links),
        "definition_links": linked.definitions,
        "reference_links": linked.references,
        "amendments": len(amendments),
        "failures": len(failures),
        "notes_not_citable": sum(1 for u in units if not u.citable),
        "split_units": len({(u.path, u.parts) for u in units if u.parts}),
        "carried_over": carried,
        "new_ids": len(units) - carried,
        "retired": len(retired),
        "plans": len(plans),
    }
    report.fragments = [
        {"id": u["id"], "page": u["page"], "chars": len(unit.body())}
        for u, unit in zip(report.units, units, strict=True)
        if len(unit.body()) < FRAGMENT_CHARS
    ]
    report.counts["fragments_to_check"] = len(report.fragments)
    report.counts["applicability_drafted"] = sum(1 for f in applies if f)
    report.review_steps = review_steps(report)
    return Imported(draft, report)


def write(imported: Imported, out: Path) -> tuple[Path, Path, Path]:
    out.parent.mkdir(parents=True, exist_ok=True)
    imported.report.draft = str(out)
    out.write_text(imported.draft, encoding="utf-8")
    json_path = out.with_suffix(".import.json")
    md_path = out.with_suffix(".import.md")
    json_path.write_text(json.dumps(asdict(imported.report), indent=2, ensure_ascii=False), encoding="utf-8")
    md_path.write_text(render_report(imported.report), encoding="utf-8")
    return out, json_path, md_path


def accept_review(draft: str) -> str:
    """The draft with its review line taken out: what the owner does after the review steps."""
    return re.sub(r"(?m)^review:.*\n", "", draft, count=1)


def import_reviewed(
    path: Path,
    family: str,
    version: str,
    code: str,
    *,
    insurer: str | None = None,
    previous: Path | None = None,
    draft: Path | None = None,
) -> tuple[Imported, PolicySource]:
    """Import a wording and accept the review steps its report lists (every drafted title
    taken as it is): the import, and the validated source of the accepted draft. The accepted
    draft is written to `draft` when one is named (to be a later version's `previous`)."""
    imported = build(path, family, version, code, insurer, previous)
    text = accept_review(imported.draft)
    if draft is not None:
        draft.parent.mkdir(parents=True, exist_ok=True)
        draft.write_text(text, encoding="utf-8")
    source = parse_wording(draft or path, text)
    check_sources([source])
    return imported, source


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, help="the wording: .pdf, .docx, .html or .md")
    p.add_argument("--family", required=True)
    p.add_argument("--version", required=True, help="YEAR.N, e.g. 2026.1")
    p.add_argument("--previous", type=Path, help="the previous version's draft or source file, for its IDs")
    p.add_argument("--out", type=Path, help="the draft to write (default: drafts/{family}/{version}.md)")
    p.add_argument("--code", help="three capital letters for clause IDs (default: from the family)")
    p.add_argument("--insurer", help="the insurer's name, if the wording does not say it")


def run_import(args: argparse.Namespace) -> int:
    code = args.code or (parse_wording(args.previous).code if args.previous else "")
    code = (code or re.sub(r"[^A-Za-z]", "", args.family)[:3]).upper()
    out = args.out or Path("drafts") / args.family / f"{args.version}.md"
    try:
        imported = build(args.file, args.family, args.version, code, args.insurer, args.previous)
    except ExtractionFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    draft, json_path, md_path = write(imported, out)
    c = imported.report.counts
    print(
        f"{args.file}: {c['units']} units, {c['titles_to_review']} titles to review, {c['links']} links, "
        f"{c['amendments']} amendments, {c['failures']} failures"
    )
    print(f"draft: {draft}\nreport: {md_path} and {json_path}")
    try:
        sources = [parse_wording(out, accept_review(imported.draft))]
        if args.previous:
            sources.insert(0, parse_wording(args.previous, accept_review(args.previous.read_text())))
        check_sources(sources)
    except ValidationFailed as exc:
        print(f"the draft does not validate yet:\n{exc}", file=sys.stderr)
        return 1
    except KnowledgeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print("the draft validates once the review steps in the report are done")
    return 0
