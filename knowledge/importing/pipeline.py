"""`knowledge import`: an insurer's wording in, a draft source file and a report out.

extract (layout-aware text) → segment (units by meaning) → amend (supplementary changes
applied) → split long units → IDs (carried over from the previous version by text, never
reused for another subject) → titles (drafted from the text, for review) → links
(definitions, cross-references) → applicability (plans, optional sections, endorsements) →
the draft in the project's format and the report for the policy owner.

The draft carries `review: …` in its header until the owner has done the review steps the
report lists; validation refuses it until then (rule `import-review-pending`). The command
line that runs it is `knowledge.importing.command`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from knowledge.errors import KnowledgeError
from knowledge.importing.accounting import Balance, Ledger, Unaccounted, balance
from knowledge.importing.amend import Amendment, Failure, consolidate
from knowledge.importing.applicability import applicability, heading_words, plans_named, slug
from knowledge.importing.cover_matrix import Matrix, apply_matrix, cover_matrix, reached
from knowledge.importing.extract.blocks import Block, placed_chars
from knowledge.importing.extract.cleanup import rejoin
from knowledge.importing.extract.read import extract
from knowledge.importing.header import detect_currency, detect_insurer
from knowledge.importing.links import Linked, definition_scopes, link
from knowledge.importing.report import FRAGMENT_CHARS, Report, amendment_entry, render_report, review_steps
from knowledge.importing.segment import (
    Unit,
    context_line,
    heading_spans,
    is_generic,
    one_definition_each,
    segment,
    split_long,
)
from knowledge.importing.titles import draft_title, unique_titles
from knowledge.rules import KINDS, MAX_CLAUSE_CHARS, SAME_SUBJECT, check_sources, subject_similarity
from knowledge.settings import ImportSettings
from knowledge.source import Clause, PolicySource, applies_line, clause_id, parse_wording

# Room for the heading line ("## XXX-KIND-NNNN - " and a title of at most 90 characters) and
# the context line of headings (up to 110 characters) above the text.
BODY_BUDGET = MAX_CLAUSE_CHARS - 130 - 120


@dataclass(frozen=True)
class Imported:
    draft: str  # the draft source file's text
    report: Report


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
    # The text as the draft will hold it (its context line too), as lineage compares it.
    texts = ["\n\n".join(x for x in (context_line(u), u.body()) if x) for u in units]
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
        try:
            ids.append(clause_id(code, unit.kind, next_number[unit.kind]))
        except ValueError as exc:
            raise ImportFailed(f"page {unit.page}: {exc}") from None
    retired = [c.clause_id for c in previous.clauses if c.clause_id not in set(ids)] if previous else []
    return ids, retired, len(taken)


class ImportFailed(KnowledgeError):
    """The import cannot go on; the message names file, page and what to do."""


# A supplement's pages are kept apart from the wording's in the accounting: page 3 of the
# supplement file is page SUPPLEMENT_PAGES + 3.
SUPPLEMENT_PAGES = 100_000


def _pages(spec: str | None) -> tuple[int, int] | None:
    if not spec:
        return None
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+))?\s*", spec)
    if not m or int(m[2] or m[1]) < int(m[1]):
        raise ImportFailed(f"--supplement-pages {spec!r}: give the pages as A-B, e.g. 3-6")
    return int(m[1]), int(m[2] or m[1])


def _shifted(blocks: list[Block], ledger: Ledger) -> tuple[list[Block], Ledger]:
    """A separate supplement file's blocks and ledger with its pages moved past the wording's."""
    moved = Ledger()
    for page, n in ledger.source.items():
        moved.read(SUPPLEMENT_PAGES + page, n)
    for rule, counts in ledger.removed.items():
        for page, n in counts.items():
            moved.remove(rule, SUPPLEMENT_PAGES + page, n)
    out = [
        replace(
            b,
            page=SUPPLEMENT_PAGES + (b.page or 0),
            spans=tuple((SUPPLEMENT_PAGES + p, n) for p, n in b.spans),
        )
        for b in blocks
    ]
    return out, moved


def build(
    path: Path,
    family: str,
    version: str,
    code: str,
    insurer: str | None,
    previous: Path | None,
    *,
    supplement: Path | None = None,
    supplement_pages: str | None = None,
    settings: ImportSettings | None = None,
) -> Imported:
    """Import one wording file; raises KnowledgeError subclasses for what stops it outright.

    Amendments come only from the supplement the owner names: another file, or a page range
    of this one (NRMA binds its supplementary PDS in front of the PDS)."""
    settings = settings or ImportSettings()
    ledger = Ledger()
    blocks = extract(path, ledger, settings)
    pages = _pages(supplement_pages)
    blocks, supp_blocks = _apart_from_supplement(
        path, blocks, ledger, settings, supplement, pages, supplement_pages
    )
    whole = "\n".join(b.text for b in blocks)
    units, left_out = segment(blocks, BODY_BUDGET, ledger)
    supp_units = segment(supp_blocks, BODY_BUDGET, ledger)[0] if supp_blocks else []
    if (pages or supplement) and not supp_units:
        raise ImportFailed(f"{supplement or path}: the supplement named holds no text to apply")
    units, amendments, failures = consolidate(units, supp_units, ledger)
    units, origin = _split_long_units(_rejoined(one_definition_each(units), ledger))
    try:
        accounting = _account(str(path), ledger, units)
    except Unaccounted as exc:
        raise Unaccounted(str(path), exc.pages, unplaced_lines(path, exc.pages, units)) from None
    prior = parse_wording(previous) if previous else None
    drafted = _draft_units(units, blocks, code, prior)
    detected_insurer = detect_insurer(whole)
    currency = detect_currency(whole)
    if not (insurer or detected_insurer):
        failures.append(
            Failure(None, "header", "the insurer is not named in the wording", "pass --insurer NAME")
        )
    clauses = _clauses(drafted)
    named = insurer or detected_insurer or "UNKNOWN"
    header = _header(path, family, version, code, named, currency, blocks, drafted, failures)
    report = Report(
        str(path),
        family,
        version,
        code,
        header["insurer"],
        currency,
        "",
        left_out=left_out,
        plans=drafted.plans,
    )
    report.supplement = (
        str(supplement) if supplement else (f"{path.name} pages {supplement_pages}" if pages else "")
    )
    report.accounting = accounting.as_dict()
    _report_drafted(report, drafted, clauses)
    report.amendments = _amendment_entries(amendments, origin, drafted.ids)
    report.failures = [{"file": str(path), **asdict(f)} for f in failures]
    report.counts = _counts(drafted, amendments, failures, accounting)
    report.fragments = _fragments(report.units, units)
    report.counts["fragments_to_check"] = len(report.fragments)
    report.counts["applicability_drafted"] = sum(1 for f in drafted.applies if f)
    report.review_steps = review_steps(report)
    return Imported(_draft_text(path, header, clauses), report)


def _apart_from_supplement(
    path: Path,
    blocks: list[Block],
    ledger: Ledger,
    settings: ImportSettings,
    supplement: Path | None,
    pages: tuple[int, int] | None,
    supplement_pages: str | None,
) -> tuple[list[Block], list[Block]]:
    """(the wording's blocks, the supplement's): the pages of this file the owner named, or
    another file read with its pages moved past the wording's and booked in the ledger."""
    if pages:
        inside = [b for b in blocks if b.page is not None and pages[0] <= b.page <= pages[1]]
        if not inside:
            raise ImportFailed(
                f"{path}: --supplement-pages {supplement_pages} holds no text (the file has pages "
                f"{min((b.page for b in blocks if b.page), default=0)} to "
                f"{max((b.page for b in blocks if b.page), default=0)}); give the supplement's own pages"
            )
        return [b for b in blocks if all(b is not x for x in inside)], inside
    if supplement is None:
        return blocks, []
    own = Ledger()
    supp_blocks, moved = _shifted(extract(supplement, own, settings), own)
    for page, n in moved.source.items():
        ledger.read(page, n)
    for rule, counts in moved.removed.items():
        for page, n in counts.items():
            ledger.remove(rule, page, n)
    return blocks, supp_blocks


def _rejoined(units: list[Unit], ledger: Ledger) -> list[Unit]:
    """Within a unit, a paragraph that stops mid-sentence and one that goes on in lower case
    are one sentence the layout cut (a column or a table cell between them in the source)."""
    return [replace(u, blocks=rejoin(u.blocks, ledger)) for u in units]


def _split_long_units(units: list[Unit]) -> tuple[list[Unit], list[int]]:
    """The units with each long one split in parts, and for each part the unit it came from."""
    origin: list[int] = []
    parts: list[Unit] = []
    for n, unit in enumerate(units):
        for part in split_long(unit, BODY_BUDGET):
            parts.append(part)
            origin.append(n)
    return parts, origin


@dataclass(frozen=True)
class _Drafted:
    """The units with what is drafted for them: IDs, plans and the cover matrix, applies
    fields, titles and links."""

    units: list[Unit]
    prior: PolicySource | None
    ids: list[str]
    retired: list[str]  # IDs of the previous version no unit carries over
    carried: int  # how many units carry an ID over
    plans: list[str]
    matrix: Matrix
    applies: list[dict[str, tuple[str, ...]]]
    titles: list[str]
    linked: Linked


def _draft_units(units: list[Unit], blocks: list[Block], code: str, prior: PolicySource | None) -> _Drafted:
    ids, retired, carried = _ids(units, code, prior)
    plans = plans_named(units)
    matrix = cover_matrix(units, blocks, plans)
    plans = list(dict.fromkeys([*plans, *matrix.levels]))
    applies = applicability(units, ids, plans)
    applies = apply_matrix(matrix, units, ids, applies, plans)
    scopes = definition_scopes(units)
    titles = unique_titles(
        [
            draft_title(u, f["plans"][0] if len(f.get("plans", ())) == 1 else None, defined_in=scope)
            for u, f, scope in zip(units, applies, scopes, strict=True)
        ],
        units,
    )
    linked = link(units, ids, scopes)
    return _Drafted(units, prior, ids, retired, carried, plans, matrix, applies, titles, linked)


# A unit drafted: the unit, its clause, its text in the draft (heading and applies line
# included), and its body.
_Clause = tuple[Unit, Clause, str, str]


def _clauses(d: _Drafted) -> list[_Clause]:
    clauses = []
    for unit, cid, title, links, fields in zip(
        d.units, d.ids, d.titles, d.linked.links, d.applies, strict=True
    ):
        body = unit.body()
        if context := context_line(unit):
            body = f"{context}\n\n{body}"
        body = re.sub(r"(?m)^(#|---|<!--)", r"\\\1", body)
        clause = Clause(cid, title, "", links=links, citable=unit.citable, part=unit.part, **fields)
        head = f"## {cid} - {title}"
        line = applies_line(clause)
        clauses.append((unit, clause, "\n".join(x for x in (head, line) if x) + f"\n\n{body}\n", body))
    return clauses


def _header(
    path: Path,
    family: str,
    version: str,
    code: str,
    insurer: str,
    currency: str,
    blocks: list[Block],
    d: _Drafted,
    failures: list[Failure],
) -> dict[str, str]:
    """The draft's front matter, its review line listing the steps the owner must do."""
    first_heading = next((b.text for b in blocks if b.kind == "heading"), path.stem)
    document_id = f"{code}-{slug(path.stem).upper().replace('_', '-')}"[:60]
    header = {
        "family": family,
        "code": code,
        "version": version,
        "document_id": document_id,
        "insurer": insurer,
        "currency": currency,
        "title": " ".join(first_heading.split())[:120],
        "plans": " | ".join(d.plans),
        "kinds": ", ".join(k for k in KINDS if any(i.split("-")[1] == k for i in [*d.ids, *d.retired])),
    }
    if d.prior and d.prior.header.get("document_id") != document_id:
        header["replaces"] = d.prior.header.get("document_id", "")
    if d.retired:
        header["retired"] = ", ".join(d.retired)
    review = ["titles"] + (["failures"] if failures else []) + (["retired"] if d.retired else [])
    header["review"] = ", ".join(review)
    return header


def _draft_text(path: Path, header: dict[str, str], clauses: list[_Clause]) -> str:
    """The draft source file: front matter, then each part's heading and its clauses."""
    parts_out: list[str] = []
    last_part: str | None = None
    for _unit, clause, text, _body in clauses:
        if clause.part and clause.part != last_part:
            parts_out.append(f"# {' '.join(clause.part.split())}\n")
            last_part = clause.part
        parts_out.append(text)
    return (
        "---\n"
        + "".join(f"{k}: {v}\n" for k, v in header.items() if v)
        + "---\n\n"
        + f"> Draft imported from {path.name} by `knowledge import`; see the import report.\n\n"
        + "\n".join(parts_out)
    )


def _report_drafted(report: Report, d: _Drafted, clauses: list[_Clause]) -> None:
    """What was drafted, into the report: the cover matrix, levels, options, endorsements,
    retired IDs, terms not linked and an entry per unit."""
    report.matrix = d.matrix.as_dict()
    # the units each row was drafted into, for the review page's row edits
    report.matrix["reached"] = reached(d.matrix, d.units, d.ids)
    report.cover_levels = list(d.plans)
    report.options = sorted(
        set(d.matrix.options)
        | {e for f in d.applies for e in f.get("added_by", ()) if not e.startswith("endorsement")}
    )
    report.endorsements = [
        {"id": cid, "entry": (f.get("added_by") or (cid,))[0], "heading": u.heading}
        for u, cid, f in zip(d.units, d.ids, d.applies, strict=True)
        if u.kind == "END" and u.heading
    ]
    report.retired = d.retired
    report.not_linked_terms = d.linked.everywhere
    for (unit, clause, text, body), cid in zip(clauses, d.ids, strict=True):
        report.units.append(_unit_entry(unit, clause, cid, text, body, d.prior))


def _unit_entry(
    unit: Unit, clause: Clause, cid: str, text: str, body: str, prior: PolicySource | None
) -> dict:
    return {
        "id": cid,
        "title": clause.title,
        "title_review": "drafted from the text"
        + ("; the heading says nothing alone" if is_generic(unit.heading) else ""),
        "kind": unit.kind,
        "heading_path": list(unit.path),
        "page": unit.page,
        "pages": sorted({b.page for b in unit.blocks if b.page}),
        "lines": sorted({b.line for b in unit.blocks if b.line}),
        "printed_page": unit.printed_page,
        "chars": len(text),
        "split": f"{unit.part_no} of {unit.parts}" if unit.parts else None,
        "links": list(clause.links),
        "citable": clause.citable,
        "plans": list(clause.plans),
        "added_by": list(clause.added_by),
        "removed_by": list(clause.removed_by),
        "changed_by": list(clause.changed_by),
        "applies_line": applies_line(clause) or "",
        "text": body,
        "context": context_line(unit),
        "carried_over": bool(prior and any(c.clause_id == cid for c in prior.clauses)),
    }


def _amendment_entries(amendments: list[Amendment], origin: list[int], ids: list[str]) -> list[dict]:
    """Each amendment for the report, naming the first part of the unit it was applied to."""
    first_id = {}
    for n, cid in zip(origin, ids, strict=True):
        first_id.setdefault(n, cid)
    return [amendment_entry(a, first_id) for a in amendments]


def _fragments(entries: list[dict], units: list[Unit]) -> list[dict]:
    """The units with so little text they are likely pieces of a table or a layout the
    extraction did not follow, for the owner to check against the document."""
    return [
        {"id": u["id"], "page": u["page"], "chars": len(unit.body())}
        for u, unit in zip(entries, units, strict=True)
        if len(unit.body()) < FRAGMENT_CHARS
    ]


def _counts(
    d: _Drafted, amendments: list[Amendment], failures: list[Failure], accounting: Balance
) -> dict[str, int]:
    units = d.units
    return {
        "units": len(units),
        "titles_to_review": len(units),
        "generic_headings_retitled": sum(1 for u in units if is_generic(u.heading)),
        "links": sum(len(x) for x in d.linked.links),
        "definition_links": d.linked.definitions,
        "reference_links": d.linked.references,
        "amendments": len(amendments),
        "failures": len(failures),
        "notes_not_citable": sum(1 for u in units if not u.citable),
        "split_units": len({(u.path, u.parts) for u in units if u.parts}),
        "carried_over": d.carried,
        "new_ids": len(units) - d.carried,
        "retired": len(d.retired),
        "plans": len(d.plans),
        "matrix_cells": len(d.matrix.cells),
        "characters_unaccounted": accounting.unaccounted,
    }


def _account(file: str, ledger: Ledger, units: list[Unit]) -> Balance:
    """The units' characters against the ledger, page by page (see knowledge.importing.accounting);
    a block whose text holds characters its spans do not account for stops the import."""
    for unit in units:
        for b in unit.blocks:
            if not b.spans:
                continue  # a repeat (a lead-in, a label) of characters booked elsewhere
            expected = placed_chars(b)
            if sum(n for _, n in b.spans) != expected:
                raise Unaccounted(file, {b.page or 0: expected - sum(n for _, n in b.spans)})
    placed = [s for u in units if u.citable for b in u.blocks for s in b.spans]
    notes = [s for u in units if not u.citable for b in u.blocks for s in b.spans]
    return balance(file, ledger, placed, heading_spans(units), notes)


def unplaced_lines(
    path: Path, pages: dict[int, int], units: list[Unit], most: int = 3
) -> dict[int, list[str]]:
    """For a PDF page that lost characters, its printed lines (of three words or more) that no
    unit holds, as its text layer gives them: what the owner and the maintainers look for."""
    if path.suffix.lower() != ".pdf":
        return {}
    import pdfplumber

    def norm(text: str) -> str:
        return " ".join(re.findall(r"\w+", text.lower()))

    held = " " + " ".join(norm(u.body()) + " " + norm(" ".join(u.path)) for u in units) + " "
    out: dict[int, list[str]] = {}
    with pdfplumber.open(str(path)) as pdf:

        def lines_of(n: int) -> list[str]:
            return (pdf.pages[n - 1].extract_text() or "").splitlines() if 0 < n <= len(pdf.pages) else []

        for page in sorted(p for p, n in pages.items() if n > 0 and 0 < p <= len(pdf.pages)):
            # a line the pages beside it print too is a running header or footer (removed by rule)
            furniture = {norm(ln) for n in (page - 1, page + 1) for ln in lines_of(n)}
            lost = [
                ln.strip()
                for ln in lines_of(page)
                if len(norm(ln).split()) >= 3 and f" {norm(ln)} " not in held and norm(ln) not in furniture
            ]
            out[page] = [ln[:80] for ln in lost[:most]]
    return out


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
    supplement: Path | None = None,
    supplement_pages: str | None = None,
) -> tuple[Imported, PolicySource]:
    """Import a wording and accept the review steps its report lists (every drafted title
    taken as it is): the import, and the validated source of the accepted draft. The accepted
    draft is written to `draft` when one is named (to be a later version's `previous`)."""
    imported = build(
        path,
        family,
        version,
        code,
        insurer,
        previous,
        supplement=supplement,
        supplement_pages=supplement_pages,
    )
    text = accept_review(imported.draft)
    if draft is not None:
        draft.parent.mkdir(parents=True, exist_ok=True)
        draft.write_text(text, encoding="utf-8")
    source = parse_wording(draft or path, text)
    check_sources([source])
    return imported, source
