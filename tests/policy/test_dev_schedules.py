"""The development schedules agree with the wording that governs their term: a claimant told one
driver excess by the schedule and another by the clause could not know which applies."""

from __future__ import annotations

import re
import tomllib
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
POLICIES = ROOT / "policies"
# The schedule's excess keys and the wording's line that sets the same amount (MTR-EXS-01).
DRIVER_EXCESS = {
    "under_25_driver": re.compile(r"^- NZD ([\d,]+) when the driver is under 25", re.M),
    "inexperienced_driver": re.compile(r"^- NZD ([\d,]+) when the driver has held a full", re.M),
}


def governing_version(family: str, start: date) -> str:
    releases = tomllib.loads((POLICIES / "releases.toml").read_text(encoding="utf-8"))["release"]
    for release in releases:
        end = release.get("effective_to")
        within = release["effective_from"] <= start and (end is None or start < end)
        if release["family"] == family and within:
            return release["version"]
    raise AssertionError(f"no approved {family} wording governs a term starting {start}")


def test_motor_driver_excesses_match_the_governing_wording() -> None:
    checked = 0
    for path in sorted((POLICIES / "schedules").glob("KM-MTR-*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        version = governing_version("motor", data["term_start"])
        wording = (POLICIES / "motor" / f"{version}.md").read_text(encoding="utf-8")
        excess = data["schedule"]["excess"]
        for key, line in DRIVER_EXCESS.items():
            if key not in excess:
                continue
            [amount] = line.findall(wording)
            assert excess[key] == int(amount.replace(",", "")), (
                f"{path.name}: {key} = {excess[key]} but motor {version} says NZD {amount}"
            )
            checked += 1
    assert checked >= 6  # every development motor schedule names both driver excesses
