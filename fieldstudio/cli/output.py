"""What every command-line module shares: the two consoles, the error exit, opening a project, a progress bar.

One copy here so that every command reports errors, migrations and progress the same way.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.store.location import is_database_url, mask_in_text, project_ref
from fieldstudio.store.project import PROJECT_SUFFIX, Project

RawCellsOpt = Annotated[bool, typer.Option(
    "--raw-cells", help="CSV: write cells exactly as stored, even those a spreadsheet would run as a formula "
    "(=, +, -, @ first; by default they get a leading ')")]
"""The ``--raw-cells`` option of every command that writes a CSV (``core.spreadsheet_cells``)."""

ProjectArg = Annotated[str, typer.Argument(help="project file (.fieldstudio) or PostgreSQL URL")]
"""The project argument of every command that opens an existing project (``open_project`` reads it)."""

out = Console(soft_wrap=True, highlight=False)
"""Results, on stdout."""
err = Console(stderr=True, highlight=False, soft_wrap=True)
"""Errors, notices and progress, on stderr."""


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``error: message`` on stderr, on one line (never read as markup); return the exit to raise.

    Use as ``raise fail(...)``. Code 2 is an error; commands use 1 for "ran, but found nothing to do".
    """
    from fieldstudio.core.file_names import printable_text

    err.print("[red]error:[/red] ", end="")
    # one line, never wrapped: a server's or a library's message may hold line breaks and tabs; a path in a folder
    # whose name is not UTF-8 prints its bytes as \xNN
    err.print(" ".join(printable_text(str(message)).split()), markup=False, soft_wrap=True)
    return typer.Exit(code)


def project_to_create(ref: str | Path) -> Path | str:
    """A project argument to create: a PostgreSQL URL as given, a file with ``.fieldstudio`` added if missing."""
    if is_database_url(str(ref)):
        return str(ref)
    path = Path(ref)
    return path if path.suffix == PROJECT_SUFFIX else path.with_name(path.name + PROJECT_SUFFIX)


@contextlib.contextmanager
def open_project(path: Path | str, *, create: bool = False) -> Iterator[Project]:
    """Open (or create) a project for one command and close it after; errors become a message and exit 2.

    ``path`` is a project file or a PostgreSQL URL (``store.location``); a password in the URL is used for
    this command only and never printed. A project migrated from an older schema says so and names the
    copy kept aside.
    """
    ref = project_ref(path)
    try:
        project = Project.create(ref) if create else Project.open(ref)
    except FieldstudioError as exc:
        raise fail(mask_in_text(str(exc))) from None
    if project.backup_path is not None:
        err.print(f"migrated {project.path.name} from schema {project.migrated_from}; the old file is kept as "
                  f"{project.backup_path.name}", markup=False)
    elif project.migrated_from is not None:
        err.print(f"migrated {project.path} from schema {project.migrated_from}", markup=False)
    try:
        yield project
    except FieldstudioError as exc:
        raise fail(str(exc)) from None
    finally:
        project.close()


@contextlib.contextmanager
def progress_bar(label: str) -> Iterator[Callable[[int, int], None]]:
    """A progress bar with elapsed time and ETA on stderr; yields ``update(done, total)``.

    Silent when stderr is not a terminal (pipes, logs, tests).
    """
    if not err.is_terminal:
        yield lambda done, total: None
        return
    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("ETA"), TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task(label, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=max(total, 1))


def print_import_report(report) -> None:  # noqa: ANN001 - tasks.formats.records.ImportReport
    """Print formats, tasks per category, missing media, unmapped tasks and every problem."""
    from fieldstudio.core.file_names import printable_path

    for file, fmt in report.formats.items():   # a folder whose name is not UTF-8 prints as \xNN, not as "?"
        out.print(f"{printable_path(file)}: {fmt}", markup=False)
    if report.tasks_imported:
        out.print(f"tasks: {report.created} created, {report.updated} updated"
                  + (f", {report.unchanged} unchanged" if report.unchanged else ""))
        for category, n in sorted(report.tasks_per_category.items()):
            out.print(f"  {category or '(none)'}: {n}", markup=False)
        if report.merged_public:
            out.print(report.merged_public_text, markup=False)
        if report.truth_scores_stale:
            out.print(report.truth_stale_text("`fieldstudio score`"), markup=False)
    if report.answers_imported or report.run_id:
        out.print(f"answers: {report.answers_imported} imported")
        if report.answers_replaced:
            out.print(report.replaced_text("`fieldstudio score`"), markup=False)
    if report.unknown_ids:
        out.print(f"{len(report.unknown_ids)} answer id(s) name no task: {', '.join(report.unknown_ids[:10])}",
                  markup=False)
    if report.missing_media:
        out.print(f"{len(report.missing_media)} task(s) name media that are not in the project "
                  "(imported and marked; add the media with `fieldstudio add`, then `fieldstudio tasks link-media` "
                  "links them)")
        for ext_id, names in list(report.missing_media.items())[:10]:
            out.print(f"  {ext_id}: {', '.join(names)}", markup=False)
        if len(report.missing_media) > 10:
            out.print(f"  ... and {len(report.missing_media) - 10} more")
    if report.unmapped:
        out.print(f"no sub-category for: {', '.join(report.unmapped)}", markup=False)
    for problem in report.problems:
        out.print(str(problem), markup=False)


@contextlib.contextmanager
def cancel_on_ctrl_c(what_happens: str) -> Iterator[threading.Event]:
    """A threading.Event the first Ctrl-C sets (a long command's ``cancelled`` check reads it), saying
    ``what_happens`` ("the requests in flight finish and are saved") on stderr; the second Ctrl-C quits at once.
    Outside the main thread (where no signal handler can be set) the event is never set by a Ctrl-C."""
    event = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield event
        return

    def handler(signum, frame):  # noqa: ANN001
        if event.is_set():
            raise KeyboardInterrupt
        event.set()
        err.print(f"cancelling: {what_happens}; press Ctrl-C again to quit now", markup=False)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield event
    finally:
        signal.signal(signal.SIGINT, previous)
