"""`python -m agent replies collect|compare`: the inventory's replies read back from a system's
database after `evaluate --only inventory --keep-claims`, then two such runs side by side.

It reads the database with plain SQL on the columns every schema since the turn record began
has (claims, messages, turns), so one command measures an older commit's system and the current
one alike: the reply a claimant read (the agent message), the turn's outcome, what it cited and
the composed reply as data. Each evaluation claim is matched to its inventory question by
policy and by the claimant messages it holds (the question's earlier messages, then the
question); the reply is judged with the question's facts, as the evaluation report judges it.

Per question it keeps: served (outcome answered, whole or in part), right, the wrong strings
found, where the runtime's statement of what applies starts and ends in the reply, and the reply's
length in characters and non-empty lines. The statement is found from the composed reply in
the turn record, never from the wording of the text: today's composer keeps one per cited
clause (`blocks[].statement`); the composer before issue 31 kept the schedule's sentence
(`clauses[].applicability.sentence`, absent where nothing in the schedule decides the clause)
and the plan sentence (`clauses[].plan_statement`). A served reply without any has none.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from agent.seed import CLONE_PREFIX
from agent.wording.questions import PARTS, Question, load_questions

STATEMENT_WITHIN = 200  # characters: the claimant reads what applies to them first


@dataclass
class Reply:
    id: str
    part: str
    family: str
    answerable: bool
    outcome: str | None
    served: bool
    right: bool
    wrong_found: list[str]
    missed: list[list[str]]
    cited: list[str]
    statement_at: int | None  # where the first runtime statement starts; None: none in the reply
    statement_end: int | None  # where that statement ends
    chars: int
    lines: int
    reply: str


def statements_of(composed: dict[str, Any] | None) -> list[str]:
    """The runtime's statements of what applies, from a composed reply of either shape."""
    if not composed:
        return []
    found = [b.get("statement") for b in composed.get("blocks") or []]
    for c in composed.get("clauses") or []:
        found += [(c.get("applicability") or {}).get("sentence"), c.get("plan_statement")]
    return [s for s in found if s]


def statement_at(reply: str, composed: dict[str, Any] | None) -> tuple[int, int] | None:
    """Start and end of the statement that comes first in the reply; None when none is in it."""
    places = [(p, p + len(s)) for s in statements_of(composed) if (p := reply.find(s)) >= 0]
    return min(places) if places else None


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def conversations(database_url: str) -> list[dict[str, Any]]:
    """Every evaluation claim kept in the database: its policy, the claimant's messages in order,
    and the last agent reply with its turn record."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as db:
            claims = db.execute(
                text("SELECT claim_id, policy_number FROM claims WHERE claim_id LIKE :p ORDER BY claim_id"),
                {"p": CLONE_PREFIX + "%"},
            ).all()
            messages = db.execute(
                text(
                    "SELECT m.claim_id, m.role, m.body, m.turn_id FROM messages m "
                    "JOIN claims c ON c.claim_id = m.claim_id WHERE c.claim_id LIKE :p ORDER BY m.id"
                ),
                {"p": CLONE_PREFIX + "%"},
            ).all()
            turns = {
                row.id: row
                for row in db.execute(
                    text("SELECT t.id, t.outcome, t.cited, t.composed FROM turns t WHERE t.claim_id LIKE :p"),
                    {"p": CLONE_PREFIX + "%"},
                ).all()
            }
    finally:
        engine.dispose()
    by_claim: dict[str, list[Any]] = defaultdict(list)
    for m in messages:
        by_claim[m.claim_id].append(m)
    out = []
    for claim_id, policy in claims:
        said = [m.body for m in by_claim[claim_id] if m.role == "claimant"]
        agent = [m for m in by_claim[claim_id] if m.role == "agent" and m.turn_id]
        last = agent[-1] if agent else None
        turn = turns.get(last.turn_id) if last else None
        out.append(
            {
                "claim_id": claim_id,
                "policy": policy,
                "said": said,
                "reply": last.body if last else "",
                "outcome": turn.outcome if turn else None,
                "cited": list(_json(turn.cited) or []) if turn else [],
                "composed": _json(turn.composed) if turn else None,
            }
        )
    return out


def collect(database_url: str, questions: list[Question]) -> tuple[list[Reply], list[str]]:
    """One Reply per inventory question found in the database, and the IDs not found."""
    pool: dict[tuple[str, tuple[str, ...]], list[dict[str, Any]]] = defaultdict(list)
    for c in conversations(database_url):
        pool[(c["policy"], tuple(c["said"]))].append(c)
    replies, missing = [], []
    for q in questions:
        found = pool.get((q.policy, (*q.earlier, q.text)))
        if not found:
            missing.append(q.id)
            continue
        c = found.pop(0)  # the same message on the same policy twice: each question its own claim
        body = c["reply"] or ""
        served = str(c["outcome"] or "").startswith("answered")
        verdict = q.judge(body) if served else None
        at = statement_at(body, c["composed"]) if served else None
        replies.append(
            Reply(
                q.id,
                q.part,
                q.family,
                q.answerable,
                c["outcome"],
                served,
                bool(verdict and verdict.right),
                list(verdict.wrong) if verdict else [],
                [list(g) for g in verdict.missed] if verdict else [],
                c["cited"],
                at[0] if at else None,
                at[1] if at else None,
                len(body),
                sum(1 for line in body.splitlines() if line.strip()),
                body,
            )
        )
    return replies, missing


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def summary(replies: list[Reply]) -> dict[str, Any]:
    answerable = [r for r in replies if r.answerable]
    unanswerable = [r for r in replies if not r.answerable]
    served = [r for r in replies if r.served]
    right = sum(r.right for r in served)
    early = sum(r.statement_at is not None and r.statement_at < STATEMENT_WITHIN for r in served)
    whole = sum(r.statement_end is not None and r.statement_end <= STATEMENT_WITHIN for r in served)
    return {
        "questions": len(replies),
        "answerable": len(answerable),
        "served": len(served),
        "answered_right": right,
        "answered_right_share": _share(right, len(answerable)),
        "served_wrong": len(served) - right,
        "served_wrong_share": _share(len(served) - right, len(served)),
        "unanswerable": len(unanswerable),
        "unanswerable_routed": sum(r.outcome == "routed_to_staff" and not r.cited for r in unanswerable),
        "statement_within_200": early,
        "statement_within_200_share": _share(early, len(served)),
        "statement_whole_within_200_share": _share(whole, len(served)),
        "served_without_statement": sum(r.statement_at is None for r in served),
        "median_chars": statistics.median([r.chars for r in served]) if served else None,
        "median_lines": statistics.median([r.lines for r in served]) if served else None,
    }


def by_part(replies: list[Reply]) -> dict[str, dict[str, Any]]:
    parts = dict.fromkeys([*PARTS, *(r.part for r in replies)])
    out = {p: summary([r for r in replies if r.part == p]) for p in parts}
    out["all"] = summary(replies)
    return {k: v for k, v in out.items() if v["questions"]}


def run_collect(database_url: str, questions_dir: Path | None, out: Path) -> int:
    questions = load_questions(questions_dir)
    replies, missing = collect(database_url, questions)
    out.write_text(
        json.dumps(
            {
                "database_url": database_url,
                "questions_dir": str(questions_dir or "corpus/questions"),
                "missing": missing,
                "parts": by_part(replies),
                "replies": [asdict(r) for r in replies],
            },
            indent=1,
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    print(render_parts(by_part(replies)))
    print(f"{len(replies)} questions found, {len(missing)} not in the database; written to {out}")
    return 0 if replies and not missing else 1


ROWS = (
    ("served", "served"),
    ("answered_right", "answered right"),
    ("answered_right_share", "  share of answerable"),
    ("served_wrong", "served wrong or irrelevant"),
    ("served_wrong_share", "  share of served"),
    ("unanswerable_routed", "unanswerable routed"),
    ("unanswerable", "  of unanswerable"),
    ("statement_within_200_share", "statement starts in first 200 chars (of served)"),
    ("statement_whole_within_200_share", "  and ends there too (of served)"),
    ("served_without_statement", "served without a statement"),
    ("median_chars", "median reply chars (served)"),
    ("median_lines", "median reply non-empty lines (served)"),
)


def _cell(key: str, value: Any) -> str:
    if value is None:
        return "-"
    if key.endswith("_share"):
        return f"{value:.1%}"
    return f"{value:g}" if isinstance(value, float) else str(value)


def render_parts(parts: dict[str, dict[str, Any]], other: dict[str, dict[str, Any]] | None = None) -> str:
    """A table per part; with `other` (the run before), each cell reads before → after."""
    lines = []
    for part, figures in parts.items():
        label = f"{part} (tuned on)" if part == "dev" else part
        lines.append(f"\n{label}: {figures['questions']} questions, {figures['answerable']} answerable")
        for key, name in ROWS:
            cell = _cell(key, figures.get(key))
            if other is not None:
                cell = f"{_cell(key, (other.get(part) or {}).get(key))} → {cell}"
            lines.append(f"  {name:<48} {cell}")
    return "\n".join(lines)


def run_compare(before: Path, after: Path) -> int:
    old, new = (json.loads(p.read_text(encoding="utf-8")) for p in (before, after))
    print(f"before: {before}\nafter:  {after}")
    print(render_parts(new["parts"], old["parts"]))
    was = {r["id"]: r for r in old["replies"]}
    changed = []
    for r in new["replies"]:
        b = was.get(r["id"])
        if b is None or (b["served"], b["right"]) == (r["served"], r["right"]):
            continue
        changed.append((r["id"], b, r))
    print(f"\nverdicts changed: {len(changed)}")

    def state(r: dict[str, Any]) -> str:
        return ("right" if r["right"] else "WRONG") if r["served"] else f"not served ({r['outcome']})"

    def why(r: dict[str, Any]) -> str:
        if not r["served"] or r["right"]:
            return ""
        return f"wrong strings {r['wrong_found']}" if r["wrong_found"] else f"missed {r['missed']}"

    for qid, b, r in changed:
        print(f"  {qid}: {state(b)} → {state(r)}; before: {why(b) or '-'}; after: {why(r) or '-'}")
    return 0
