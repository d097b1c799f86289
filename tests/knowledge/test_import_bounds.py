"""Bounds: a zip bomb and malformed files refused with errors that name the file and what to
do; a long PDF read page by page within an address-space limit; IDs past 999 units of a kind
written in the shape the validator accepts."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from agent.cli import wording as cli
from knowledge.importing.bounds import ExtractionFailed, ImportRefused
from knowledge.importing.extract.read import extract
from knowledge.importing.pipeline import ImportFailed, _ids
from knowledge.importing.probe import import_under_limit
from knowledge.importing.sample import render_pdf
from knowledge.importing.segment import Unit
from knowledge.rules import check_wording
from knowledge.settings import ImportSettings
from knowledge.source import Clause, PolicySource, clause_id

pytestmark = pytest.mark.slow  # imports under memory limits in processes


def zip_bomb(path: Path, unpacked_mb: int = 300) -> Path:
    """A DOCX-shaped zip whose document part unpacks to `unpacked_mb` MB of zeros (about 300 KB packed)."""
    block = b"\0" * (1 << 20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        with z.open("word/document.xml", "w", force_zip64=True) as member:
            for _ in range(unpacked_mb):
                member.write(block)
    return path


def test_a_docx_zip_bomb_is_refused_before_anything_is_unpacked(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    bomb = zip_bomb(tmp_path / "bomb.docx")
    assert bomb.stat().st_size < 2_000_000
    with pytest.raises(ImportRefused) as caught:
        extract(bomb)
    message = str(caught.value)
    assert str(bomb) in message and "CLAUSEDESK_IMPORT_MAX_DECOMPRESSED_BYTES" in message
    assert "do not import it" in message
    assert cli.main(["import", str(bomb), "--family", "boat", "--version", "2026.1"]) == 1
    assert "would unpack to 314,572,808 bytes" in capsys.readouterr().err


def test_a_tightly_packed_docx_is_refused_by_ratio(tmp_path: Path) -> None:
    bomb = zip_bomb(tmp_path / "small-bomb.docx", unpacked_mb=20)
    with pytest.raises(ImportRefused, match="CLAUSEDESK_IMPORT_MAX_COMPRESSION_RATIO"):
        extract(bomb)


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("broken.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog", "cannot be opened as a PDF"),
        ("broken.docx", b"PK\x03\x04 not really a zip", "not a readable DOCX"),
        ("latin1.md", "# Caf\xe9 cover\n\nWe pay.".encode("latin-1"), "not UTF-8 text (byte 5)"),
        ("wording.rtf", b"{\\rtf1 hello}", "use PDF, DOCX, HTML or MD"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_file_and_what_to_do(
    tmp_path: Path, name: str, content: bytes, says: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ExtractionFailed) as caught:
        extract(path)
    assert str(path) in str(caught.value) and says in str(caught.value)
    assert any(w in str(caught.value) for w in ("import that", "use PDF"))


def test_page_and_byte_bounds_come_from_settings(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    pdf = render_pdf(tmp_path / "sample.pdf")
    with pytest.raises(ImportRefused, match=r"4 pages, over the limit of 2 \(CLAUSEDESK_IMPORT_MAX_PAGES\)"):
        extract(pdf, settings=ImportSettings(max_pages=2))
    monkeypatch.setenv("CLAUSEDESK_IMPORT_MAX_BYTES", "1000")
    with pytest.raises(ImportRefused, match="CLAUSEDESK_IMPORT_MAX_BYTES"):
        extract(pdf)


def test_a_long_pdf_is_read_page_by_page_within_500_mb(tmp_path: Path) -> None:
    # The import runs in a child process under RLIMIT_AS: past 500 MB of address space it
    # fails with MemoryError. 12 pages here; `python -m knowledge probe-large-pdf` does 2,000.
    pdf = render_pdf(tmp_path / "long.pdf", repeat=3)
    status, printed, peak_mb, err = import_under_limit(pdf, 500, timeout=120)
    assert status == 0, err
    assert printed["pages"] == 12 and printed["unaccounted"] == 0
    assert 0 < peak_mb < 500


def test_ids_past_999_of_a_kind_are_ids_the_validator_accepts() -> None:
    units = [Unit(("General",), kind="GEN") for _ in range(1000)]
    ids, _, _ = _ids(units, "PRO", None)
    assert ids[998:] == ["PRO-GEN-999", "PRO-GEN-1000"]
    source = PolicySource(
        "big.md",
        {"family": "probe", "code": "PRO", "version": "2026.1", "document_id": "PRO-BIG", "insurer": "X"},
        [
            Clause(i, "General terms of the probe", f"## {i} - General terms of the probe\n\nText.\n")
            for i in ids
        ],
    )
    assert check_wording(source) == []
    with pytest.raises(ValueError, match="past the 4-digit clause IDs"):
        clause_id("PRO", "GEN", 10_000)
    with pytest.raises(ImportFailed, match="past the 4-digit clause IDs"):
        _ids([Unit(("General",), kind="GEN") for _ in range(10_000)], "PRO", None)
