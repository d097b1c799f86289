"""Policy owner's command line: validate, ingest, approve, withdraw, status, apply releases.

python -m knowledge validate [policies/]
python -m knowledge ingest [policies/ | policies/motor/2026.2.md …]
python -m knowledge approve motor 2026.2 --from 2026-07-01 [--to DATE] --by "Name"
python -m knowledge withdraw motor 2026.2 --by "Name" --reason "…"
python -m knowledge status [--on 2026-08-01] [--json]
python -m knowledge apply-releases [policies/releases.toml]
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

from pydantic import ValidationError

from knowledge.errors import KnowledgeError, NoGoverningVersion
from knowledge.ingest import ingest
from knowledge.manifest import Registry, governing_version
from knowledge.releases import apply_releases, check_releases, load_releases
from knowledge.rules import check_sources
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


def cmd_validate(args: argparse.Namespace) -> int:
    named, family = _sources(args.paths)
    check_sources(family)
    releases = Path(args.releases)
    if releases.exists():
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
    for source in named:
        report = ingest(store, source)
        state = "unchanged" if report.unchanged else f"{report.objects_written} objects written"
        print(f"{report.family} {report.version}: {state}")
    return 0


def cmd_approve(args: argparse.Namespace) -> int:
    changed = Registry(ObjectStore()).approve(
        args.family, args.version, args.effective_from, args.effective_to, args.by
    )
    print(f"{args.family} {args.version}: {'approved' if changed else 'already approved'}")
    return 0


def cmd_withdraw(args: argparse.Namespace) -> int:
    changed = Registry(ObjectStore()).withdraw(args.family, args.version, args.by, args.reason)
    print(f"{args.family} {args.version}: {'withdrawn' if changed else 'already withdrawn'}")
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
    v.add_argument("--releases", default=str(DEFAULT_POLICIES / "releases.toml"))
    v.set_defaults(run=cmd_validate)
    i = sub.add_parser("ingest", help="write wording versions to the store as drafts")
    i.add_argument("paths", nargs="*")
    i.set_defaults(run=cmd_ingest)
    a = sub.add_parser("approve", help="approve an ingested version for an effective interval")
    a.add_argument("family")
    a.add_argument("version")
    a.add_argument("--from", dest="effective_from", type=date.fromisoformat, required=True)
    a.add_argument("--to", dest="effective_to", type=date.fromisoformat)
    a.add_argument("--by", required=True)
    a.set_defaults(run=cmd_approve)
    w = sub.add_parser("withdraw", help="withdraw a version: it is never evidence again")
    w.add_argument("family")
    w.add_argument("version")
    w.add_argument("--by", required=True)
    w.add_argument("--reason", required=True)
    w.set_defaults(run=cmd_withdraw)
    s = sub.add_parser("status", help="what governs each family on a date")
    s.add_argument("--on", type=date.fromisoformat)
    s.add_argument("--json", action="store_true")
    s.set_defaults(run=cmd_status)
    r = sub.add_parser("apply-releases", help="approve what the release records say")
    r.add_argument("file", nargs="?", default=str(DEFAULT_POLICIES / "releases.toml"))
    r.set_defaults(run=cmd_apply_releases)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except KnowledgeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except ValidationError as exc:  # settings from the environment
        problems = "; ".join(f"CLAUSEDESK_S3_{e['loc'][0]}".upper() + f": {e['msg']}" for e in exc.errors())
        print(f"error: configuration: {problems}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
