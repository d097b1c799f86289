"""Helpers for the intake tests: an integration client and a two-term motor policy."""

from __future__ import annotations

from typing import Any

from agent.policy.intake import add_client

# Motor 2025.1 governs terms starting 2025-07-01 to 2026-06-30, motor 2026.2 from 2026-07-01
# (policies/releases.toml); this policy renews on 2026-08-01, so its first term is governed
# by 2025.1 and its renewal by 2026.2.
RENEWAL = "2026-08-01"
EARLIER = {"term_start": "2025-08-01", "term_end": RENEWAL, "plan": "Comprehensive"}
LATER = {"term_start": RENEWAL, "term_end": "2027-08-01", "plan": "Comprehensive"}


def schedule(*sections: str) -> dict[str, Any]:
    return {
        "sections": list(sections),
        "excess": {"standard": 500, "under_25_driver": 600},
        "sums_insured": {"agreed_value": 18000},
        "details": {"vehicle": "2019 Mazda 3 sedan", "registration": "QKT218"},
        "labels": {
            "alternative_transport": "Alternative transport (hire car)",
            "standard": "Standard excess",
            "under_25_driver": "Excess for drivers under 25",
            "agreed_value": "Agreed value of your car",
            "vehicle": "Car",
            "registration": "Registration",
        },
    }


def two_term_policy() -> dict[str, Any]:
    """Synthetic: not a real person or contract. The renewal adds alternative transport."""
    return {
        "family": "motor",
        "policyholder": "Hinemoa Parata",
        "terms": [
            {**EARLIER, "schedule": schedule()},
            {**LATER, "schedule": schedule("alternative_transport")},
        ],
    }


def integration_token(server, name: str = "kowhai-claims") -> str:
    with server.app.state.services.sessions.begin() as session:
        return add_client(session, name)
