"""The turn log as a product feature: `python -m agent turns` prints the real records."""

from __future__ import annotations

import json

import pytest

from tests.api.test_production import agent_cmd
from tests.support import post_message

RENTAL = "Can I get a rental car while mine is being repaired?"
ADVICE = "Should I switch to another insurer next year?"


@pytest.mark.slow  # a process of its own
def test_turns_prints_the_latest_records_of_the_running_system(live, database_url) -> None:
    first = post_message(live, "CLM-204518", RENTAL)
    second = post_message(live, "CLM-402117", ADVICE)
    third = post_message(live, "CLM-204519", RENTAL)
    env = {"CLAUSEDESK_DATABASE_URL": database_url}

    shown = agent_cmd("turns", "--last", "2", env=env)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[-1] == "2 turn records"
    assert [line.split()[2] for line in lines[:-1]] == [second["turn_id"], third["turn_id"]]
    assert "CLM-204519" in lines[1] and third["outcome"] in lines[1]

    as_json = agent_cmd("turns", "--claim", "CLM-204518", "--json", env=env)
    records = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [r["id"] for r in records] == [first["turn_id"]]
    assert records[0]["claim_id"] == "CLM-204518"
    assert records[0]["outcome"] == first["outcome"]
    assert records[0]["version"] == first["release"]["version"]
    assert "model_messages" not in records[0]

    routed = agent_cmd("turns", "--outcome", "routed_to_staff", "--json", env=env)
    outcomes = {json.loads(line)["outcome"] for line in routed.stdout.splitlines()}
    assert outcomes == {"routed_to_staff"}


def test_turns_on_an_unmigrated_database_says_so_and_changes_nothing(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    shown = agent_cmd("turns", env={"CLAUSEDESK_DATABASE_URL": url})
    assert shown.returncode == 2
    assert "python -m agent seed" in shown.stderr


def test_turns_refuses_a_count_below_one(tmp_path) -> None:
    shown = agent_cmd("turns", "--last", "0", env={"CLAUSEDESK_DATABASE_URL": f"sqlite:///{tmp_path}/x.db"})
    assert shown.returncode == 2
    assert "must be 1 or more" in shown.stderr
