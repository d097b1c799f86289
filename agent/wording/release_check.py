"""Release check: what would change for claimants if a candidate wording version went live.

The question inventory of the family is asked twice, through the turn code itself
(`TurnRunner`, the configured or offline model): once with the candidate version pinned as
the governing wording, once with the version it would follow. Each served answer is judged
on the question's facts, as the evaluation judges it, and the summary leads with those
figures: served answers right, wrong or irrelevant (share of served), answered right (share
of answerable), unanswerable routed, and the answers right before that the candidate gets
wrong. Each question gets its own
fresh claim on a throwaway SQLite database seeded like the development system, so nothing
touches a running system. Beside the answers, the two versions' texts are compared: clauses
added, removed and reworded (a word diff), figures (amounts, days, percentages) that change,
and the directory's size in tokens; and their applicability (plans or cover levels, the
schedule entries that add, remove or change a clause), since a clause whose words stay while
its plans change answers differently.

A check is a pass or a failure against the bar in settings (CLAUSEDESK_BAR_*): questions per
clause and per wording, and served answers wrong or irrelevant at most a share of those served.
A check that asked no questions has no evidence and fails. Each clause's figures say whether
it meets the bar; each wrong answer is listed with the question, what was served and the fact
it missed.

python -m knowledge check-release motor 2027.1   (the command line lives in agent.cli.lifecycle)
"""

from __future__ import annotations

import asyncio
import difflib
import json
import re
import tempfile
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from pydantic_ai.models import Model
from sqlalchemy import select

from agent import metrics
from agent.answering import bar as evidence_bar
from agent.answering.bar import Bar, Scored
from agent.answering.evidence import SERVED
from agent.answering.gate import POOLED_TITLES, Gated, is_pooled
from agent.answering.measured import scored_rows, tuned_on_dev
from agent.db.tables import Message, Turn, make_engine, make_sessionmaker, upgrade
from agent.models.memory import Memories, leaving_out
from agent.models.selection import model_label
from agent.models.tokenizer import tokenizer
from agent.security import new_token
from agent.seed import CLONE_PREFIX, clone_claim, seed_policies
from agent.settings import Settings, get_settings
from agent.turn.runner import TurnRunner
from agent.wording.measurement import Replay, copy_claimants
from agent.wording.questions import (
    Question,
    clauses_for,
    load_imported,
    load_questions,
    seeded_claims,
)
from knowledge.clauses import ClauseLibrary, Directory, DirectoryEntry
from knowledge.errors import RegistryError, RegistryGap
from knowledge.manifest import Manifest, Registry, VersionEntry
from knowledge.source import version_key
from knowledge.store import ObjectStore

TEMPLATES = Path(__file__).resolve().parent / "templates"
ANSWERED = "answered"
# A reference or a claim ID differs between any two runs, and a composed answer names the
# wording version it quotes; none of them is a change of answer.
_RUN_NOISE = re.compile(r"\bWL-\d+\b|\bEV-[0-9a-f]{10}-[A-Z0-9-]+\b|\bwording \d+(?:\.\d+)*\)")
# Amounts (NZD 60, $1,500, A$500, AUD 500, £250, GBP 250, €40, EUR 40), periods (21 days,
# 12 months) and shares (10%, 20 percent).
FIGURE = re.compile(
    r"(?:NZD|NZ\$|AUD|A\$|GBP|£|EUR|€|USD|\$)\s?\d(?:[\d,]*\d)?(?:\.\d+)?"
    r"|\b\d[\d,]*(?:\.\d+)?\s?(?:%|per ?cent\b)"
    r"|\b\d[\d,]*\s(?:days?|weeks?|months?|years?|hours?|km|kilometres?)\b",
    re.IGNORECASE,
)


class PinnedLibrary(ClauseLibrary):
    """The clause library with one version pinned as the governing one for every date, so
    the unchanged turn code answers from the candidate (or the baseline) version."""

    def __init__(self, store: ObjectStore, entry: VersionEntry):
        super().__init__(store)
        self.pinned = entry

    def governing(self, family: str, on_date: date) -> VersionEntry:
        if family != self.pinned.family:
            raise RegistryGap(family, on_date, [], f"this release check pins {self.pinned.family} only")
        return self.pinned


# The two versions -----------------------------------------------------------------------------


def baseline_for(manifest: Manifest, candidate: VersionEntry) -> VersionEntry | None:
    """The version the candidate would follow: the latest approved version before it."""
    earlier = [
        e
        for e in manifest.approved(candidate.family)
        if version_key(e.version) < version_key(candidate.version)
    ]
    return max(earlier, key=lambda e: version_key(e.version), default=None)


def clause_texts(library: ClauseLibrary, directory: Directory) -> dict[str, tuple[str, str]]:
    """clause ID -> (title, whole text), fetched three at a time as the runtime does."""
    ids = [e.clause_id for e in directory.entries]
    texts: dict[str, tuple[str, str]] = {}
    for start in range(0, len(ids), 3):
        for clause in library.fetch(directory, ids[start : start + 3]).clauses:
            texts[clause.clause_id] = (clause.title, clause.text)
    return texts


# Text comparison ------------------------------------------------------------------------------


def word_diff(old: str, new: str, *, context: int = 8) -> list[dict[str, str]]:
    """difflib on words: runs of equal, deleted and inserted words; long equal runs are
    shortened to `context` words either side of a change."""
    a, b = old.split(), new.split()
    ops: list[dict[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            words = a[i1:i2]
            if len(words) > 2 * context:
                first = not ops
                last = i2 == len(a)
                head = [] if first else words[:context]
                tail = [] if last else words[-context:]
                words = [*head, "…", *tail]
            ops.append({"op": "equal", "words": " ".join(words)})
            continue
        if tag in ("delete", "replace"):
            ops.append({"op": "delete", "words": " ".join(a[i1:i2])})
        if tag in ("insert", "replace"):
            ops.append({"op": "insert", "words": " ".join(b[j1:j2])})
    return ops


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.;:])\s+|\n+", text)
    return [p.strip(" -") for p in parts if p.strip(" -")]


def figures(text: str) -> list[tuple[str, str]]:
    """(figure, the sentence it stands in), in order, whitespace and case normalised."""
    found = []
    for sentence in _sentences(text):
        for match in FIGURE.finditer(sentence):
            found.append((re.sub(r"\s+", " ", match.group(0)).strip(), sentence))
    return found


def figure_changes(old: str, new: str) -> dict[str, list[dict[str, str]]]:
    """Figures that are in one text and not the other (as multisets), with their sentences."""
    before, after = figures(old), figures(new)
    gone = Counter(f for f, _ in before) - Counter(f for f, _ in after)
    came = Counter(f for f, _ in after) - Counter(f for f, _ in before)

    def pick(items: list[tuple[str, str]], wanted: Counter) -> list[dict[str, str]]:
        left = Counter(wanted)
        chosen = []
        for figure, sentence in items:
            if left[figure] > 0:
                left[figure] -= 1
                chosen.append({"figure": figure, "sentence": sentence})
        return chosen

    return {"removed": pick(before, gone), "added": pick(after, came)}


def compare_clauses(
    baseline: dict[str, tuple[str, str]], candidate: dict[str, tuple[str, str]]
) -> dict[str, Any]:
    added = [
        {"clause_id": cid, "title": candidate[cid][0], "figures": [f for f, _ in figures(candidate[cid][1])]}
        for cid in candidate
        if cid not in baseline
    ]
    removed = [{"clause_id": cid, "title": baseline[cid][0]} for cid in baseline if cid not in candidate]
    reworded = []
    for cid in candidate:
        if cid not in baseline or baseline[cid] == candidate[cid]:
            continue
        (old_title, old_text), (new_title, new_text) = baseline[cid], candidate[cid]
        changes = figure_changes(old_text, new_text)
        reworded.append(
            {
                "clause_id": cid,
                "old_title": old_title,
                "title": new_title,
                "title_changed": old_title != new_title,
                "diff": word_diff(old_text, new_text),
                "figures_removed": changes["removed"],
                "figures_added": changes["added"],
            }
        )
    return {"added": added, "removed": removed, "reworded": reworded}


# Applicability comparison ---------------------------------------------------------------------

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


def compare_applicability(baseline: Directory | None, candidate: Directory) -> dict[str, Any]:
    """What applies to whom, version against version: the plans or cover levels the wording
    offers, the schedule entries (optional sections, endorsements) its clauses name, and each
    kept clause whose plans or schedule entries differ. Added clauses are listed with theirs."""
    old, new = _entries(baseline), _entries(candidate)
    before_plans = set(baseline.plans_named) if baseline else set()
    after_plans = set(candidate.plans_named)
    wording = {
        "plans": {"added": sorted(after_plans - before_plans), "removed": sorted(before_plans - after_plans)}
    }
    for name in ("added_by", "removed_by", "changed_by"):
        before, after = _schedule_entries(baseline, name), _schedule_entries(candidate, name)
        wording[name] = {"added": sorted(after - before), "removed": sorted(before - after)}
    changed = []
    for cid, entry in new.items():
        if cid not in old:
            continue
        fields = [
            {"field": name, "before": list(getattr(old[cid], name)), "after": list(getattr(entry, name))}
            for name in APPLIES
            if set(getattr(old[cid], name)) != set(getattr(entry, name))
        ]
        if fields:
            changed.append({"clause_id": cid, "title": entry.title, "changes": fields})
    added = [
        {"clause_id": cid, "title": e.title, **{name: list(getattr(e, name)) for name in APPLIES}}
        for cid, e in new.items()
        if cid not in old and baseline is not None
    ]
    return {"wording": wording, "changed": changed, "added": added}


# Questions through the turn code --------------------------------------------------------------


@dataclass(frozen=True)
class Asked:
    outcome: str
    requested: list[str]
    cited: list[str]
    route_reason: str | None
    reply: str
    quotes: list[dict[str, str]]
    right: bool | None = None  # judged on the question's facts; None when nothing was served
    missed: list[list[str]] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    # The serving gate's subjects for what was composed (agent.answering.gate): a served answer
    # counts for each of them.
    subjects: list[str] = field(default_factory=list)
    near: bool = False

    @property
    def served(self) -> bool:
        return self.outcome.startswith(ANSWERED)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


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
    quotes = [{"clause_id": c.clause_id, "quote": c.quote} for c in result.citations]
    added = [b["clause_id"] for b in (turn.composed or {}).get("blocks") or () if b.get("added")]
    verdict = q.judge(reply or result.reply, quotes, added) if served else None
    gated = Gated.of(turn.gate)
    return Asked(
        outcome=result.outcome,
        requested=list(turn.requested or []),
        cited=list(turn.cited or []),
        route_reason=turn.route_reason,
        reply=_RUN_NOISE.sub("…", reply or result.reply),
        quotes=[{"clause_id": c.clause_id, "quote": c.quote} for c in result.citations],
        right=verdict.right if verdict else None,
        missed=[list(g) for g in verdict.missed] if verdict else [],
        wrong=list(verdict.wrong) if verdict else [],
        subjects=list(gated.subjects) if gated else [],
        near=gated.near if gated else False,
    )


def compare_questions(
    questions: list[Question],
    baseline: dict[str, Asked] | None,
    candidate: dict[str, Asked],
    directory: Directory | None = None,
) -> list[dict[str, Any]]:
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
            {
                "id": q.id,
                "policy": q.policy,
                "part": q.part,
                "text": q.text,
                "earlier": list(q.earlier),
                "answerable": q.answerable,
                "expected": list(clauses_for(q, directory) if directory else q.clauses),
                "baseline": old.as_dict() if old else None,
                "candidate": new.as_dict(),
                "changes": changes,
            }
        )
    return rows


# Directory size ---------------------------------------------------------------------------------


def directory_text(directory: Directory) -> str:
    """The directory as the model reads it in the turn context ('ID Title' lines)."""
    lines = [f"Wording {directory.family} {directory.version}. Clause directory:"]
    lines += [f"{e.clause_id} {e.title}" for e in directory.entries]
    return "\n".join(lines)


def directory_tokens(directory: Directory) -> int:
    return len(tokenizer().encode(directory_text(directory)))


# The check ----------------------------------------------------------------------------------------


def new_check_id() -> str:
    return f"RC-{uuid.uuid4().hex[:8]}"


def run_release_check(
    store: ObjectStore,
    family: str,
    version: str,
    *,
    model: Model,
    against: str | None = None,
    created_by: str = "",
    inventory: list[Question] | None = None,
    questions: int | None = None,
    model_for: ModelFor | None = None,
    settings: Settings | None = None,
    compare: bool = True,
    replay: Replay | None = None,
    memories: Memories | None = None,
) -> dict[str, Any]:
    """The whole report as a JSON-ready dict; nothing is written anywhere.

    `replay`: the version's verified evidence (agent.wording.measurement): when it holds
    questions, those are asked (inventory and staff answers alike) instead of the shipped
    inventory, and the per-subject table weighs them with the served answers flagged wrong;
    `memories`: the runtime memory the serving gate's near rule reads.

    `inventory`: the questions to ask (the family's whole inventory by default, or an imported
    wording's own); `questions`: ask at most this many of them, in order; `model_for`: the model
    that answers each question (see ModelFor); `compare=False`: the version it would follow is
    neither asked nor compared (a check of evidence alone, at half the time)."""
    if questions is not None and questions < 0:
        raise ValueError(f"questions must be 0 or more, not {questions}")
    bar = Bar.of(settings or get_settings())
    manifest, _ = Registry(store).read()
    candidate = manifest.entry(family, version)
    baseline = manifest.entry(family, against) if against else baseline_for(manifest, candidate)
    baseline = baseline if compare else None
    if baseline is not None and baseline.version == candidate.version:
        raise RegistryError(f"{family} {version} cannot be checked against itself")
    claimants: list[dict] = []
    if inventory is None:
        inventory = [q for q in load_questions() if q.family == family]
        if not inventory:  # a wording brought in by import: its owner's own inventory and claimants
            inventory, claimants = load_imported(family)
    inventory = [q for q in inventory if q.family == family]
    if replay is not None and replay.questions:
        inventory = replay.questions
    asked_questions = inventory[:questions] if questions is not None else inventory
    library = ClauseLibrary(store)
    cand_dir = library.directory(candidate)
    base_dir = library.directory(baseline) if baseline else None
    cand_texts = clause_texts(library, cand_dir)
    clauses = compare_clauses(clause_texts(library, base_dir) if base_dir else {}, cand_texts)

    cand_answers: dict[str, Asked] = {}
    base_answers: dict[str, Asked] | None = None
    if asked_questions:  # no questions, no database: the check fails for want of evidence
        with tempfile.TemporaryDirectory(prefix="clausedesk-release-check-") as folder:
            database_url = f"sqlite:///{Path(folder) / 'check.db'}"
            engine = make_engine(database_url)
            upgrade(engine)
            seeded = seed_policies(make_sessionmaker(engine))
            seeded += seed_policies(make_sessionmaker(engine), data=claimants) if claimants else []
            if replay is not None:
                copy_claimants(make_sessionmaker(engine), replay)
            engine.dispose()
            claims = {s.policy_number: s.claim_id for s in seeded} | (replay.claims if replay else {})
            ask: dict[str, Any] = {
                "claims": claims,
                "model_for": model_for,
                "memories": memories,
                "leave_out": replay.leave_out if replay else None,
            }
            cand_answers = ask_all(store, candidate, asked_questions, model, database_url, **ask)
            if baseline:
                base_answers = ask_all(store, baseline, asked_questions, model, database_url, **ask)
    rows = compare_questions(asked_questions, base_answers, cand_answers, cand_dir)

    tokens = {
        "candidate": directory_tokens(cand_dir),
        "baseline": directory_tokens(base_dir) if base_dir else None,
    }
    report = {
        "check_id": new_check_id(),
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "created_by": created_by,
        "family": family,
        "candidate": _version_facts(candidate),
        "baseline": _version_facts(baseline) if baseline else None,
        "model": model_label(model),
        "evidence": {
            "parts": sorted({q.part for q in asked_questions}),
            "asked": len(asked_questions),
            "available": len(inventory),
            "limit": questions,
            "store": replay.summary() if replay is not None else None,
        },
        "bar": asdict(bar),
        "questions": rows,
        "clauses": clauses,
        "applicability": compare_applicability(base_dir, cand_dir),
        "clause_evidence": clause_evidence(
            rows, cand_dir, bar, replay.fixed if replay else (), model_tuned=tuned_on_dev(model_label(model))
        ),
        "served_wrong_as_recorded": [
            {"key": f.key, "subjects": list(f.subjects)} for f in (replay.fixed if replay else ())
        ],
        "wrong_answers": wrong_answers(rows),
        "directory_tokens": tokens,
    }
    report["summary"] = summarise(report)
    return report


# The bar ------------------------------------------------------------------------------------------


def clause_evidence(
    rows: list[dict[str, Any]],
    directory: Directory,
    bar: Bar,
    fixed: Iterable[Scored] = (),
    *,
    model_tuned: bool = True,
) -> list[dict[str, Any]]:
    """Per subject (each clause of the candidate an answer counted for, then the pooled rules:
    agent.answering.gate), weighed as approval, promotion and the fall back weigh it
    (agent.answering.bar): its served answers (a wrong one counts against every subject it
    counted for; a served answer flagged wrong counts as it happened), the upper bound of their
    wrong share, answered right (of the questions whose right answer cites it), and whether it
    meets the bar, with what it lacks."""
    scored = [*scored_rows(rows, model_tuned=model_tuned), *fixed]
    titles = {e.clause_id: e.title for e in directory.entries}
    subjects = [*(c for c in titles), *POOLED_TITLES]
    named = {s for r in scored for s in r.subjects} | {c for r in rows for c in r.get("expected") or ()}
    out = []
    for subject in subjects:
        if subject not in named:
            continue
        f = evidence_bar.figures(bar, scored, subject)
        expecting = [r for r in rows if subject in (r.get("expected") or ())]
        right = sum(bool((r.get("candidate") or {}).get("right")) for r in expecting)
        wrong = [
            s.key for s in scored if s.outcome in SERVED and subject in s.subjects and s.outcome != "right"
        ]
        out.append(
            {
                "clause_id": subject,
                "pooled": is_pooled(subject),
                "title": titles.get(subject) or POOLED_TITLES.get(subject, subject),
                "questions": len(expecting),
                "expecting": len(expecting),
                "served": f.served,
                "served_wrong": wrong,
                "served_wrong_share": round(f.wrong / f.served, 4) if f.served else None,
                "upper_bound": round(f.upper, 4),
                "more_needed": f.more_needed,
                "answered_right": right,
                "answered_right_share": round(right / len(expecting), 4) if expecting else None,
                "meets_bar": f.meets,
                "short_of_bar": f.misses(bar),
            }
        )
    return out


def wrong_answers(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every served answer that is wrong or irrelevant: the question, what the claimant was
    served, and the facts it missed or the strings that made it wrong."""
    out = []
    for r in rows:
        a = r["candidate"]
        if a is None or not a["outcome"].startswith(ANSWERED) or a["right"]:
            continue
        out.append(
            {
                "id": r["id"],
                "policy": r["policy"],
                "text": r["text"],
                "earlier": r["earlier"],
                "expected": r["expected"],
                "cited": a["cited"],
                "served": a["reply"],
                "missed": a["missed"],
                "wrong": a["wrong"],
                "irrelevant": not r["answerable"],
            }
        )
    return out


def verdict(report: dict[str, Any]) -> dict[str, Any]:
    """Pass or fail against the bar, with every reason it fails. No questions: no evidence."""
    bar = Bar(report["bar"]["wrong_percent"])
    asked = report["evidence"]["asked"]
    if asked == 0:
        why = "no evidence: the check asked no questions"
        if report["evidence"]["available"]:
            why += f" (a limit of 0 of {report['evidence']['available']})"
        else:
            why += f" ({report['family']} {report['candidate']['version']} has no inventory questions yet)"
        return {"passed": False, "reasons": [why]}
    reasons = []
    right = correctness(report["questions"], "candidate") or {}
    if not right.get("served"):
        reasons.append("nothing was served, so nothing shows an answer right")
    else:
        served, wrong = right["served"], len(right["served_wrong"])
        bound = evidence_bar.upper_bound(wrong, served)
        if bound > bar.limit:
            reasons.append(
                f"{wrong} of {served} served answers wrong or irrelevant, upper bound {_pct(bound)} "
                f"at 95% confidence, the bar allows {bar.wrong_percent:g}%"
            )
    if not any(c["meets_bar"] for c in report["clause_evidence"]):
        reasons.append("no clause or rule meets the bar")
    return {"passed": not reasons, "reasons": reasons}


def _version_facts(entry: VersionEntry) -> dict[str, Any]:
    return {
        "version": entry.version,
        "status": entry.status,
        "content_hash": entry.content_hash,
        "clause_count": entry.clause_count,
        "effective": entry.interval() if entry.effective_from else None,
    }


def correctness(rows: list[dict[str, Any]], side: str) -> dict[str, Any] | None:
    """The evaluation's figures for one side of the check ("candidate" or "baseline")."""
    asked = [(r, r[side]) for r in rows if r[side] is not None]
    if not asked:
        return None
    served = [(r, a) for r, a in asked if a["outcome"].startswith(ANSWERED)]
    right = [r["id"] for r, a in served if a["right"]]
    wrong = [r["id"] for r, a in served if not a["right"]]
    answerable = sum(r["answerable"] for r, _ in asked)
    unanswerable = [(r, a) for r, a in asked if not r["answerable"]]
    routed = sum(a["outcome"] == "routed_to_staff" and not a["cited"] for _, a in unanswerable)

    def share(part: int, whole: int) -> float | None:
        return round(part / whole, 4) if whole else None

    return {
        "served": len(served),
        "served_right": len(right),
        "served_wrong": wrong,
        "served_wrong_share": share(len(wrong), len(served)),
        "answered_right_share": share(len(right), answerable),
        "unanswerable_routed": share(routed, len(unanswerable)),
    }


def summarise(report: dict[str, Any]) -> dict[str, Any]:
    rows = report["questions"]
    clauses = report["clauses"]
    changed = [r["id"] for r in rows if r["changes"]]
    to_routed = [r["id"] for r in rows if "answered → routed" in r["changes"]]
    to_answered = [r["id"] for r in rows if "routed → answered" in r["changes"]]
    selection = [r["id"] for r in rows if {"selected clauses", "cited clauses"} & set(r["changes"])]
    figures_changed = [
        c["clause_id"] for c in clauses["reworded"] if c["figures_removed"] or c["figures_added"]
    ]
    tokens = report["directory_tokens"]
    summary = {
        "check_id": report["check_id"],
        "family": report["family"],
        "version": report["candidate"]["version"],
        "baseline": report["baseline"]["version"] if report["baseline"] else None,
        "model": report["model"],
        "questions": len(rows),
        "answers_changed": changed,
        "selection_changed": selection,
        "answered_to_routed": to_routed,
        "routed_to_answered": to_answered,
        "clauses_added": [c["clause_id"] for c in clauses["added"]],
        "clauses_removed": [c["clause_id"] for c in clauses["removed"]],
        "clauses_reworded": [c["clause_id"] for c in clauses["reworded"]],
        "figures_changed": figures_changed,
        "directory_tokens": tokens,
        "right": {"candidate": correctness(rows, "candidate"), "baseline": correctness(rows, "baseline")},
        "right_to_wrong": [r["id"] for r in rows if "right → wrong" in r["changes"]],
        "wrong_to_right": [r["id"] for r in rows if "wrong → right" in r["changes"]],
        "verdict": verdict(report),
        "bar": report["bar"],
        "evidence": report["evidence"],
        "clauses_meeting_bar": [c["clause_id"] for c in report["clause_evidence"] if c["meets_bar"]],
        "clauses_with_evidence": len(report["clause_evidence"]),
        "wrong_answers": [w["id"] for w in report["wrong_answers"]],
        "applicability_changed": [c["clause_id"] for c in report["applicability"]["changed"]],
        "applicability_wording": report["applicability"]["wording"],
    }
    summary["lines"] = summary_lines(summary)
    return summary


def summary_lines(s: dict[str, Any]) -> list[str]:
    """The summary as sentences: what the approval prompt and the wording page show."""
    against = f"against {s['baseline']}" if s["baseline"] else "with no earlier approved version"
    tokens = s["directory_tokens"]
    size = f"{tokens['candidate']} tokens" + (
        f" (was {tokens['baseline']})" if tokens.get("baseline") is not None else ""
    )
    return [
        verdict_line(s),
        f"Release check {s['check_id']}: {s['family']} {s['version']} {against}, "
        f"{s['questions']} inventory questions"
        + (f" (parts {', '.join(s['evidence']['parts'])})" if s["evidence"]["parts"] else "")
        + f", model {s['model']}.",
        *right_lines(s),
        bar_line(s),
        *applicability_lines(s),
        f"Answers that change: {len(s['answers_changed'])}"
        + (f" ({', '.join(s['answers_changed'])})" if s["answers_changed"] else "")
        + f"; selected or cited clauses change for {len(s['selection_changed'])}.",
        f"Answered → routed: {len(s['answered_to_routed'])}"
        + (f" ({', '.join(s['answered_to_routed'])})" if s["answered_to_routed"] else "")
        + f"; routed → answered: {len(s['routed_to_answered'])}"
        + (f" ({', '.join(s['routed_to_answered'])})" if s["routed_to_answered"] else "")
        + ".",
        f"Clauses added {len(s['clauses_added'])}, removed {len(s['clauses_removed'])}, "
        f"reworded {len(s['clauses_reworded'])}"
        + (f" ({', '.join(s['clauses_reworded'])})" if s["clauses_reworded"] else "")
        + "; figures change in "
        + (", ".join(s["figures_changed"]) or "no clause")
        + ".",
        f"Directory size: {size}.",
    ]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def verdict_line(s: dict[str, Any]) -> str:
    v = s["verdict"]
    if v["passed"]:
        return f"PASSED the bar ({Bar(s['bar']['wrong_percent']).describe()})."
    return f"FAILED: {'; '.join(v['reasons'])}. Bar: {Bar(s['bar']['wrong_percent']).describe()}."


def bar_line(s: dict[str, Any]) -> str:
    meeting = s["clauses_meeting_bar"]
    return (
        f"Clauses meeting the bar: {len(meeting)} of {s['clauses_with_evidence']} with evidence"
        + (f" ({', '.join(meeting)})" if meeting else "")
        + f"; wrong or irrelevant answers listed: {len(s['wrong_answers'])}."
    )


_SCHEDULE_WORDS = {"added_by": "adding", "removed_by": "removing", "changed_by": "changing"}


def applicability_lines(s: dict[str, Any]) -> list[str]:
    """What applies to whom changes: plans or cover levels, schedule entries, clauses."""
    if not s["baseline"]:
        return []
    w = s["applicability_wording"]
    parts = []
    labels = [("plans", "plans or cover levels")]
    labels += [(k, f"schedule entries {v} clauses") for k, v in _SCHEDULE_WORDS.items()]
    for key, label in labels:
        if w[key]["added"]:
            parts.append(f"{label} added: {', '.join(w[key]['added'])}")
        if w[key]["removed"]:
            parts.append(f"{label} removed: {', '.join(w[key]['removed'])}")
    changed = s["applicability_changed"]
    return [
        "Applicability: "
        + ("; ".join(parts) if parts else "the same plans, cover levels and schedule entries")
        + f"; clauses whose applicability changes: {len(changed)}"
        + (f" ({', '.join(changed)})" if changed else "")
        + "."
    ]


def right_lines(s: dict[str, Any]) -> list[str]:
    """Right for the claimant, on the question facts: the figures the summary leads with."""
    lines = []
    for side, version in (("candidate", s["version"]), ("baseline", s["baseline"])):
        c = (s.get("right") or {}).get(side)
        if c is None:
            continue
        wrong = c["served_wrong"]
        lines.append(
            f"Under {version}: served answers right {c['served_right']} of {c['served']}; wrong or "
            f"irrelevant {len(wrong)} ({_pct(c['served_wrong_share'])} of served)"
            + (f" ({', '.join(wrong)})" if wrong and side == "candidate" else "")
            + f"; answered right {_pct(c['answered_right_share'])} of answerable; unanswerable routed "
            f"{_pct(c['unanswerable_routed'])}."
        )
    if s.get("baseline") and "right_to_wrong" in s:
        lines.append(
            f"Right under {s['baseline']}, wrong under {s['version']}: {len(s['right_to_wrong'])}"
            + (f" ({', '.join(s['right_to_wrong'])})" if s["right_to_wrong"] else "")
            + f"; wrong → right: {len(s['wrong_to_right'])}"
            + (f" ({', '.join(s['wrong_to_right'])})" if s["wrong_to_right"] else "")
            + "."
        )
    return lines


# Output ------------------------------------------------------------------------------------------


def _diff_text(ops: list[dict[str, str]]) -> str:
    marks = {"equal": "{}", "delete": "[-{}-]", "insert": "{{+{}+}}"}
    return " ".join(marks[o["op"]].format(o["words"]) for o in ops)


def render_text(report: dict[str, Any], *, width: int = 60) -> str:
    """The terminal view: the summary, then one table per part of the comparison."""
    s = report["summary"]
    base = s["baseline"] or "-"
    out = [*s["lines"], ""]
    evidence = report["clause_evidence"]
    if evidence:
        out.append("Per clause (questions: those whose right answer cites it or whose answer quoted it):")
        heads = f"{'questions':>9} {'served':>6} {'wrong':>6} {'answered right':>15}"
        out.append(f"  {'clause':<16} {heads}  bar")
        for c in evidence:
            right = f"{c['answered_right']} of {c['expecting']}"
            bar = "meets" if c["meets_bar"] else "short: " + "; ".join(c["short_of_bar"])
            out.append(
                f"  {c['clause_id']:<16} {c['questions']:>9} {c['served']:>6} "
                f"{_pct(c['served_wrong_share']):>6} {right:>15}  {bar}"
            )
        out.append("")
    wrong = report["wrong_answers"]
    out.append(f"Served answers wrong or irrelevant ({len(wrong)}):")
    for w in wrong:
        why = (
            "irrelevant: no clause answers this question"
            if w["irrelevant"]
            else "; ".join(
                [*(f"missed: {' | '.join(g)}" for g in w["missed"]), *(f"wrong: {x}" for x in w["wrong"])]
            )
        )
        out.append(f"  {w['id']} ({w['policy']}) {w['text']}")
        served = " ".join(w["served"].split())
        out.append(f"    served (citing {', '.join(w['cited']) or 'nothing'}): {served[: width * 4]}")
        out.append(f"    {why}")
    out.append("")
    for c in report["applicability"]["changed"]:
        for f in c["changes"]:
            before, after = ", ".join(f["before"]) or "none", ", ".join(f["after"]) or "none"
            out.append(f"  {c['clause_id']} {APPLIES[f['field']]}: {before} → {after}")
    changed = [r for r in report["questions"] if r["changes"]]
    out.append(f"Questions whose answer changes ({len(changed)} of {len(report['questions'])}):")
    if changed:
        heads = (f"{base} outcome", f"{s['version']} outcome")
        out.append(f"  {'question':<9} {heads[0]:<34} {heads[1]:<34} changes")
        for r in changed:
            old, new = r["baseline"] or {}, r["candidate"]
            out.append(f"  {r['id']:<9} {_side(old):<34} {_side(new):<34} {', '.join(r['changes'])}")
            out.append(f"  {'':<9} {r['text'][:width]}")
    clauses = report["clauses"]
    out.append("")
    out.append(
        f"Clauses: added {', '.join(c['clause_id'] for c in clauses['added']) or 'none'}; "
        f"removed {', '.join(c['clause_id'] for c in clauses['removed']) or 'none'}"
    )
    for c in clauses["reworded"]:
        retitled = f" (title: {c['old_title']} → {c['title']})" if c["title_changed"] else ""
        out.append(f"  {c['clause_id']} reworded{retitled}")
        for f in c["figures_removed"]:
            out.append(f"    − {f['figure']:<12} {f['sentence']}")
        for f in c["figures_added"]:
            out.append(f"    + {f['figure']:<12} {f['sentence']}")
        out.append(f"    {_diff_text(c['diff'])}")
    return "\n".join(out)


def _side(asked: dict[str, Any]) -> str:
    if not asked:
        return "-"
    cited = ",".join(asked["cited"]) or "-"
    judged = {True: "right ", False: "WRONG ", None: ""}[asked.get("right")]
    return f"{judged}{asked['outcome'][:8]} {cited}"[:33]


def _environment() -> Environment:
    return Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]))


def render_body(report: dict[str, Any]) -> Markup:
    """The report's body, shared by the staff page and the standalone file."""
    return Markup(_environment().get_template("release_check_body.html").render(r=report))


def render_html(report: dict[str, Any]) -> str:
    """A standalone page with the same body as the staff page's release check view."""
    return _environment().get_template("release_check_report.html").render(r=report)


def write_report(report: dict[str, Any], folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"release-check-{report['check_id']}"
    json_path, html_path = folder / f"{stem}.json", folder / f"{stem}.html"
    json_path.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    html_path.write_text(render_html(report), encoding="utf-8")
    return json_path, html_path


__all__ = ["PinnedLibrary", "render_html", "render_text", "run_release_check", "write_report"]
