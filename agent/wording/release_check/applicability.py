"""Applicability comparison of the two versions: the plans or cover levels the wording offers
and the schedule entries that add, remove or change a clause, since a clause whose words stay
while its plans change answers differently."""

from __future__ import annotations

from agent.answering.check_report import (
    AddedApplicability,
    AddedRemoved,
    Applicability,
    ApplicabilityChange,
    FieldChange,
    WordingApplicability,
)
from knowledge.clauses import Directory, DirectoryEntry

# A clause's applicability, as the directory keeps it: what each field means to a policy owner.
APPLIES = {
    "plans": "plans or cover levels",
    "added_by": "added by (optional sections, endorsements)",
    "removed_by": "removed by",
    "changed_by": "changed by",
}


def _entries(directory: Directory | None) -> dict[str, DirectoryEntry]:
    return {e.clause_id: e for e in directory.entries} if directory else {}


def _schedule_entries(directory: Directory | None, field_name: str) -> set[str]:
    return {x for e in _entries(directory).values() for x in getattr(e, field_name)}


def _added_removed(before: set[str], after: set[str]) -> AddedRemoved:
    return AddedRemoved(added=tuple(sorted(after - before)), removed=tuple(sorted(before - after)))


def compare_applicability(baseline: Directory | None, candidate: Directory) -> Applicability:
    """What applies to whom, version against version: the plans or cover levels the wording
    offers, the schedule entries (optional sections, endorsements) its clauses name, and each
    kept clause whose plans or schedule entries differ. Added clauses are listed with theirs."""
    old, new = _entries(baseline), _entries(candidate)
    before_plans = set(baseline.plans_named) if baseline else set()
    wording = WordingApplicability(
        plans=_added_removed(before_plans, set(candidate.plans_named)),
        **{
            name: _added_removed(_schedule_entries(baseline, name), _schedule_entries(candidate, name))
            for name in ("added_by", "removed_by", "changed_by")
        },
    )
    changed = []
    for cid, entry in new.items():
        if cid not in old:
            continue
        fields = tuple(
            FieldChange(name, tuple(getattr(old[cid], name)), tuple(getattr(entry, name)))
            for name in APPLIES
            if set(getattr(old[cid], name)) != set(getattr(entry, name))
        )
        if fields:
            changed.append(ApplicabilityChange(cid, entry.title, fields))
    added = tuple(
        AddedApplicability(cid, e.title, **{name: tuple(getattr(e, name)) for name in APPLIES})
        for cid, e in new.items()
        if cid not in old and baseline is not None
    )
    return Applicability(wording=wording, changed=tuple(changed), added=added)
