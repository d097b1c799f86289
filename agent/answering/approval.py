"""Moving a version's subjects (clauses, and the pooled rules of agent.answering.gate) to
`answers` and back.

Every figure comes from one measure (agent.answering.measured): the cited release check's
replay of all the version's verified evidence, and the served answers flagged wrong since.
A subject at the bar moves on a policy owner's word, or by itself at a checkpoint where the
settings allow (`promote`); below the bar it moves only with a written reason of at least
MIN_REASON_WORDS words, kept on its mode change and shown.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy.orm import Session

from agent.answering.bar import Bar, Figures
from agent.answering.gate import POOLED
from agent.answering.measured import Measured, measured
from agent.answering.modes import ModeChange, modes_for, set_mode
from agent.db.tables import ReleaseCheck
from agent.events import outbox

log = logging.getLogger(__name__)
MAX_REASON = 2000
MIN_REASON_WORDS = 4


class ApprovalError(ValueError):
    """A request that cannot be applied as asked (a subject the version does not hold, none named)."""


class BelowBar(ApprovalError):
    """Subjects whose evidence misses the bar, with no written reason to move them anyway."""

    def __init__(self, missed: Mapping[str, list[str]], bar: Bar):
        self.missed = dict(missed)
        detail = "; ".join(f"{cid}: {', '.join(why)}" for cid, why in self.missed.items())
        super().__init__(
            f"below the bar ({bar.describe()}): {detail}. Give a written reason of at least "
            f"{MIN_REASON_WORDS} words to move them anyway"
        )


@dataclass(frozen=True)
class Weighed:
    clause_id: str  # a clause ID or a pooled subject (#schedule, #near, #model)
    figures: Figures
    misses: list[str]


def written_reason(reason: str | None) -> str | None:
    """A reason that says something (at least MIN_REASON_WORDS words), or None when none was given;
    ApprovalError for one too short or too long to be a reason."""
    reason = " ".join((reason or "").split())
    if not reason:
        return None
    if len(reason) > MAX_REASON:
        raise ApprovalError(f"the reason is longer than {MAX_REASON} characters")
    if len(re.findall(r"[^\W\d_]{2,}", reason)) < MIN_REASON_WORDS:
        raise ApprovalError(f"a reason is at least {MIN_REASON_WORDS} words saying why, not {reason[:40]!r}")
    return reason


def _check_subjects(subjects: list[str], known: set[str], family: str, version: str) -> None:
    if not subjects:
        raise ApprovalError("name at least one clause or rule")
    unknown = [c for c in subjects if c not in known and c not in POOLED]
    if unknown:
        raise ApprovalError(f"{', '.join(unknown)} is not a clause of {family} wording {version}")


def _answering(
    session: Session,
    family: str,
    version: str,
    w: Weighed,
    check: ReleaseCheck,
    *,
    by: str,
    reason: str,
    **flags: bool,
) -> ModeChange:
    """One subject moved to `answers`, citing the check that measured it."""
    return set_mode(
        session,
        family,
        version,
        w.clause_id,
        "answers",
        by=by,
        reason=reason,
        release_check_id=check.id,
        **flags,
    )


def to_answers(
    session: Session,
    *,
    family: str,
    version: str,
    clause_ids: list[str],
    known: set[str],
    check: ReleaseCheck,
    by: str,
    bar: Bar,
    reason: str | None = None,
) -> tuple[list[ModeChange], list[Weighed]]:
    """Move subjects to `answers` citing `check` (the caller has confirmed it is a check of this
    version as it stands). BelowBar, and nothing changes, when one misses the bar and no reason
    is given. Adds to the session; the caller commits."""
    subjects = list(dict.fromkeys(clause_ids))
    _check_subjects(subjects, known, family, version)
    reason = written_reason(reason)
    now = measured(session, family, version, bar, check)
    weighed = [Weighed(s, f := now.of(bar, s), f.misses(bar)) for s in subjects]
    missed = {w.clause_id: w.misses for w in weighed if w.misses}
    if missed and reason is None:
        raise BelowBar(missed, bar)
    modes = modes_for(session, family, version, subjects)
    changes = []
    for w in weighed:
        if modes[w.clause_id] == "answers":  # already answering: an approval again writes nothing
            continue
        below = bool(w.misses)
        note = (
            f"Below the bar ({'; '.join(w.misses)}): {reason}"
            if below
            else (reason or f"Meets the bar: {w.figures.line()}")
        )
        changes.append(_answering(session, family, version, w, check, by=by, reason=note, below_bar=below))
        log.info(
            "answering %s %s %s -> answers by %s citing %s (%s)%s",
            family,
            version,
            w.clause_id,
            by,
            check.id,
            w.figures.line(),
            ", below the bar" if below else "",
        )
    return changes, weighed


def proposal(
    session: Session, family: str, version: str, known: set[str], bar: Bar
) -> tuple[Measured, list[Weighed]]:
    """The subjects that meet the bar on the latest measure and still draft: what promotion moves."""
    now = measured(session, family, version, bar)
    candidates = [s for s in now.figures if s in known or s in POOLED]
    modes = modes_for(session, family, version, candidates)
    return now, [
        Weighed(s, now.of(bar, s), []) for s in candidates if now.of(bar, s).meets and modes[s] != "answers"
    ]


def promote(
    session: Session,
    family: str,
    version: str,
    known: set[str],
    bar: Bar,
    *,
    by: str,
    automatic: bool = False,
) -> list[ModeChange]:
    """Move every subject that meets the bar on the latest measure to `answers`, citing it, with
    an event for each. Nothing to move, or no measure yet: no change. The caller commits."""
    now, ready = proposal(session, family, version, known, bar)
    if now.check is None or not ready:
        return []
    changes = []
    for w in ready:
        how = "automatically at a checkpoint" if automatic else "promoted"
        reason = f"Meets the bar ({how}): {w.figures.line()}"
        change = _answering(session, family, version, w, now.check, by=by, reason=reason, automatic=automatic)
        outbox.add(
            session,
            "clause_promoted",
            {
                "family": family,
                "version": version,
                "clause_id": w.clause_id,
                "mode": "answers",
                "automatic": automatic,
                "served": w.figures.served,
                "wrong_or_irrelevant": w.figures.wrong,
                "upper_bound": round(w.figures.upper, 4),
                "wrong_percent_allowed": bar.wrong_percent,
                "release_check_id": now.check.id,
            },
        )
        log.info(
            "answering %s %s %s -> answers (%s, %s) by %s",
            family,
            version,
            w.clause_id,
            how,
            w.figures.line(),
            by,
        )
        changes.append(change)
    return changes


def to_drafts(
    session: Session,
    *,
    family: str,
    version: str,
    clause_ids: list[str],
    known: set[str],
    by: str,
    reason: str,
) -> list[ModeChange]:
    """Move subjects back to `drafts` by hand. Adds to the session; the caller commits."""
    subjects = list(dict.fromkeys(clause_ids))
    _check_subjects(subjects, known, family, version)
    given = written_reason(reason)
    if given is None:
        raise ApprovalError("give a reason for moving clauses back to drafts")
    modes = modes_for(session, family, version, subjects)
    changes = [  # a subject already drafting: a move that changes nothing writes nothing
        set_mode(session, family, version, cid, "drafts", by=by, reason=given)
        for cid in subjects
        if modes[cid] != "drafts"
    ]
    log.info("answering %s %s %s -> drafts by %s", family, version, subjects, by)
    return changes
