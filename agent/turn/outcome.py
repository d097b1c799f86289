"""Steps 7–8 of a turn: what comes of it, and what the claimant reads.

Decided by the runtime from what happened, never from the model's word alone: the release is
re-checked and every selected span re-read from the store; the reply is composed from whole
sentences with what qualifies them; the runtime's serving gate (agent.answering.gate) serves
it when one of its subjects has earned answering, else it is drafted for a claims handler. Silence is the
runtime's call (agent.boundary.triage), and a message that needs a person reaches one whatever
the model selected. A routed reply says what the runtime knows, never the model's reason as fact.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic_ai.exceptions import UnexpectedModelBehavior

from agent.answering.gate import Gated
from agent.boundary import replies as notices
from agent.boundary.checks import Check, release_unchanged
from agent.boundary.compose import Composed, Lookup, compose
from agent.boundary.exclusions import exclusions_of
from agent.boundary.qualifiers import stems
from agent.boundary.selection import BY_NATURE, AnswerStyle
from agent.boundary.triage import Triage, known_words, triage
from agent.claimant.agent import Fetched
from agent.claimant.run import ModelRun
from agent.models.errors import causes, route_reason_for
from agent.turn.steps import ClaimFacts, Decision, Ready, Wording, WordingUnavailable
from knowledge.clauses import ClauseLibrary, Directory
from knowledge.errors import IntegrityError, KnowledgeUnavailable, RegistryConflict, RegistryGap
from knowledge.manifest import VersionEntry

WORDING_ERRORS = (KnowledgeUnavailable, RegistryGap, RegistryConflict, IntegrityError)
# The shortest part of a message worth handing to staff on its own: fewer words, or fewer
# letters, and staff are given the whole message.
PART_WORDS, PART_LETTERS = 3, 12

# The runner's gate: (family, version, the clauses the answer quotes) -> the gate's decision.
GateOf = Callable[[str, str, list[str]], Gated]


def why_unavailable(exc: Exception) -> WordingUnavailable:
    """Which honest sentence the claimant gets for a wording that can't be used."""
    if isinstance(exc, RegistryGap):
        return WordingUnavailable("wording_withdrawn" if exc.versions else "no_approved_wording", exc)
    if isinstance(exc, RegistryConflict):
        return WordingUnavailable("wording_conflict", exc)
    if isinstance(exc, IntegrityError):
        return WordingUnavailable("wording_damaged", exc)
    return WordingUnavailable("store_unreachable", exc)


def before_the_model(ready: Ready, triage: Triage) -> Decision | None:
    """What is decided without a model: no term, no schedule, no usable wording, or a message
    the runtime itself reads as asking nothing."""
    facts, wording = ready.facts, ready.wording
    if facts.term is None:
        return Decision("routed_to_staff", route_reason="no_term_for_incident")
    if wording is None:
        return Decision("no_schedule", route_reason="no_schedule")
    if triage.silent:  # a thanks needs no wording: in a store outage it is no item for staff either
        return Decision("nothing_asked", triage=triage.kind)
    if triage.kind == "claim_decision":  # no clause sentence may read as the decision asked for
        return Decision("routed_to_staff", route_reason="claim_decision", triage=triage.kind)
    if isinstance(wording, WordingUnavailable):
        return Decision("unavailable", route_reason="knowledge_unavailable", wording_kind=wording.kind)
    return None


def decide(
    ready: Ready,
    run: ModelRun,
    triage: Triage,
    *,
    library: ClauseLibrary,
    style: AnswerStyle,
    gate_of: GateOf,
) -> Decision:
    """Steps 7–8 once the model has run."""
    facts, wording = ready.facts, ready.wording
    assert isinstance(wording, Wording) and facts.schedule is not None and facts.term is not None
    if run.failure is not None:
        return _needs_person(failed(run), triage)
    selection = run.selection
    assert selection is not None
    if triage.kind == "off_topic" and selection.outcome != "answered" and not run.fetched.clauses:
        # The runtime reads no word of insurance or of this claim, and the model found nothing to
        # fetch either: the runtime says what it can help with.
        return Decision("nothing_asked", triage=triage.kind)
    if selection.outcome == "nothing_asked":  # the runtime read a question, or it would not have asked
        return _needs_person(Decision("routed_to_staff", route_reason="model_found_no_question"), triage)
    if selection.outcome == "routed_to_staff":
        routed = Decision(
            "routed_to_staff",
            route_reason=why_the_model_routed(run),
            model_route_reason=selection.route_reason,
        )
        return _needs_person(routed, triage)
    try:  # 7: the release must still govern, and each served span re-read, when the answer goes out
        now = library.governing(facts.policy.family, facts.term.term_start)
        verified = spans_hold(library, selection.points, run.fetched)
        limiting = exclusions_of(library, wording.directory)
    except WORDING_ERRORS as exc:  # withdrawn or unreachable while the model selected or after it
        gone = why_unavailable(exc)
        return Decision(
            "unavailable", route_reason="knowledge_unavailable", wording_kind=gone.kind, error=exc
        )
    unchanged = release_unchanged(_identity(wording.entry), _identity(now))
    if not (unchanged.passed and verified.passed):
        failed_check = Decision("routed_to_staff", route_reason="failed_check", checks=(unchanged, verified))
        return _needs_person(failed_check, triage)
    lookup: Lookup = wording.directory.get
    composed = compose(
        selection,
        run.fetched.clauses,
        facts.schedule,
        wording.entry.version,
        style=style,
        lookup=lookup,
        exclusions=limiting,
        levels=wording.directory.plans_named,
    )
    checks = (unchanged, verified)
    # The clauses the runtime added as qualifiers are no subject of the gate; a clause whose cover
    # level nobody recorded drafts until someone does.
    selected = composed.selected
    gated = gate_of(wording.entry.family, wording.entry.version, [b.clause_id for b in selected])
    unknown = any(b.applies.status == "unknown" for b in selected)
    if not gated.serves or unknown or not selection.confident:
        # 8: no subject of the answer has earned answering (a schedule-only answer too: it earns
        # as `#schedule`), what applies is not known, or its model doubts it: a claims handler
        # checks the composed answer (the item's draft); a message that needs a person keeps that reason.
        reason = triage.kind if triage.needs_person else "drafted_for_review"
        return Decision("routed_to_staff", route_reason=reason, composed=composed, checks=checks, gate=gated)
    part = selection.unanswered_part
    staff_too = triage.kind if triage.needs_person else ("answered_in_part" if part else None)
    return Decision(
        "answered",
        composed=composed,
        part=meaningful_part(part, ready.message.text, composed) if part else None,
        staff_too=staff_too,
        citations_verified=bool(composed.blocks),
        checks=checks,
        gate=gated,
    )


def _needs_person(decision: Decision, triage: Triage) -> Decision:
    """A route for a message that needs a person carries the runtime's reason, not the model's."""
    if triage.needs_person and decision.outcome == "routed_to_staff":
        return Decision(
            "routed_to_staff",
            route_reason=triage.kind,
            model_route_reason=decision.model_route_reason,
            checks=decision.checks,
        )
    return decision


def failed(run: ModelRun) -> Decision:
    exc = run.failure
    store = next((e for e in causes(exc) if isinstance(e, WORDING_ERRORS)), None) if exc else None
    if store is not None:  # the tool's fetch met a store outage: neither the model nor a check
        kind = why_unavailable(store).kind
        return Decision("unavailable", route_reason="knowledge_unavailable", wording_kind=kind, error=exc)
    if isinstance(exc, TimeoutError):  # the turn deadline
        return Decision("routed_to_staff", route_reason="model_timeout")
    if isinstance(exc, UnexpectedModelBehavior) and run.attempts and not run.attempts[-1].passed:
        return Decision("routed_to_staff", route_reason="failed_check")
    return Decision("routed_to_staff", route_reason=route_reason_for(exc))


def why_the_model_routed(run: ModelRun) -> str:
    """Decided from what happened; the model's own suggestion is kept beside it. A question the
    model judged no wording answers by its nature (a decision, the claim's progress, a request
    for staff, a question outside the wording) without asking for any clause keeps that reason
    for staff (the gaps page lists these apart); the claimant is never told it as fact."""
    assert run.selection is not None
    asked_for_nothing = not run.fetched.clauses and not run.fetched.not_found
    if asked_for_nothing and run.selection.route_reason in BY_NATURE:
        return run.selection.route_reason
    if not run.fetched.clauses:
        return "clause_not_in_directory" if run.fetched.not_found else "no_clause_selected"
    return "clauses_do_not_answer"


def spans_hold(library: ClauseLibrary, points: list, fetched: Fetched) -> Check:
    """Every selected span re-read from the store under its clause's object version (each cited
    clause read once, however many of its spans are served). A store that cannot be read
    raises KnowledgeUnavailable: the knowledge is unavailable, the check did not fail."""
    spans: dict[str, list[str]] = {}
    for point in points:
        spans.setdefault(point.clause_id, []).append(point.span)
    broken = [
        cid
        for cid, said in spans.items()
        if cid not in fetched.clauses or not library.quotes_hold(fetched.clauses[cid], said)
    ]
    if broken:
        return Check("citations_verified", False, f"spans not found on re-reading {', '.join(broken)}")
    return Check("citations_verified", True, "" if spans else "nothing cited: schedule facts only")


def meaningful_part(part: str, message: str, composed: Composed) -> str | None:
    """The span of the message an answer in part leaves to staff, when it says something of its
    own: long enough, in the claimant's words, and not what the served sentences answered.
    None: staff are given the whole message."""
    folded, whole = " ".join(part.split()), " ".join(message.split())
    letters = sum(c.isalpha() for c in folded)
    if len(folded.split()) < PART_WORDS or letters < PART_LETTERS or folded not in whole:
        return None
    served = set().union(
        *(stems(line.text) for b in composed.blocks for line in b.lines),
        *(stems(b.title) for b in composed.blocks),
    )

    def answered_share(text: str) -> float:
        own = stems(text)
        return len(own & served) / len(own) if own else 0.0

    own = stems(folded)
    # The part the served sentences speak to more than the rest of the message is the part
    # answered: naming it would leave the rest with nobody.
    rest = whole.replace(folded, " ", 1)
    if not own or own <= served or answered_share(folded) > answered_share(rest):
        return None
    return folded


def claimant_reply(decision: Decision, facts: ClaimFacts, reference: str | None, wait: str) -> str:
    """What the claimant reads: the composed answer (with where the rest went), or the
    runtime's own sentences."""
    if decision.outcome == "answered":
        assert decision.composed is not None
        if decision.staff_too is None:
            return decision.composed.text
        assert reference is not None
        also = notices.also_with_staff(decision.staff_too, decision.part, reference)
        return f"{decision.composed.text}\n\n{also}"
    if decision.outcome == "nothing_asked":
        return notices.OFF_TOPIC if decision.triage == "off_topic" else notices.NOTHING_ASKED
    assert reference is not None
    if decision.outcome == "unavailable":
        return notices.wording_unavailable(
            decision.wording_kind or "store_unreachable",
            reference,
            schedule=facts.schedule,
            policy_number=facts.policy.policy_number,
            claim_facts=facts.confirmed(),
        )
    if decision.drafted:
        return notices.drafted(reference, wait)
    return notices.routed(decision.route_reason or "model_error", reference)


def _identity(entry: VersionEntry) -> tuple[str, str, str]:
    return (entry.family, entry.version, entry.content_hash)


# The runtime's reading of a message -----------------------------------------------------------


def read_message(ready: Ready) -> Triage:
    """What the runtime itself tells of the message (chatter, urgency, a complaint, a request, a
    question), with the words it knows: the wording's titles, the claim's incident, the schedule."""
    claim, wording = ready.facts.claim, ready.wording
    titles = _titles(wording.directory) if isinstance(wording, Wording) else frozenset()
    schedule = ready.facts.schedule
    labels = " ".join(schedule.labels.values()) if schedule else ""
    return triage(ready.message.text, titles | known_words(claim.incident or "", labels))


_TITLES: dict[str, frozenset[str]] = {}


def _titles(directory: Directory) -> frozenset[str]:
    """The words of a wording's clause titles (worked out once per directory: its content hash
    names it)."""
    if directory.content_hash not in _TITLES:
        _TITLES[directory.content_hash] = known_words(*(e.title for e in directory.entries))
    return _TITLES[directory.content_hash]
