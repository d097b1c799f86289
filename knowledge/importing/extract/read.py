"""A wording file's blocks: the file checked against the bounds, read by its format's reader,
then cleaned of page furniture and sentences cut by the layout joined."""

from __future__ import annotations

from pathlib import Path

from knowledge.importing.accounting import Ledger
from knowledge.importing.bounds import ExtractionFailed, check_docx, check_size
from knowledge.importing.extract.blocks import Block
from knowledge.importing.extract.cleanup import drop_furniture, rejoin
from knowledge.importing.extract.markup import from_html, from_markdown
from knowledge.importing.extract.pdf import from_pdf
from knowledge.importing.extract.word import from_docx
from knowledge.settings import ImportSettings

SUPPORTED = (".pdf", ".docx", ".html", ".htm", ".md", ".markdown")


def extract(
    path: Path | str, ledger: Ledger | None = None, settings: ImportSettings | None = None
) -> list[Block]:
    """The wording's blocks; every character read is booked in the ledger (see accounting)."""
    path = Path(path)
    ledger = ledger if ledger is not None else Ledger()
    settings = settings or ImportSettings()
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise ExtractionFailed(
            f"{path}: cannot import {suffix or 'a file without extension'}; use PDF, DOCX, HTML or MD"
        )
    if not path.exists():
        raise ExtractionFailed(f"{path}: no such file")
    check_size(path, settings)
    if suffix == ".pdf":
        blocks = from_pdf(path, ledger, settings)
    elif suffix == ".docx":
        check_docx(path, settings)
        blocks = from_docx(path, ledger)
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise ExtractionFailed(
                f"{path}: not UTF-8 text (byte {exc.start}); save it again as UTF-8 and import that"
            ) from exc
        blocks = from_html(text, ledger) if suffix in (".html", ".htm") else from_markdown(text, ledger)
    blocks = rejoin(drop_furniture(blocks, ledger), ledger)
    if not any(b.kind != "heading" for b in blocks):
        raise ExtractionFailed(
            f"{path}: no text could be read (a scanned PDF has none); export the wording with its text "
            "layer or as DOCX and import that"
        )
    return blocks
