"""A wording version's own learning curve, for the wording page: one point per measure (release
check) of the version's content, oldest first: the verified evidence it covered, answered right
(share of answerable questions), served answers wrong or irrelevant, and the clauses and rules
meeting the bar then."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from markupsafe import Markup, escape

from agent.answering.check_report import Correctness, Summary
from agent.db.tables import ReleaseCheck

WIDTH, HEIGHT, PAD = 320, 120, 24


@dataclass(frozen=True)
class CurvePoint:
    check_id: str
    at: datetime
    evidence: int  # verified evidence rows covered (questions asked, for a check of the inventory)
    answered_right: float | None  # share of answerable questions
    served: int
    served_wrong: int
    meeting_bar: int


def points(checks: Iterable[ReleaseCheck], content_hash: str) -> list[CurvePoint]:
    found = []
    for check in sorted(checks, key=lambda c: c.created_at):
        if check.content_hash != content_hash:
            continue
        s = Summary.of(check.summary)
        right = s.right.candidate or Correctness()
        found.append(
            CurvePoint(
                check.id,
                check.created_at,
                s.evidence.verified_rows or s.evidence.asked,
                right.answered_right_share,
                right.served,
                len(right.served_wrong),
                len(s.clauses_meeting_bar),
            )
        )
    return found


def svg(curve: list[CurvePoint], label: str) -> Markup:
    """Answered right against evidence covered, as a small line chart; empty under two points."""
    drawn = [p for p in curve if p.answered_right is not None]
    if len(drawn) < 2:
        return Markup("")
    most = max(p.evidence for p in drawn) or 1

    def at(p: CurvePoint) -> str:
        x = PAD + (WIDTH - 2 * PAD) * p.evidence / most
        y = HEIGHT - PAD - (HEIGHT - 2 * PAD) * (p.answered_right or 0.0)
        return f"{x:.1f},{y:.1f}"

    line = " ".join(at(p) for p in drawn)
    return Markup(
        f'<svg role="img" aria-label="{escape(label)}" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}"><title>{escape(label)}</title>'
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" stroke="currentColor"/>'
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="currentColor"/>'
        f'<polyline fill="none" stroke="currentColor" stroke-width="2" points="{line}"/>'
        f'<text x="{PAD}" y="{PAD - 6}" font-size="10">answered right</text>'
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - 6}" font-size="10" text-anchor="end">'
        f"evidence rows ({most})</text>"
        "</svg>"
    )
