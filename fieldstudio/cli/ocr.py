"""`fieldstudio ocr P [--media NAME]`: read the text of the scanned document pages that need OCR
(``media.document_ocr``, as the window does in the background after an import); ``fieldstudio add`` runs the same
service after adding documents. Register with ``register(app)``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from fieldstudio.cli.output import fail, open_project, out, progress_bar
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.wording import plural


def register(app: typer.Typer) -> None:
    """Add the ``ocr`` command to ``app``."""
    app.command("ocr")(ocr_cmd)


def ocr_cmd(
    project: Annotated[str, typer.Argument(help="project file (.fieldstudio) or PostgreSQL URL")],
    media: Annotated[Optional[list[str]], typer.Option(
        "--media", help="document file name or id (repeat for several; default: every document)")] = None,
) -> None:
    """Read with OCR, on this machine, the pages of PROJECT's documents that have no text layer (scans); their
    text and words become searchable and go to models as the document's text. Pages read before are skipped.
    Exit 0 when every page waiting was read, 1 when some could not be."""
    from fieldstudio.media import library

    with open_project(project) as p:
        try:
            ids = None if not media else [library.find_media(p, ref).id for ref in media]
        except FieldstudioError as exc:
            raise fail(str(exc)) from None
        failed = read_scanned_pages(p, ids)
    raise typer.Exit(1 if failed else 0)


def read_scanned_pages(p, media_ids: list[str] | None) -> int:  # noqa: ANN001 - Project
    """OCR the pages waiting in ``media_ids`` (None: all) with a progress bar, print what was read and every page
    that failed with why; returns the number of pages that failed. Exits with the reason when OCR is unavailable."""
    from fieldstudio.media import document_ocr, ocr

    todo = document_ocr.pages_to_read(p, media_ids)
    if not todo:
        out.print("OCR: no scanned page waits to be read", markup=False)
        return 0
    try:
        with progress_bar("Reading scanned pages (OCR)") as update:
            report = document_ocr.read_pages(p, media_ids, progress=update)
    except ocr.OcrUnavailable as exc:
        raise fail(f"OCR cannot run: {exc}") from None
    words = sum(r.words for r in report.read)
    out.print(f"OCR ({ocr.engine_version()}): read {plural(len(report.read), 'page')}, "
              f"{plural(words, 'word')}", markup=False)
    for r in report.failed:
        out.print(f"  {r.page.file_name} page {r.page.page_number + 1}: {r.error}", markup=False, highlight=False)
    return len(report.failed)
