"""`python -m knowledge import`: the command line of the import, its arguments and its run
(the draft and the report written, what the import booked said, the draft validated)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from knowledge.errors import KnowledgeError, ValidationFailed
from knowledge.importing.accounting import Unaccounted
from knowledge.importing.bounds import ExtractionFailed
from knowledge.importing.pipeline import ImportFailed, accept_review, build, write
from knowledge.rules import check_sources
from knowledge.source import parse_wording


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, help="the wording: .pdf, .docx, .html or .md")
    p.add_argument("--family", required=True)
    p.add_argument("--version", required=True, help="YEAR.N, e.g. 2026.1")
    p.add_argument("--previous", type=Path, help="the previous version's draft or source file, for its IDs")
    p.add_argument("--out", type=Path, help="the draft to write (default: drafts/{family}/{version}.md)")
    p.add_argument("--code", help="three capital letters for clause IDs (default: from the family)")
    p.add_argument("--insurer", help="the insurer's name, if the wording does not say it")
    supplement = p.add_mutually_exclusive_group()
    supplement.add_argument(
        "--supplement",
        type=Path,
        help="a supplementary document (SPDS, endorsement notice) that amends the wording",
    )
    supplement.add_argument(
        "--supplement-pages", help="pages A-B of this file that are a supplement bound with it (e.g. 3-6)"
    )


def run_import(args: argparse.Namespace) -> int:
    code = args.code or (parse_wording(args.previous).code if args.previous else "")
    code = (code or re.sub(r"[^A-Za-z]", "", args.family)[:3]).upper()
    out = args.out or Path("drafts") / args.family / f"{args.version}.md"
    try:
        imported = build(
            args.file,
            args.family,
            args.version,
            code,
            args.insurer,
            args.previous,
            supplement=args.supplement,
            supplement_pages=args.supplement_pages,
        )
    except (ExtractionFailed, ImportFailed, Unaccounted) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    draft, json_path, md_path = write(imported, out)
    c = imported.report.counts
    acc = imported.report.accounting
    print(
        f"{args.file}: {c['units']} units, {c['titles_to_review']} titles to review, {c['links']} links, "
        f"{c['amendments']} amendments, {c['failures']} failures, {c['matrix_cells']} cover matrix cells; "
        f"{acc['source_characters']:,} source characters: {acc['placed_in_units']:,} placed, "
        f"{acc['headings_kept_in_units']:,} headings, {acc['notes_not_contract_text']:,} notes, "
        f"{sum(acc['removed_by_rule'].values()):,} removed by rule, {acc['unaccounted']} unaccounted"
    )
    print(f"draft: {draft}\nreport: {md_path} and {json_path}")
    if acc["overbooked"]:
        # the import's own defect, never the wording's: said, and the import goes on
        pages = ", ".join(f"page {p}: {n}" for p, n in acc["overbooked"].items())
        print(
            f"note: characters booked twice by the import ({pages}); nothing is lost and the draft "
            "is complete; please send this line to the clausedesk maintainers"
        )
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
    print(
        f"the draft validates once the review steps in the report are done: python -m knowledge review {out}"
    )
    return 0
