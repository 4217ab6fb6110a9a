"""`fieldstudio ocr P [--media NAME]`: read the text of the scanned document pages that need OCR
(``media.document_ocr``, as the window does in the background after an import); ``fieldstudio add`` runs the same
service after adding documents. `fieldstudio ocr-answers P [--task ID]`: the OCR-only baseline answer source
(``inference.runs.ocr_answers``). Register with ``register(app)``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from fieldstudio.cli.output import ProjectArg, fail, open_project, out, progress_bar
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.wording import plural


def register(app: typer.Typer) -> None:
    """Add the ``ocr`` and ``ocr-answers`` commands to ``app``."""
    app.command("ocr")(ocr_cmd)
    app.command("ocr-answers")(ocr_answers_cmd)


def ocr_cmd(
    project: ProjectArg,
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


def ocr_answers_cmd(
    project: ProjectArg,
    task: Annotated[Optional[list[str]], typer.Option(
        "--task", help="task id or external id (repeat for several; default: every task)")] = None,
) -> None:
    """Answer PROJECT's tasks with the text OCR reads in their photos and video frames, and nothing else: the
    answer source "OCR only", a baseline the Compare grid sets beside the models (score it like any run).
    Exit 0 when every task with a photo or video was answered, 1 when none has one or some could not be read."""
    from fieldstudio.inference.runs.ocr_answers import answer_by_ocr, outcome_text
    from fieldstudio.media import ocr
    with open_project(project) as p:
        try:
            ids = None if not task else _task_ids(p, task)
            with progress_bar("Reading text in the tasks' media (OCR)") as update:
                run_id, written, failed = answer_by_ocr(p, ids, progress=update)
        except ocr.OcrUnavailable as exc:
            raise fail(f"OCR cannot run: {exc}") from None
        except FieldstudioError as exc:
            raise fail(str(exc)) from None
    for line in outcome_text(run_id, written, failed).splitlines():
        out.print(line, markup=False, highlight=False)
    if run_id is None:
        raise typer.Exit(1)
    raise typer.Exit(1 if failed else 0)


def _task_ids(p, refs: list[str]) -> list[str]:  # noqa: ANN001 - Project
    """Task ids for ids or external (benchmark) ids; fails naming those that name no task."""
    from fieldstudio.core.errors import NotFound
    from fieldstudio.tasks.task_records import get_task, tasks_by_external_id

    external = tasks_by_external_id(p, refs)
    out = []
    for ref in refs:
        if ref in external:
            out.extend(external[ref].values())
            continue
        try:
            out.append(get_task(p, ref).id)
        except NotFound:
            raise fail(f"no task {ref!r} in the project") from None
    return out
