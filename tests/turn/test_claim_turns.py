"""One checked turn, through the real app over HTTP, with the model scripted."""

from __future__ import annotations

from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from agent.db.tables import Message, Turn, WaitingItem
from tests.conftest import TOKENS, use_model
from tests.support import answer, post_message, route, scripted

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."
FUEL = "We do not pay for fuel, tolls, parking or fines."
ONLY_WHEN = "This benefit applies only when your schedule lists alternative transport."


def use_style(live, style: str) -> None:
    runner = live.app.state.services.runner
    runner.settings = runner.settings.model_copy(update={"answer_style": style})


def turn_record(database_url: str, turn_id: str) -> Turn:
    engine = create_engine(database_url)
    with Session(engine) as session:
        turn = session.get(Turn, turn_id)
        session.expunge_all()
    engine.dispose()
    return turn


def test_rental_car_conversations(live, database_url) -> None:
    use_model(
        live,
        model := scripted(
            ["MTR-BEN-03"],
            answer(
                "Your policy includes this benefit, subject to the claim being accepted: it pays "
                "up to NZD 60 a day for up to 21 days for each event.",
                ("MTR-BEN-03", RATE),
            ),
            ["MTR-BEN-03"],
            answer("No. Fuel is not included.", ("MTR-BEN-03", FUEL)),
        ),
    )
    first = post_message(live, "CLM-204518", "Can I get a rental car while mine is being repaired?")
    assert first["outcome"] == "answered"
    assert "NZD 60 a day" in first["reply"] and "21 days" in first["reply"]
    assert "subject to the claim being accepted" in first["reply"]
    # The selected sentence, with the sentences of its clause that qualify it.
    title = first["citations"][0]["title"]
    assert {"clause_id": "MTR-BEN-03", "version": "2026.2", "quote": RATE, "title": title} in first[
        "citations"
    ]
    assert {c["clause_id"] for c in first["citations"]} == {b["clause_id"] for b in first["answer"]["blocks"]}
    assert first["citations_verified"] is True
    assert first["release"] == {"family": "motor", "version": "2026.2"}

    follow_up = post_message(live, "CLM-204518", "Does that include fuel?")
    assert follow_up["outcome"] == "answered"
    # The clause's own sentence answers; the model's words ("No. Fuel is not included.") do not.
    assert f"“{FUEL}”" in follow_up["reply"] and "Fuel is not included" not in follow_up["reply"]
    assert [b["clause_id"] for b in follow_up["answer"]["blocks"] if not b["added"]] == ["MTR-BEN-03"]
    # The follow-up's model saw the earlier turn, but not its clause texts as evidence.
    history = model.seen[2]
    assert "Can I get a rental car while mine is being repaired?" in str(history)
    earlier = [
        p.content
        for m in history
        for p in getattr(m, "parts", [])
        if p.part_kind == "tool-return" and isinstance(p.content, dict)
    ]
    assert earlier and all("text" not in c for c in earlier[0]["clauses"])

    use_model(
        live,
        scripted(
            ["MTR-BEN-03"],
            answer(
                "Your schedule does not list alternative transport, so your policy does not "
                "include a rental car.",
                ("MTR-BEN-03", ONLY_WHEN),
            ),
        ),
    )
    other = post_message(live, "CLM-204519", "Can I get a rental car while mine is being repaired?")
    assert other["outcome"] == "answered"
    assert "does not list" in other["reply"]
    # The clause selected, and the exclusions the runtime added after it (issue 41).
    assert [b["clause_id"] for b in other["answer"]["blocks"] if not b["added"]] == ["MTR-BEN-03"]
    assert {c["clause_id"] for c in other["citations"]} == {b["clause_id"] for b in other["answer"]["blocks"]}
    assert all("-EXC-" in b["clause_id"] for b in other["answer"]["blocks"] if b["added"])

    record = turn_record(database_url, first["turn_id"])
    assert (record.family, record.version) == ("motor", "2026.2")
    added = runtime_added(record)
    assert record.requested == ["MTR-BEN-03"] and record.returned == ["MTR-BEN-03"]
    assert added and record.not_found == [] and record.cited == ["MTR-BEN-03"]  # the added: served, not cited
    assert {c["clause_id"] for c in record.citations} == {"MTR-BEN-03", *added}
    assert {"clause_id": "MTR-BEN-03", "title": record.directory_seen[8]["title"]} in record.directory_seen
    assert record.model_name == "function:scripted"
    assert record.outcome == "answered" and record.citations_verified
    assert record.latency_ms > 0 and record.input_tokens > 0
    assert all(c["passed"] for c in record.checks)
    # The selection and the composed reply are in the record; the turn began before it ended.
    assert record.selection["outcome"] == "answered"
    assert record.selection["points"] == [{"clause_id": "MTR-BEN-03", "span": RATE}]
    assert record.composed["text"] == first["reply"]
    assert RATE in [line["text"] for line in record.composed["blocks"][0]["lines"]]
    assert record.composed["blocks"][0]["applies"]["status"] == "included"
    assert record.started_at <= record.finished_at


def test_the_tool_tells_the_model_whether_the_schedule_includes_the_benefit(live) -> None:
    model = scripted(["MTR-BEN-03"], answer("x", ("MTR-BEN-03", ONLY_WHEN)))
    use_model(live, model)
    post_message(live, "CLM-204519", "rental car?")
    returned = model.seen[1][-1].parts[0].content
    [clause] = returned["clauses"]
    assert clause["optional_section"] == "alternative_transport"
    assert clause["applies_to_claimant"] == "not_included"
    assert clause["text"].startswith("## MTR-BEN-03 - ")
    # The schedule is in the context of every request, not repeated by the tool.
    assert "schedule" not in returned
    assert "optional sections listed: none" in (model.seen[1][-1].instructions or "")


def test_version_boundary_never_falls_back_to_the_newer_wording(live, database_url) -> None:
    # KM-MTR-118230's term began 2026-03-01: wording 2025.1 governs and has no MTR-BEN-03.
    model = scripted(
        ["MTR-BEN-03"],
        route(
            "Your wording has no hire car clause.",
            "Does my policy pay for a rental car?",
            "clause_not_in_directory",
        ),
    )
    use_model(live, model)
    reply = post_message(live, "CLM-118230", "Can I get a rental car while mine is being repaired?")
    assert reply["outcome"] == "routed_to_staff"
    assert reply["citations"] == [] and reply["citations_verified"] is False
    assert reply["release"] == {"family": "motor", "version": "2025.1"}
    assert reply["waiting_list_reference"] in reply["reply"]
    returned = model.seen[1][-1].parts[0].content
    assert returned["clauses"] == [] and returned["not_found"] == ["MTR-BEN-03"]
    record = turn_record(database_url, reply["turn_id"])
    assert record.version == "2025.1" and record.not_found == ["MTR-BEN-03"]
    assert "MTR-BEN-03" not in {e["clause_id"] for e in record.directory_seen}


def test_draft_2027_is_never_evidence(live, database_url) -> None:
    model = scripted(["MTR-BEN-03"], answer("Up to NZD 60 a day.", ("MTR-BEN-03", RATE)))
    use_model(live, model)
    reply = post_message(live, "CLM-204518", "How much loan car money do I get a day?")
    returned = model.seen[1][-1].parts[0].content
    assert returned["version"] == "2026.2"
    assert "NZD 80" not in returned["clauses"][0]["text"]
    assert "2027.1" not in str(model.seen[0]) and "Loan car, courtesy car" not in str(model.seen[0])
    record = turn_record(database_url, reply["turn_id"])
    assert record.version == "2026.2"
    assert "Loan car, courtesy car" not in str(record.directory_seen)


def test_plan_limits_follow_the_schedule(live) -> None:
    standard = "Jewellery and watches: Standard plan NZD 3,000 in total"
    premier = "Premier plan NZD 15,000 in total."
    use_model(
        live, scripted(["CNT-LIM-01"], answer("On your Standard plan: NZD 3,000.", ("CNT-LIM-01", standard)))
    )
    a = post_message(live, "CLM-402117", "What's the limit for jewellery?")
    assert "NZD 3,000" in a["reply"] and a["citations_verified"]
    # The whole row is served, so the claimant's plan follows it: Premier's figure is not theirs.
    row = "Jewellery and watches: Standard plan NZD 3,000 in total; Premier plan NZD 15,000 in total."
    assert f"“{row}”\nYour schedule shows the Standard plan." in a["reply"]
    assert "On your Standard plan" not in a["reply"]
    use_model(
        live, scripted(["CNT-LIM-01"], answer("On your Premier plan: NZD 15,000.", ("CNT-LIM-01", premier)))
    )
    b = post_message(live, "CLM-402118", "What's the limit for jewellery?")
    assert "NZD 15,000" in b["reply"] and b["citations_verified"]
    assert f"“{row}”\nYour schedule shows the Premier plan." in b["reply"]


def test_a_standard_plan_claimant_asking_an_item_limit_is_told_their_plan(live) -> None:
    """The model picks the Premier figure; the Standard claimant reads the whole row and their plan."""
    use_model(
        live,
        scripted(
            ["CNT-LIM-01"],
            answer("Your limit is NZD 15,000.", ("CNT-LIM-01", "Premier plan NZD 15,000 in total")),
        ),
    )
    reply = post_message(live, "CLM-402117", "what's the most you pay for my jewellery")
    assert reply["outcome"] == "answered" and "Your limit is" not in reply["reply"]
    served = reply["reply"]
    assert "Standard plan NZD 3,000 in total; Premier plan NZD 15,000 in total." in served
    assert served.index("Your schedule shows the Standard plan.") > served.index("Premier plan NZD 15,000")


def test_the_hire_car_clause_gets_the_runtime_s_statement_for_each_schedule(live) -> None:
    title = "“Hire car, rental car and alternative transport while your car is repaired or stolen”"
    for claim, statement in [
        (
            "CLM-204519",
            f"Your policy does not include {title}: your schedule does not list alternative transport",
        ),
        ("CLM-204518", f"Your policy includes {title}: your schedule lists alternative transport (hire car)"),
    ]:
        # The model claims the benefit is included either way; only the runtime's statement is served.
        said = "Your policy includes a hire car, subject to the claim being accepted."
        use_model(live, scripted(["MTR-BEN-03"], answer(said, ("MTR-BEN-03", "NZD 60 a day"))))
        reply = post_message(live, claim, "Do I get a rental car while mine is fixed?")
        assert reply["outcome"] == "answered" and said not in reply["reply"]
        assert f"“{RATE}”" in reply["reply"] and reply["reply"].startswith(statement), claim


def test_a_reply_citing_an_unfetched_clause_is_corrected_on_retry(live, database_url) -> None:
    use_model(
        live,
        scripted(
            ["MTR-BEN-03"],
            answer("Towing is paid.", ("MTR-BEN-01", "We pay reasonable towing costs")),
            answer("Up to NZD 60 a day, subject to the claim being accepted.", ("MTR-BEN-03", RATE)),
        ),
    )
    reply = post_message(live, "CLM-204518", "rental car?")
    assert reply["outcome"] == "answered"
    assert [b["clause_id"] for b in reply["answer"]["blocks"] if not b["added"]] == ["MTR-BEN-03"]
    assert {c["clause_id"] for c in reply["citations"]} == {b["clause_id"] for b in reply["answer"]["blocks"]}
    record = turn_record(database_url, reply["turn_id"])
    failed = [c for c in record.checks if not c["passed"]]
    assert {c["name"] for c in failed} >= {"cited_were_fetched"}
    assert all(c["attempt"] == 1 for c in failed)


def test_a_misquote_twice_is_routed_and_never_served(live, database_url) -> None:
    misquote = answer("We pay NZD 90 a day.", ("MTR-BEN-03", "We pay up to NZD 90 a day"))
    use_model(live, scripted(["MTR-BEN-03"], misquote, misquote))
    reply = post_message(live, "CLM-204518", "rental car?")
    assert reply["outcome"] == "routed_to_staff"
    assert "NZD 90" not in reply["reply"] and reply["citations"] == []
    record = turn_record(database_url, reply["turn_id"])
    assert record.route_reason == "failed_check"
    failed = [(c["attempt"], c["name"]) for c in record.checks if not c["passed"]]
    assert [a for a, n in failed if n == "spans_verbatim"] == [1, 2]
    assert {n for a, n in failed} == {"spans_verbatim"}
    # The record keeps what the model last selected, for staff to see why it was refused.
    assert record.selection["points"] == [{"clause_id": "MTR-BEN-03", "span": "We pay up to NZD 90 a day"}]
    assert record.composed is None
    with live.client(TOKENS["CLM-204518"]) as client:
        bodies = [m["body"] for m in client.get("/claims/CLM-204518/messages").json()["messages"]]
    assert not any("NZD 90" in b for b in bodies)


def test_a_claim_decision_is_never_served(live, database_url) -> None:
    decided = answer("Good news: your claim is covered and the rental will be paid.", ("MTR-BEN-03", RATE))
    # Quoted (the default): the model's words are not composed into the reply at all.
    use_model(live, scripted(["MTR-BEN-03"], decided, decided))
    reply = post_message(live, "CLM-204518", "Just confirm my rental is covered")
    assert reply["outcome"] == "answered" and "is covered" not in reply["reply"]
    assert f"“{RATE}”" in reply["reply"]
    # Explained: the lead is checked, corrected once, then routed.
    use_style(live, "explained")
    use_model(live, scripted(["MTR-BEN-03"], decided, decided))
    reply = post_message(live, "CLM-204518", "Just confirm my rental is covered, please")
    assert reply["outcome"] == "routed_to_staff"
    assert "is covered" not in reply["reply"]
    record = turn_record(database_url, reply["turn_id"])
    assert {c["name"] for c in record.checks if not c["passed"]} == {"no_claim_decision"}


def test_claiming_escalation_without_routing_is_corrected(live, database_url) -> None:
    use_style(live, "explained")  # the only style in which a model's words could say it
    use_model(
        live,
        scripted(
            ["MTR-BEN-03"],
            answer("I've escalated this to our claims team.", ("MTR-BEN-03", RATE)),
            answer("It pays up to NZD 60 a day, subject to the claim being accepted.", ("MTR-BEN-03", RATE)),
        ),
    )
    reply = post_message(live, "CLM-204518", "rental car?")
    assert reply["outcome"] == "answered" and "escalated" not in reply["reply"]
    assert reply["waiting_list_reference"] is None
    record = turn_record(database_url, reply["turn_id"])
    assert [c["name"] for c in record.checks if not c["passed"]] == ["no_false_escalation"]


def test_four_ids_are_rejected_by_the_tool_schema(live, database_url) -> None:
    model = scripted(
        ["MTR-BEN-01", "MTR-BEN-02", "MTR-BEN-03", "MTR-BEN-04"],
        ["MTR-BEN-03", "MTR-NOT-99"],
        answer("Up to NZD 60 a day, subject to the claim being accepted.", ("MTR-BEN-03", RATE)),
    )
    use_model(live, model)
    reply = post_message(live, "CLM-204518", "rental car?")
    retry = model.seen[1][-1].parts[0]
    assert retry.outcome == "retried" and retry.retry.cause == "validation_error"
    assert "at most 3 items" in str(retry.content)
    record = turn_record(database_url, reply["turn_id"])
    assert record.requested == ["MTR-BEN-03", "MTR-NOT-99"]
    assert record.not_found == ["MTR-NOT-99"] and record.returned == ["MTR-BEN-03"]


def test_tool_schema_caps_ids_at_three_and_offers_the_directory(live) -> None:
    from pydantic_ai.models.function import AgentInfo

    captured: list[AgentInfo] = []

    def capture(messages, info):
        captured.append(info)
        from pydantic_ai.messages import ModelResponse, ToolCallPart

        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, route("x", "q"))])

    from pydantic_ai.models.function import FunctionModel

    use_model(live, FunctionModel(capture))
    post_message(live, "CLM-310442", "anything on my policy")
    [tool] = captured[0].function_tools
    param = tool.parameters_json_schema["properties"]["clause_ids"]
    assert param["maxItems"] == 3
    assert "HOM-BEN-01" in param["items"]["enum"] and "MTR-BEN-03" not in param["items"]["enum"]


def test_no_clause_selected_routes_with_the_schedule_only(live, database_url) -> None:
    model = scripted([], route("I can't answer that from your wording.", "Where is my claim up to?"))
    use_model(live, model)
    reply = post_message(live, "CLM-310442", "Where is my claim up to?")
    returned = model.seen[1][-1].parts[0].content
    assert returned["guidance_status"] == "no_clause_selected" and returned["clauses"] == []
    assert "Schedule: plan " in (model.seen[1][-1].instructions or "")
    assert reply["outcome"] == "routed_to_staff" and reply["citations"] == []
    record = turn_record(database_url, reply["turn_id"])
    assert record.guidance_status == "no_clause_selected" and record.route_reason == "no_clause_selected"
    engine = create_engine(database_url)
    with Session(engine) as session:
        item = session.scalars(select(WaitingItem).where(WaitingItem.turn_id == reply["turn_id"])).one()
        assert item.reference == reply["waiting_list_reference"]
        assert item.question == "Where is my claim up to?" and item.reason == "no_clause_selected"
    engine.dispose()


def test_a_model_error_routes_with_model_error(live, database_url) -> None:
    use_model(live, scripted("error"))
    reply = post_message(live, "CLM-204518", "rental car?")
    assert reply["outcome"] == "routed_to_staff" and reply["citations"] == []
    record = turn_record(database_url, reply["turn_id"])
    assert record.route_reason == "model_error" and "ConnectionError" in record.error
    engine = create_engine(database_url)
    with Session(engine) as session:
        stored = session.scalars(select(Message.body).where(Message.role == "claimant")).all()
    engine.dispose()
    assert stored == ["rental car?"]


def test_history_is_replayed_without_old_instructions_and_each_turn_gets_its_own(live, database_url) -> None:
    """Stored turns keep no instructions (they were most of every record); a follow-up turn
    is sent the instructions and claim context of its own turn, once."""
    sent = []

    def model(messages, info):
        sent.append((info.instructions, messages))
        last = messages[-1].parts
        if any(p.part_kind == "user-prompt" for p in last):
            return ModelResponse(parts=[ToolCallPart("resolve_clauses", {"clause_ids": ["MTR-BEN-03"]})])
        reply = answer(
            "Your policy includes this benefit, subject to the claim being accepted.", ("MTR-BEN-03", RATE)
        )
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, reply)])

    use_model(live, FunctionModel(model))
    first = post_message(live, "CLM-204518", "Can I get a rental car while mine is being repaired?")
    second = post_message(live, "CLM-204518", "And for how long?")
    assert first["outcome"] == second["outcome"] == "answered"
    for turn_id in (first["turn_id"], second["turn_id"]):
        stored = turn_record(database_url, turn_id).model_messages
        requests = [m for m in stored if m["kind"] == "request"]
        assert requests and all(m["instructions"] is None for m in requests)
    instructions, messages = sent[2]  # the follow-up's first request
    assert "Kowhai Mutual" in instructions and "CLM-204518" in instructions and "MTR-BEN-03" in instructions
    now = next(n for n, m in enumerate(messages) if "And for how long?" in str(m))
    history = messages[:now]
    assert "Can I get a rental car while mine is being repaired?" in str(history)
    assert "Kowhai Mutual" not in str(history)  # old instructions are not replayed


def runtime_added(record) -> list[str]:  # type: ignore[no-untyped-def]
    """The exclusion clauses the runtime read and served itself, after the cover they limit
    (cited, as served; never among what the model's fetch returned)."""
    return [b["clause_id"] for b in (record.composed or {}).get("blocks", []) if b.get("added")]
