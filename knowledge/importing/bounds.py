"""Bounds checked before a wording is read: its size on disk, a DOCX's unpacked size and
ratio (a zip bomb), a PDF's page count. Each refusal names the file, the bound and the
setting that raises it."""

from __future__ import annotations

import zipfile
from pathlib import Path

from knowledge.errors import KnowledgeError
from knowledge.settings import ImportSettings


class ExtractionFailed(KnowledgeError):
    """The file cannot be read as a wording; the message says what to do."""


class ImportRefused(ExtractionFailed):
    """The file is past a bound in the import settings; nothing of it was read."""


def check_size(path: Path, settings: ImportSettings) -> None:
    size = path.stat().st_size
    if size > settings.max_bytes:
        raise ImportRefused(
            f"{path}: {size:,} bytes, over the limit of {settings.max_bytes:,} "
            "(CLAUSEDESK_IMPORT_MAX_BYTES); import the wording without its embedded images, "
            "or raise the limit if the file is what the insurer publishes"
        )


def check_docx(path: Path, settings: ImportSettings) -> None:
    """A DOCX is a zip: refuse one that is not, or that would unpack past the bounds, from its
    directory alone (nothing is decompressed)."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise ExtractionFailed(
            f"{path}: not a readable DOCX ({exc}); open it in a word processor, save it again as "
            "DOCX (or export a PDF) and import that"
        ) from exc
    unpacked = sum(m.file_size for m in members)
    packed = max(1, sum(m.compress_size for m in members))
    if unpacked > settings.max_decompressed_bytes:
        raise ImportRefused(
            f"{path}: would unpack to {unpacked:,} bytes, over the limit of "
            f"{settings.max_decompressed_bytes:,} (CLAUSEDESK_IMPORT_MAX_DECOMPRESSED_BYTES); a wording "
            "is never this large: the file is damaged or hostile, do not import it"
        )
    if unpacked / packed > settings.max_compression_ratio:
        raise ImportRefused(
            f"{path}: packed {unpacked / packed:,.0f} to 1, over the limit of "
            f"{settings.max_compression_ratio} to 1 (CLAUSEDESK_IMPORT_MAX_COMPRESSION_RATIO); text "
            "does not pack this tightly: the file is a zip bomb or damaged, do not import it"
        )


def check_pages(path: Path, pages: int, settings: ImportSettings) -> None:
    if pages > settings.max_pages:
        raise ImportRefused(
            f"{path}: {pages:,} pages, over the limit of {settings.max_pages:,} "
            "(CLAUSEDESK_IMPORT_MAX_PAGES); import the wording's own pages (not a bundle of "
            "documents), or raise the limit"
        )
