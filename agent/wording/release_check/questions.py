"""Questions through the turn code: each inventory question asked on its own fresh claim with
one version pinned, judged on its facts, and the two versions' answers compared."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Callable

from pydantic_ai.models import Model
from sqlalchemy import select

from agent import metrics
from agent.answering.check_report import ANSWERED, Asked, QuestionRow
from agent.answering.gate import Gated
from agent.boundary.citation import Quote
from agent.db.tables import Message, Turn, make_engine, make_sessionmaker
from agent.models.memory import Memories, leaving_out
from agent.security import new_token
from agent.seed import CLONE_PREFIX, clone_claim
from agent.turn.runner import TurnRunner
from agent.wording.questions import Question, clauses_for, seeded_claims
from agent.wording.release_check.versions import PinnedLibrary
from knowledge.clauses import Directory
from knowledge.manifest import VersionEntry
from knowledge.store import ObjectStore

# A reference or a claim ID differs between any two runs, and a composed answer names the
# wording version it quotes; none of them is a change of answer.
_RUN_NOISE = re.compile(r"\bWL-\d+\b|\bEV-[0-9a-f]{10}-[A-Z0-9-]+\b|\bwording \d+(?:\.\d+)*\)")


# The model that answers one question (the system's model unless told). Whatever it is, the
# question is scored with itself left out of the offline model's memory (answer_question).
ModelFor = Callable[[Question], Model]


def ask_all(
    store: ObjectStore,
    entry: VersionEntry,
    questions: list[Question],
    model: Model,
    database_url: str,
    claims: dict[str, str] | None = None,
    *,
    model_for: ModelFor | None = None,
    memories: Memories | None = None,
    leave_out: dict[str, tuple[str, ...]] | None = None,
) -> dict[str, Asked]:
    """Each question once, each on its own fresh claim cloned from its policy's seeded claim
    (`claims`: policy number -> claim; the development claims by default), with `entry`
    pinned as governing. `memories`: the runtime memory the gate's near rule reads;
    `leave_out`: question ID -> the memory keys left out while it is scored (itself by default)."""
    return asyncio.run(
        _ask_all(
            store,
            entry,
            questions,
            model,
            database_url,
            claims or seeded_claims(),
            model_for,
            memories,
            leave_out or {},
        )
    )


async def _ask_all(
    store: ObjectStore,
    entry: VersionEntry,
    questions: list[Question],
    model: Model,
    database_url: str,
    claims: dict[str, str],
    model_for: ModelFor | None,
    memories: Memories | None,
    leave_out: dict[str, tuple[str, ...]],
) -> dict[str, Asked]:
    engine = make_engine(database_url)
    sessions = make_sessionmaker(engine)
    runner = TurnRunner(
        sessions,
        PinnedLibrary(store, entry),
        model,
        answer_all=True,
        memories=memories,
        purpose=metrics.RELEASE_CHECK,
    )
    try:
        return {
            q.id: await answer_question(
                runner,
                q,
                claims[q.policy],
                model_for(q) if model_for else model,
                leave_out.get(q.id, (q.id,)),
            )
            for q in questions
        }
    finally:
        engine.dispose()


async def answer_question(
    runner: TurnRunner, q: Question, seeded_claim: str, model: Model, leave_out: tuple[str, ...] = ()
) -> Asked:
    """One question through the turn code, on a fresh claim cloned from `seeded_claim`, answered
    by `model`, judged on the question's facts: the one place a check scores an answer."""
    runner.model = model
    sessions = runner.sessions
    claim_id = f"{CLONE_PREFIX}{uuid.uuid4().hex[:10]}-{seeded_claim}"[:40]
    with sessions.begin() as session:
        clone_claim(session, seeded_claim, claim_id, new_token())
    # Leave-one-out: the selector's memory of verified questions never recalls the one scored.
    with leaving_out(*(leave_out or (q.id,))):
        for earlier in q.earlier:  # a follow-up is asked after the messages it follows
            await runner.run(claim_id, earlier)
        result = await runner.run(claim_id, q.text)
    with sessions() as session:
        turn = session.get(Turn, result.turn_id)
        reply = session.scalar(
            select(Message.body).where(Message.turn_id == result.turn_id, Message.role == "agent")
        )
    served = result.outcome.startswith(ANSWERED)
    quotes = tuple(Quote(c.clause_id, c.quote) for c in result.citations)
    added = [b["clause_id"] for b in (turn.composed or {}).get("blocks") or () if b.get("added")]
    verdict = q.judge(reply or result.reply, result.citations, added) if served else None
    gated = Gated.of(turn.gate)
    return Asked(
        outcome=result.outcome,
        requested=tuple(turn.requested or ()),
        cited=tuple(turn.cited or ()),
        route_reason=turn.route_reason,
        reply=_RUN_NOISE.sub("…", reply or result.reply),
        quotes=quotes,
        right=verdict.right if verdict else None,
        missed=tuple(tuple(g) for g in verdict.missed) if verdict else (),
        wrong=tuple(verdict.wrong) if verdict else (),
        subjects=tuple(gated.subjects) if gated else (),
        near=gated.near if gated else False,
    )


def compare_questions(
    questions: list[Question],
    baseline: dict[str, Asked] | None,
    candidate: dict[str, Asked],
    directory: Directory | None = None,
) -> tuple[QuestionRow, ...]:
    """Each question with both versions' answers and what changes between them."""
    rows = []
    for q in questions:
        new = candidate[q.id]
        old = baseline[q.id] if baseline else None
        changes = []
        if old is not None:
            if old.requested != new.requested:
                changes.append("selected clauses")
            if old.cited != new.cited:
                changes.append("cited clauses")
            if (old.outcome == ANSWERED) != (new.outcome == ANSWERED):
                changes.append("answered → routed" if old.outcome == ANSWERED else "routed → answered")
            if old.reply != new.reply or old.quotes != new.quotes:
                changes.append("reply text")
            if old.right and new.served and not new.right:
                changes.append("right → wrong")
            if old.served and not old.right and new.right:
                changes.append("wrong → right")
        rows.append(
            QuestionRow(
                id=q.id,
                policy=q.policy,
                part=q.part,
                text=q.text,
                earlier=tuple(q.earlier),
                answerable=q.answerable,
                expected=tuple(clauses_for(q, directory) if directory else q.clauses),
                baseline=old,
                candidate=new,
                changes=tuple(changes),
            )
        )
    return tuple(rows)
