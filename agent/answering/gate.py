"""The serving gate: whether a composed answer goes to the claimant or drafts for staff.

It belongs to the runtime and reads every model's selection alike. An answer counts for
*subjects*, each with its own mode (agent.answering.modes) and its own measured evidence
(agent.answering.bar):

- each clause it quotes (a clause the runtime added as a qualifier is carried, not chosen: it
  is no subject);
- `#schedule` when it quotes no clause and answers from the policy schedule alone;
- `#near` when the question is close to a verified one (the runtime memory's closeness at or
  above its CLOSE, calibrated on the Kowhai dev part) and the answer quotes only what that one
  cites: the staff's answer repeated for the same question;
- `#model`: every answer the model serves on this wording, pooled.

It is served when one of these answers: every quoted clause, or `#schedule` for a schedule-only
answer, or `#near` for a near one, or `#model`. Otherwise it drafts, and the gate says which
subjects held it. The pooled subjects earn like clauses, on the same bar, from the same
replayed evidence, so a clause whose own evidence is thin can still be served by a rule whose
pooled evidence is not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SCHEDULE, NEAR, MODEL = "#schedule", "#near", "#model"
POOLED: tuple[str, ...] = (SCHEDULE, NEAR, MODEL)
POOLED_TITLES = {
    SCHEDULE: "Answers from the policy schedule alone",
    NEAR: "Questions close to ones staff answered, citing what staff cited",
    MODEL: "Every answer the model serves on this wording",
}


def is_pooled(subject: str) -> bool:
    return subject in POOLED


def subjects_of(quoted: Sequence[str], *, near: bool) -> tuple[str, ...]:
    """What an answer counts for: its quoted clauses (or the schedule), the near rule, the model."""
    found = list(dict.fromkeys(quoted)) or [SCHEDULE]
    if near:
        found.append(NEAR)
    found.append(MODEL)
    return tuple(found)


@dataclass(frozen=True)
class Gated:
    """The gate's decision on one composed answer."""

    subjects: tuple[str, ...]
    near: bool
    served_by: (
        str | None
    )  # "clauses", "#schedule", "#near", "#model" or "all" (a check asking all); None: drafts
    held: tuple[str, ...] = ()  # the subjects in `drafts` that held it back

    @property
    def serves(self) -> bool:
        return self.served_by is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "subjects": list(self.subjects),
            "near": self.near,
            "served_by": self.served_by,
            "held": list(self.held),
        }

    @classmethod
    def of(cls, data: Mapping[str, Any] | None) -> Gated | None:
        if not data:
            return None
        return cls(
            tuple(data.get("subjects") or ()),
            bool(data.get("near")),
            data.get("served_by"),
            tuple(data.get("held") or ()),
        )


def gate(modes: Mapping[str, str], quoted: Sequence[str], *, near: bool) -> Gated:
    """Decide from the modes of the answer's subjects (`modes` holds every subject's mode)."""
    subjects = subjects_of(quoted, near=near)
    clauses = [s for s in subjects if not is_pooled(s)]
    answering = {s for s in subjects if modes.get(s) == "answers"}
    if clauses and all(c in answering for c in clauses):
        return Gated(subjects, near, "clauses")
    if not clauses and SCHEDULE in answering:
        return Gated(subjects, near, SCHEDULE)
    for pooled in (NEAR, MODEL):
        if pooled in subjects and pooled in answering:
            return Gated(subjects, near, pooled)
    held = tuple(s for s in (clauses or [SCHEDULE]) if s not in answering)
    return Gated(subjects, near, None, held)


def ungated(quoted: Sequence[str], *, near: bool) -> Gated:
    """A release check asks with every subject answering: what would be served, to score it."""
    return Gated(subjects_of(quoted, near=near), near, "all")


def is_near(closeness: float | None, close: float, recalled: Sequence[str], quoted: Sequence[str]) -> bool:
    """The near rule: the nearest verified question is this close and cites every quoted clause."""
    return bool(quoted) and closeness is not None and closeness >= close and set(quoted) <= set(recalled)
