"""Fuzzing the served OpenAPI document with schemathesis (its Python API): every operation,
valid and invalid inputs, with claimant and staff auth; counts server errors and contract
violations (status, content type, headers and body against the declared schema)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import hypothesis.strategies as st
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.config import SchemathesisConfig
from schemathesis.core.failures import Failure, FailureGroup
from sqlalchemy.orm import Session

from agent.staff.waiting_list import create_item

CHECKS = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
]


def load_schema(base_url: str) -> Any:
    """The served OpenAPI document, with the checks configured as this API means them: invalid
    input is refused by schemathesis's list of statuses and by 413, with which the request guard
    refuses a body over the size limit before reading it (a large invalid body gets it)."""
    config = SchemathesisConfig()
    refused = config.projects.default.checks.negative_data_rejection
    refused.expected_statuses = [*refused.expected_statuses, "413"]
    return schemathesis.openapi.from_url(f"{base_url}/openapi.json", config=config)


@dataclass
class FuzzFigures:
    cases: int = 0
    server_errors: int = 0
    violations: int = 0
    seconds: float = 0.0
    statuses: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"{self.cases} cases, {self.server_errors} responses 5xx, {self.violations} schema violations, "
            f"{self.seconds:.0f} s; statuses {dict(sorted(self.statuses.items()))}"
        )


def waiting_item_keys(db: Session, claim_id: str) -> list[str]:
    """Two routed questions added to this claim's waiting list, as values for the item paths:
    one named by its reference (WL-000123), the other by its row ID."""
    items = [
        create_item(
            db,
            claim_id=claim_id,
            turn_id=None,
            family="motor",
            question=q,
            reason="no_clause_selected",
        )
        for q in ("Will you pay for a rental car?", "Is my towing covered?")
    ]
    return [items[0].reference, str(items[1].id)]


def fuzz(
    base_url: str,
    auth: dict[str, str],
    path_values: dict[str, list[str]],
    cases_per_operation: int,
    *,
    only: Collection[str] | None = None,
) -> FuzzFigures:
    """Run up to `cases_per_operation` cases per operation and mode (positive, negative).

    auth maps an operation tag (claimant, staff) to the bearer token it is called with;
    path_values gives real values for path parameters, mixed with generated ones, so
    cases reach past the 404 for an unknown claim or item. With `only`, just the operations
    holding one of those tags ("" for an operation without one): one role's pass.
    """
    schema = load_schema(base_url)
    figures = FuzzFigures()
    started = time.monotonic()
    http = requests.Session()
    for result in schema.get_all_operations():
        operation = result.ok()
        tags = operation.definition.raw.get("tags", [])
        if only is not None and not set(tags or [""]) & set(only):
            continue
        token = next((auth[t] for t in tags if t in auth), None)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        names = [p.name for p in operation.path_parameters]
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            # The token is part of each case, so a negative case may drop it (and expect 401).
            strategies = [operation.as_strategy(generation_mode=mode, headers=headers)]
            if names and mode is GenerationMode.POSITIVE:
                for n in range(max(len(path_values.get(name, [])) for name in names)):
                    # Parameters without real values stay generated.
                    fixed = {
                        name: path_values[name][n % len(path_values[name])]
                        for name in names
                        if path_values.get(name)
                    }
                    strategies.append(
                        operation.as_strategy(generation_mode=mode, path_parameters=fixed, headers=headers)
                    )
            try:
                run_cases(st.one_of(strategies), cases_per_operation, base_url, http, figures)
            except Unsatisfiable:
                # No invalid input exists for an operation without parameters or body.
                assert mode is GenerationMode.NEGATIVE, operation.label
    figures.seconds = time.monotonic() - started
    return figures


def run_cases(
    strategy: st.SearchStrategy,
    cases: int,
    base_url: str,
    http: requests.Session,
    figures: FuzzFigures,
) -> None:
    checks = [getattr(schemathesis.checks, name) for name in CHECKS]

    @settings(
        max_examples=cases,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        # Quiet: Hypothesis would print a seed line for each operation without invalid input
        # (Unsatisfiable) on standard output, which carries the probe's JSON.
        verbosity=Verbosity.quiet,
    )
    @given(case=strategy)
    def run(case) -> None:  # type: ignore[no-untyped-def]
        figures.cases += 1
        response = case.call(base_url=base_url, session=http, timeout=30)
        figures.statuses[response.status_code] += 1
        if response.status_code >= 500:
            figures.server_errors += 1
        try:
            case.validate_response(response, checks=checks)
        except (Failure, FailureGroup) as exc:
            figures.violations += 1
            if len(figures.examples) < 10:
                # Header names only: the tokens stay out of the test output.
                sent = {"query": case.query, "headers": sorted(case.headers or {}), "body": case.body}
                figures.examples.append(
                    f"{case.method} {case.formatted_path} -> {response.status_code}: {str(exc)[:800]} "
                    f"SENT {sent!r:.300}"
                )

    run()
