"""Each real wording imported once per test run, shared by every module that needs it (the
import of the two PDFs takes seconds). The wordings are read from ../shared/wordings; no text
of theirs is in this file."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from knowledge.importing.pipeline import Imported, build
from tests.support import wording

NRMA = "AU_NRMA_motor_PDS_2022.pdf"
HOME = "UK_AXA-underwritten_home_buildings_contents_wording_ADH15.10a.pdf"
CAR_2021 = "UK_AXA_car_policy_booklet_2021-04.llamaparse.md"
CAR_OLDER = "UK_AXA_car_policy_wording_2_1_185.parsr.md"
REAL = (NRMA, HOME, CAR_OLDER, CAR_2021)
# (family, version, code) each wording is imported as; the two car editions as successive versions.
AS = {
    NRMA: ("motor", "2022.1", "MTR"),
    HOME: ("home", "2015.1", "HOM"),
    CAR_OLDER: ("motor", "2020.1", "MTR"),
    CAR_2021: ("motor", "2021.1", "MTR"),
}
# NRMA binds its supplementary PDS in front of the PDS: the owner names its pages.
SUPPLEMENT_PAGES = {NRMA: "3-6"}


@cache
def imported(name: str) -> Imported:
    family, version, code = AS[name]
    return build(
        wording(name), family, version, code, None, None, supplement_pages=SUPPLEMENT_PAGES.get(name)
    )


def source_of(name: str) -> Path:
    return wording(name)
