"""Why a composed answer drafted instead of going to the claimant, in words for staff and policy
owners: each subject that held it (agent.answering.gate) with its measured figures."""

from __future__ import annotations

from sqlalchemy.orm import Session

from agent.answering.bar import Bar, Figures
from agent.answering.gate import MODEL, NEAR, POOLED_TITLES, SCHEDULE, Gated
from agent.answering.measured import measured
from agent.db.tables import Turn


def why_drafted(session: Session, turn: Turn | None, bar: Bar) -> list[str]:
    """One sentence per reason; empty when the turn did not draft an answer."""
    if turn is None or turn.route_reason != "drafted_for_review" or not turn.family or not turn.version:
        return []
    gated = Gated.of(turn.gate)
    if gated is None:  # a turn recorded before the gate kept its decision
        return ["a clause it quotes had not earned answering claimants when it was asked"]
    if gated.serves:
        return ["the model doubted its own selection, so a handler checks it"]
    now = measured(session, turn.family, turn.version, bar)
    found = []
    for subject in gated.held:
        name = "the answer from the schedule alone" if subject == SCHEDULE else subject
        found.append(f"{name} has not earned answering: {_figures(now.of(bar, subject), bar)}")
    for pooled in (NEAR, MODEL):
        if pooled in gated.subjects:
            rule = POOLED_TITLES[pooled]
            found.append(f"the rule “{rule}” does not answer yet: {_figures(now.of(bar, pooled), bar)}")
    return found


def _figures(f: Figures, bar: Bar) -> str:
    return "; ".join(f.misses(bar)) or "it meets the bar now (a policy owner can let it answer)"
