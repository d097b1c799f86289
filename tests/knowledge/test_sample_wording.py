"""The synthetic Kowhai Mutual travel wording, rendered at test time as PDF and DOCX, imports
with every character accounted for, its sentence across a page break whole, and its cover
table found as a matrix whose cells match the page or paragraph they came from."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.cli import wording as cli
from knowledge.importing.cover_matrix import NOT_INCLUDED, OPTIONAL, Cell, cells_not_at_source
from knowledge.importing.pipeline import build
from knowledge.importing.sample import SAMPLE, render
from knowledge.source import parse_wording

LEVELS = ["Basic", "Essentials", "Comprehensive"]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pdf, docx = render(tmp_path_factory.mktemp("sample"))
    return {"pdf": pdf, "docx": docx, "md": SAMPLE}


@pytest.mark.parametrize("kind", ["pdf", "docx", "md"])
def test_the_sample_imports_whole_with_its_cover_matrix(rendered: dict[str, Path], kind: str) -> None:
    result = build(rendered[kind], "travel", "2026.1", "TRV", None, None)
    report = result.report
    assert report.accounting["unaccounted"] == 0 and report.counts["failures"] == 0
    assert (report.insurer, report.currency) == ("Kowhai Mutual Insurance Limited", "NZD")
    assert report.matrix["levels"] == LEVELS
    assert {"snow_sports", "cruise_cover"} <= set(report.matrix["options"])
    assert len(report.matrix["cells"]) == 24
    cells = [Cell(**{**c, "box": tuple(c["box"]) if c["box"] else None}) for c in report.matrix["cells"]]
    assert cells_not_at_source(rendered[kind], cells) == []
    values = {(c.row, c.column): c.value for c in cells}
    assert values[("Travel delay", "Essentials")] == NOT_INCLUDED
    assert values[("Snow sports", "Comprehensive")] == OPTIONAL
    units = {u["id"]: u for u in report.units}
    delay = next(u for u in units.values() if "Travel delay" in u["title"])
    assert delay["plans"] == ["Comprehensive"] and delay["title"].startswith("Comprehensive: ")
    snow = next(u for u in units.values() if "Snow sports" in u["title"])
    assert snow["added_by"] == ["snow_sports"] and snow["plans"] == ["Essentials", "Comprehensive"]
    # the sentence cut by the page break is one sentence again
    claim = next(u for u in units.values() if u["kind"] == "CLM")
    assert "decline any part of it, together with" in claim["text"]
    terms = [u for u in units.values() if u["kind"] == "DEF" and u["title"].startswith("Meaning of")]
    assert len(terms) == 5


def test_the_pdf_running_header_and_page_numbers_are_furniture(rendered: dict[str, Path]) -> None:
    removed = build(rendered["pdf"], "travel", "2026.1", "TRV", None, None).report.accounting[
        "removed_by_rule"
    ]
    assert removed["running-header"] > 0 and removed["page-number"] > 0


def test_render_sample_command_writes_both_files(tmp_path: Path) -> None:
    assert cli.main(["render-sample", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "kowhai-travel.pdf").stat().st_size > 2000
    assert (tmp_path / "kowhai-travel.docx").stat().st_size > 2000


def test_the_import_report_step_validates_as_it_says(
    rendered: dict[str, Path], tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    # The report's last step: delete the review line and run `knowledge validate` on the draft.
    # The report written beside the draft and the project's release records do not trip it.
    out = tmp_path / "drafts" / "travel" / "2026.1.md"
    args = ["import", str(rendered["pdf"]), "--family", "travel", "--version", "2026.1", "--code", "TRV"]
    assert cli.main([*args, "--out", str(out)]) == 0
    assert out.with_suffix(".import.md").exists()
    assert "knowledge validate" in out.with_suffix(".import.md").read_text()
    assert cli.main(["validate", str(out)]) == 1  # review pending, as the report says
    out.write_text(
        "".join(line for line in out.read_text().splitlines(True) if not line.startswith("review:"))
    )
    capsys.readouterr()
    assert cli.main(["validate", str(out)]) == 0
    assert capsys.readouterr().out.startswith("ok: 1 wording files")
    assert parse_wording(out).header["family"] == "travel"
