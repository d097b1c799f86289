"""A version's subjects as measured: the latest release check's replay of all its evidence, and
every served answer flagged wrong since, which counts at once.

Approval, promotion, the automatic fall back, the API and the wording page read their figures
here, so they weigh the bar one way (agent.answering.bar).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from agent.answering.bar import Bar, Figures, Scored, all_figures
from agent.answering.check_report import CheckReport, QuestionRow
from agent.answering.evidence import VERIFIED
from agent.answering.gate import MODEL, NEAR, Gated, subjects_of
from agent.db.tables import Evidence, ReleaseCheck, Turn

SERVED_WRONG_SOURCES = ("flag", "claimant")
# The inventory part the offline model and the near rule's closeness are tuned on (docs/models.md):
# its questions never count toward the pooled rules' bounds.
TUNED_PART = "dev"
TUNED_MODEL = "function:clausedesk-offline"  # agent.models.selection.model_label of the offline model


@dataclass(frozen=True)
class Measured:
    """The figures of every subject of a version, and what they rest on."""

    check: ReleaseCheck | None
    figures: dict[str, Figures]
    rows_covered: int  # verified evidence rows the check replayed or counted
    rows_now: int  # verified evidence rows of the version now
    flagged_since: int  # served answers flagged wrong since the check

    def of(self, bar: Bar, subject: str) -> Figures:
        return self.figures.get(subject) or Figures.of(bar, subject, 0, 0)

    @property
    def rows_since(self) -> int:
        """Verified evidence rows the measure does not cover (all of them before any measure)."""
        return max(self.rows_now - self.rows_covered, 0)

    def age(self, now: datetime) -> str:
        if self.check is None:
            return "never measured"
        minutes = int((now - self.check.created_at).total_seconds() // 60)
        when = f"{minutes} min ago" if minutes < 120 else f"{minutes // 60} h ago"
        return f"measured {when} by {self.check.id}, {self.rows_since} evidence rows since"


def tuned_on_dev(model: str) -> bool:
    """Whether a check's model (its label) was tuned on the dev part: the offline model was."""
    return model == TUNED_MODEL


def scored_rows(rows: Iterable[QuestionRow], *, model_tuned: bool = True) -> list[Scored]:
    """A release check's questions as the bar weighs evidence (agent.answering.bar): the subjects
    each answer counts for and its outcome (right, wrong, irrelevant or routed). A question of the
    tuned part never counts for `#near` (its closeness was calibrated there), nor for `#model`
    when the model was tuned there (`model_tuned`)."""
    fitted = (NEAR, MODEL) if model_tuned else (NEAR,)
    found = []
    for r in rows:
        asked = r.candidate
        if asked is None or not asked.outcome:  # not asked of the candidate: nothing to weigh
            continue
        if not asked.served:
            outcome = "routed"
        elif not r.answerable:
            outcome = "irrelevant"
        else:
            outcome = "right" if asked.right else "wrong"
        subjects = asked.subjects or asked.cited
        uncounted: tuple[str, ...] = ()
        if r.part == TUNED_PART:  # the pooled rules were fitted on these: their bounds are not
            uncounted = tuple(s for s in subjects if s in fitted)
            subjects = tuple(s for s in subjects if s not in fitted)
        found.append(Scored(r.id, subjects, outcome, uncounted))
    return found


def scored_of(report: CheckReport) -> list[Scored]:
    """A stored check's scored answers and the served answers it counted as recorded."""
    fixed = [Scored(f.key, f.subjects, "wrong") for f in report.served_wrong_as_recorded]
    # A report that names no model (none the release check writes) is weighed as the offline model's.
    tuned = tuned_on_dev(report.model or TUNED_MODEL)
    return [*scored_rows(report.questions, model_tuned=tuned), *fixed]


def latest_check(session: Session, family: str, version: str) -> ReleaseCheck | None:
    return session.scalar(
        select(ReleaseCheck)
        .where(ReleaseCheck.family == family, ReleaseCheck.version == version)
        .order_by(ReleaseCheck.created_at.desc(), ReleaseCheck.id.desc())
        .limit(1)
    )


def served_wrong(session: Session, rows: Iterable[Evidence]) -> list[Scored]:
    """Flagged or reported answers, wrong for the subjects their turn was served by."""
    found = []
    for row in rows:
        turn = session.get(Turn, row.turn_id) if row.turn_id else None
        gated = Gated.of(turn.gate) if turn is not None else None
        subjects = gated.subjects if gated else subjects_of(list(row.served_clauses or ()), near=False)
        found.append(Scored(row.key, tuple(subjects), "wrong"))
    return found


def flags_since(
    session: Session, family: str, version: str, since: datetime | None, known: set[str]
) -> list[Evidence]:
    query = select(Evidence).where(
        Evidence.family == family,
        Evidence.version == version,
        Evidence.status == VERIFIED,
        Evidence.source.in_(SERVED_WRONG_SOURCES),
    )
    if since is not None:
        query = query.where(Evidence.created_at > since)
    return [r for r in session.scalars(query.order_by(Evidence.id)) if r.key not in known]


def measured(
    session: Session, family: str, version: str, bar: Bar, check: ReleaseCheck | None = None
) -> Measured:
    """The subjects' figures: the check (the latest of the version unless given) and the flags since."""
    check = check or latest_check(session, family, version)
    report = CheckReport.of(check.report if check is not None else None)
    scored = scored_of(report)
    flagged = flags_since(
        session, family, version, check.created_at if check else None, {s.key for s in scored}
    )
    scored += served_wrong(session, flagged)
    rows_now = verified_rows(session, family, version)
    return Measured(check, all_figures(bar, scored), report.evidence.verified_rows, rows_now, len(flagged))


def verified_rows(session: Session, family: str, version: str) -> int:
    query = select(func.count(Evidence.id)).where(
        Evidence.family == family, Evidence.version == version, Evidence.status == VERIFIED
    )
    return session.scalar(query) or 0


def rows_since(session: Session, family: str, version: str) -> int:
    """Verified evidence rows the latest measure does not cover: what a checkpoint waits on,
    read without weighing the measure."""
    check = latest_check(session, family, version)
    covered = CheckReport.of(check.report if check is not None else None).evidence.verified_rows
    return max(verified_rows(session, family, version) - covered, 0)
