"""The wording command line, for policy owners (`python -m knowledge`): validate, ingest, check,
approve, withdraw, discard, status, apply releases, import and review an insurer's wording.

python -m knowledge validate [policies/]
python -m knowledge ingest [policies/ | policies/motor/2026.2.md …]
python -m knowledge check-release motor 2027.1 [--against 2026.2] [--model offline] [--parts dev]
                                                [--questions N]
python -m knowledge approve motor 2027.1 --from 2027-07-01 [--to DATE] --by "Name" [--check RC-…] [--yes]
python -m knowledge withdraw motor 2026.2 --by "Name" --reason "…" [--yes]
python -m knowledge discard motor 2027.1 --by "Name" [--yes]

The release check, the audit records and the withdrawal follow-ups live in the clausedesk
database (CLAUSEDESK_DATABASE_URL). Without one, manifest changes still work and say that
no record was kept.
python -m knowledge status [--on 2026-08-01] [--json]
python -m knowledge apply-releases [policies/releases.toml]
python -m knowledge import FILE --family F --version V [--supplement FILE | --supplement-pages A-B]
python -m knowledge review drafts/travel/2026.1.md     the import's review page
python -m knowledge render-sample --out DIR            the synthetic Kowhai travel wording
python -m knowledge probe-large-pdf [--pages 2000]     time and memory of a long import
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from datetime import date
from pathlib import Path

from pydantic import ValidationError

from agent.cli import lifecycle
from agent.closed_pipe import quiet_on_closed_pipe
from agent.settings import SETTING_PREFIXES
from knowledge.errors import KnowledgeError, NoGoverningVersion
from knowledge.ingest import ingest
from knowledge.manifest import Registry, governing_version
from knowledge.releases import apply_releases, check_releases, load_releases
from knowledge.rules import check_sources
from knowledge.settings import refused_settings
from knowledge.source import PolicySource, load_sources, parse_wording
from knowledge.store import ObjectStore

DEFAULT_POLICIES = Path("policies")


def _sources(paths: list[str]) -> tuple[list[PolicySource], list[PolicySource]]:
    """(the files named, every wording of their families) — lineage needs all versions."""
    roots = [Path(p) for p in paths] or [DEFAULT_POLICIES]
    named: list[PolicySource] = []
    for root in roots:
        named.extend(load_sources(root) if root.is_dir() else [parse_wording(root)])
    everything = {s.path: s for s in named}
    for source in named:
        family_dir = Path(source.path).parent
        for sibling in load_sources(family_dir.parent):
            if Path(sibling.path).parent == family_dir:
                everything.setdefault(sibling.path, sibling)
    return named, list(everything.values())


def _release_records(args: argparse.Namespace) -> Path | None:
    """The release records to check: those named, else the project's own when the wordings
    checked are the project's (policies/); a draft imported elsewhere has none yet."""
    if args.releases:
        return Path(args.releases)
    roots = [Path(p).resolve() for p in args.paths] or [DEFAULT_POLICIES.resolve()]
    policies = DEFAULT_POLICIES.resolve()
    if all(r == policies or policies in r.parents for r in roots):
        return DEFAULT_POLICIES / "releases.toml"
    return None


def cmd_validate(args: argparse.Namespace) -> int:
    named, family = _sources(args.paths)
    check_sources(family)
    releases = _release_records(args)
    if releases is not None and releases.exists():
        violations = check_releases(str(releases), load_releases(releases), family)
        if violations:
            from knowledge.errors import ValidationFailed

            raise ValidationFailed(violations)
    print(f"ok: {len(named)} wording files, {sum(len(s.clauses) for s in named)} clauses")
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    named, family = _sources(args.paths)
    check_sources(family)
    store = ObjectStore()
    written = []
    for source in named:
        report = ingest(store, source)
        state = "unchanged" if report.unchanged else f"{report.objects_written} objects written"
        print(f"{report.family} {report.version}: {state}")
        if not report.unchanged:
            written.append((report, source.content_hash))
    # The same content ingested again into a store that lost it is already on record.
    lifecycle.audit(
        [
            dict(
                actor=args.by or getpass.getuser(),
                action="ingest",
                family=report.family,
                version=report.version,
                detail={
                    "objects_written": report.objects_written,
                    "content_hash": content_hash,
                    "via": "command line",
                },
                unless_recorded=("content_hash",),
            )
            for report, content_hash in written
        ]
    )
    return 0


def cmd_apply_releases(args: argparse.Namespace) -> int:
    path = Path(args.file)
    records = load_releases(path)
    _, family = _sources([str(path.parent)])
    violations = check_releases(str(path), records, family)
    if violations:
        from knowledge.errors import ValidationFailed

        raise ValidationFailed(violations)
    done = apply_releases(Registry(ObjectStore()), records)
    print("\n".join(done) or "all release records already applied")
    applied = [r for r in records if any(line.startswith(f"approved {r.label} from") for line in done)]
    lifecycle.audit(
        [
            dict(
                actor=r.approved_by,
                action="approve",
                family=r.family,
                version=r.version,
                reason=r.note or None,
                detail={
                    "effective_from": str(r.effective_from),
                    "effective_to": str(r.effective_to) if r.effective_to else None,
                    "check_id": None,
                    "via": f"release record ({path})",
                },
                # A release record applied again to a store that lost it is not a new approval.
                unless_recorded=("effective_from", "effective_to", "via"),
            )
            for r in applied
        ]
    )
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    manifest, _ = Registry(ObjectStore()).read()
    on = args.on or date.today()
    rows = []
    for family in sorted(manifest.families):
        try:
            governing = governing_version(manifest, family, on).version
        except NoGoverningVersion as exc:
            governing = f"none: {exc}"
        versions = [
            {
                "version": e.version,
                "status": e.status,
                "effective": e.interval() if e.effective_from else "-",
                "approved_by": e.approved_by,
                "clauses": e.clause_count,
            }
            for e in manifest.families[family].values()
        ]
        rows.append({"family": family, "on": str(on), "governing": governing, "versions": versions})
    if args.json:
        print(json.dumps(rows, indent=2, default=str))
        return 0
    if not rows:
        print("the manifest is empty: nothing has been ingested")
    for row in rows:
        print(f"{row['family']}: governing on {row['on']}: {row['governing']}")
        for v in row["versions"]:
            print(
                f"  {v['version']:<8} {v['status']:<9} {v['effective']:<28} "
                f"{v['clauses']:>3} clauses  {v['approved_by'] or ''}"
            )
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="knowledge", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="check wording files and release records")
    v.add_argument("paths", nargs="*")
    v.add_argument(
        "--releases",
        help="release records to check with the wordings (default: policies/releases.toml when "
        "the wordings are under policies/; none for a draft elsewhere)",
    )
    v.set_defaults(run=cmd_validate)
    i = sub.add_parser("ingest", help="write wording versions to the store as drafts")
    i.add_argument("paths", nargs="*")
    i.add_argument("--by", help="who ingests, for the audit record (default: the login name)")
    i.set_defaults(run=cmd_ingest)
    lifecycle.add_parsers(sub)
    s = sub.add_parser("status", help="what governs each family on a date")
    s.add_argument("--on", type=date.fromisoformat)
    s.add_argument("--json", action="store_true")
    s.set_defaults(run=cmd_status)
    r = sub.add_parser("apply-releases", help="approve what the release records say")
    r.add_argument("file", nargs="?", default=str(DEFAULT_POLICIES / "releases.toml"))
    r.set_defaults(run=cmd_apply_releases)
    # Import of an insurer's own wording (issue 19): everything lives in knowledge.importing.
    from knowledge.importing import command as import_command

    m = sub.add_parser("import", help="an insurer's wording (PDF, DOCX, HTML, MD) to a draft and a report")
    import_command.add_arguments(m)
    m.set_defaults(run=import_command.run_import)
    rv = sub.add_parser("review", help="the review page of an imported draft, on this machine")
    rv.add_argument("draft", type=Path)
    rv.add_argument("--port", type=int, default=8765)
    rv.set_defaults(run=lambda a: _review(a.draft, a.port))
    rs = sub.add_parser("render-sample", help="the synthetic Kowhai travel wording as PDF and DOCX")
    rs.add_argument("--out", type=Path, default=Path("drafts/sample"))
    rs.set_defaults(run=_render_sample)
    pl = sub.add_parser(
        "probe-large-pdf", help="import a long PDF under a memory limit; print time and memory"
    )
    pl.add_argument("--pages", type=int, default=2000)
    pl.add_argument("--limit-mb", type=int, default=500)
    pl.set_defaults(run=lambda a: _probe(a.pages, a.limit_mb))
    return p


def _review(draft: Path, port: int) -> int:
    from knowledge.importing.review.app import serve

    return serve(draft, port)


def _render_sample(args: argparse.Namespace) -> int:
    from knowledge.importing.sample import render

    for path in render(args.out):
        print(path)
    return 0


def _probe(pages: int, limit_mb: int) -> int:
    from knowledge.importing.probe import probe

    return probe(pages, limit_mb)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return quiet_on_closed_pipe(lambda: args.run(args))
    except KnowledgeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except ValidationError as exc:  # settings from the environment
        if exc.title not in SETTING_PREFIXES:
            raise
        print(refused_settings(exc, SETTING_PREFIXES), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
