"""File ▸ Import tasks, Import answers, Export tasks, Export report: the evaluator's files in the window.

Each dialog asks for its files, then runs the service the command line runs (``tasks.importing.import_tasks``,
``scoring.imported_answers.import_answers``, ``tasks.exporting.export_tasks``) on a ``gui.workers`` worker behind a progress dialog
with Cancel, and shows what happened: the import report in a table (tasks per category, media not found,
problems), or the export's count and the tasks left out; a report written as HTML opens in the browser. ``reload()`` is called after every import, done,
cancelled or failed (batches already committed stay), so the Tasks and Compare tabs show the project as it is.

When tasks name media that are not in the project, the import report offers "Add the missing media folder…":
the folder's media are added (``media.ingest.add_index_thumbnail``) and the tasks' inputs linked to them
(``tasks.importing.link_missing_media``). ``import_benchmark`` (the welcome screen's "Import a benchmark…")
adds a media folder first, then imports the task files, in one worker.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fieldstudio.core.wording import plural
from fieldstudio.gui import raw_cells_choice, workers

if TYPE_CHECKING:
    from fieldstudio.store.project import Project
    from fieldstudio.tasks.formats.parsed_records import ImportReport

REPORT_COLUMNS = ("What", "Category, task or file", "Detail")
MIDDLE_COLUMN_MAX_PX = 300
"""Widest the report's "Category, task or file" column starts (a file's whole path is in its tooltip)."""
REPORT_FILTER = ("HTML report (*.html);;CSV answers (*.csv);;Excel workbook (*.xlsx);;Parquet answers (*.parquet);;"
                 "JSON summary (*.json)")


def import_filter(kind: str) -> str:
    """The open dialog's filter for the files of ``kind`` (``tasks`` or ``answers``) the format registry reads:
    ``Task files (*.json *.csv *.tsv);;All files (*)``."""
    from fieldstudio.tasks import formats

    patterns = " ".join("*" + s for s in formats.file_suffixes(kind))
    return f"{'Task' if kind == formats.TASKS else 'Answer'} files ({patterns});;All files (*)"


def report_rows(report: ImportReport) -> list[tuple[str, str, str]]:
    """The rows of the import report table: (what, category / task / file, detail)."""
    rows = [("tasks", category or "(no category)", f"{n} imported")
            for category, n in sorted(report.tasks_per_category.items())]
    rows += [("media not found", task, ", ".join(names)) for task, names in report.missing_media.items()]
    rows += [("no sub-category", task, "no row in the category list") for task in report.unmapped]
    rows += [("unknown task id", task, "names no task of the project") for task in report.unknown_ids]
    rows += [(p.severity, f"{Path(p.file).name} [{p.record}]" if p.record else p.file, p.message)
             for p in report.problems]
    return rows


def summary_text(report: ImportReport, *, answers: bool) -> str:
    """The lines above the table: what was imported, media not found, problems, a cancel."""
    if answers:
        lines = [f"Answers: {report.answers_imported} imported."]
        if report.answers_replaced:
            lines.append(report.replaced_text("Compare ▸ Score…"))
        if report.unknown_ids:
            lines.append(f"{len(report.unknown_ids)} answer(s) name no task of the project.")
    else:
        lines = [f"Tasks: {report.created} created, {report.updated} updated."]
        if report.merged_public:
            lines.append(report.merged_public_text)
        if report.truth_scores_stale:
            lines.append(report.truth_stale_text("Compare ▸ Score…"))
        if report.missing_media:
            lines.append(f"{len(report.missing_media)} task(s) name media that are not in the project "
                         "(\"Add the missing media folder…\" adds them and links the tasks).")
    errors = sum(p.severity == "error" for p in report.problems)
    warnings = len(report.problems) - errors
    if errors or warnings:
        lines.append(f"{errors} problem(s), {warnings} warning(s).")
    if report.cancelled:
        lines.append("The import was cancelled; what was saved before stays.")
    return "\n".join(lines)


class ImportReportDialog(QDialog):
    """What an import did: the summary (``summary``) and every row of ``report_rows`` (``table``)."""

    def __init__(self, title: str, report: ImportReport, *, answers: bool, parent: QWidget | None = None,
                 add_media: Callable[[], object] | None = None, preamble: str = ""):
        super().__init__(parent)
        self.setObjectName("import_report")
        self.setWindowTitle(title)
        self.summary = QLabel("\n".join(filter(None, (preamble, summary_text(report, answers=answers)))))
        self.summary.setObjectName("import_report_summary")
        rows = report_rows(report)
        self.table = QTableWidget(len(rows), len(REPORT_COLUMNS))
        self.table.setObjectName("import_report_table")
        self.table.setHorizontalHeaderLabels(REPORT_COLUMNS)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                item.setToolTip(text)          # a long detail or file path cut in the cell is read whole here
                self.table.setItem(r, c, item)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.resizeColumnsToContents()
        # a long file path in the middle column must not squeeze the detail to nothing: cut in its middle
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setColumnWidth(1, min(self.table.columnWidth(1), MIDDLE_COLUMN_MAX_PX))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.add_media_button = None
        if add_media is not None and report.missing_media and not answers:
            self.add_media_button = buttons.addButton("Add the missing media folder…",
                                                      QDialogButtonBox.ButtonRole.ActionRole)
            self.add_media_button.setObjectName("add_media_folder")
            self.add_media_button.setToolTip("Add a folder's media to the project and link the tasks that name them")
            self.add_media_button.clicked.connect(lambda: (self.accept(), add_media()))
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(820, 480)


def _run_import(parent: QWidget, label: str, title: str, fn: Callable, *args, answers: bool,
                reload: Callable[[], None], project: Project | None = None) -> workers.Worker:
    def done(result) -> None:
        reload()
        added, report = result if isinstance(result, tuple) else (None, result)
        add = None if project is None else (lambda: add_media_folder(parent, project, reload))
        dialog = ImportReportDialog(title, report, answers=answers, parent=parent, add_media=add,
                                    preamble=media_summary(added) if added is not None else "")
        dialog.open()

    def failed(message: str) -> None:
        reload()
        QMessageBox.critical(parent, f"{title}: failed", message)

    return workers.run_with_progress(parent, label, fn, *args, title=title, done=done, failed=failed)


def _chosen(parent: QWidget, caption: str, file_filter: str, *, folder: bool, many: bool) -> list[Path]:
    if folder:
        chosen = QFileDialog.getExistingDirectory(parent, caption)
        return [Path(chosen)] if chosen else []
    if many:
        return [Path(f) for f in QFileDialog.getOpenFileNames(parent, caption, "", file_filter)[0]]
    chosen = QFileDialog.getOpenFileName(parent, caption, "", file_filter)[0]
    return [Path(chosen)] if chosen else []


def import_tasks(parent: QWidget, project: Project, reload: Callable[[], None], *,
                 folder: bool = False) -> workers.Worker | None:
    """File ▸ Import tasks…: task files (or, with ``folder``, every task file in a folder) with ground truth."""
    from fieldstudio.scoring import imported_tasks

    paths: Sequence[Path] = _chosen(parent, "Import a folder of task files" if folder else "Import task files",
                                    import_filter("tasks"), folder=folder, many=True)
    if not paths:
        return None
    return _run_import(parent, "Importing tasks…", "Tasks imported", imported_tasks.import_tasks, project, list(paths),
                       answers=False, reload=reload, project=project)


def media_summary(report) -> str:  # noqa: ANN001 - media.library.AddReport
    """One line on the media a folder gave: added per kind, already there, unreadable."""
    parts = [plural(n, kind) for kind, n in sorted(report.imported.items())]
    text = f"Media: {', '.join(parts) if parts else 'none'} added"
    if report.duplicates:
        text += f", {len(report.duplicates)} already in the project"
    if report.unreadable:
        text += f", {len(report.unreadable)} unreadable ({report.unreadable[0][0].name}: {report.unreadable[0][1]})"
    if report.cancelled:
        text += "; adding was cancelled (the media added before stay in the project)"
    return text + "."


def link_summary(added, linked) -> str:  # noqa: ANN001 - AddReport, tasks.importing.LinkReport
    """What "Add the missing media folder…" did: the media added, the inputs linked, the tasks still missing."""
    lines = [media_summary(added),
             f"{linked.inputs_linked} task input(s) linked; {linked.tasks_completed} task(s) now have all their media."]
    if linked.still_missing:
        lines.append(f"{len(linked.still_missing)} task(s) still name media that are not in the project, e.g. "
                     + ", ".join(f"{t}: {', '.join(n)}" for t, n in list(linked.still_missing.items())[:3]) + ".")
    if added.cancelled:
        lines.append("Adding was cancelled; what was added before stays.")
    return "\n".join(lines)


def _add_and_link(project: Project, folder: Path, *, progress: Callable[[int, int], None],
                  cancelled: Callable[[], bool]):
    """Worker: add ``folder``'s media (indexed, with thumbnails), then link the tasks' inputs that name them."""
    from fieldstudio.media.ingest import add_index_thumbnail
    from fieldstudio.tasks.importing import link_missing_media

    added = add_index_thumbnail(project, [folder], progress=progress, cancelled=cancelled)
    return added, link_missing_media(project)


def add_media_folder(parent: QWidget, project: Project, reload: Callable[[], None], *,
                     folder: Path | None = None) -> workers.Worker | None:
    """The import report's "Add the missing media folder…": choose a folder (unless given), add its media and
    link the tasks that name them; a message box (``link_summary``) says what was found."""
    if folder is None:
        chosen = _chosen(parent, "Folder with the missing media", "", folder=True, many=False)
        if not chosen:
            return None
        folder = chosen[0]

    def done(result) -> None:
        reload()
        box = QMessageBox(QMessageBox.Icon.Information, "Media added and linked", link_summary(*result),
                          QMessageBox.StandardButton.Ok, parent)
        box.setObjectName("link_summary")
        box.open()

    def failed(message: str) -> None:
        reload()
        QMessageBox.critical(parent, "Adding media failed", message)

    return workers.run_with_progress(parent, "Adding media and linking tasks…", _add_and_link, project, folder,
                                     title="Add the missing media", done=done, failed=failed)


def _media_then_tasks(project: Project, tasks: list[Path], media: Sequence[Path], *,
                      progress: Callable[[int, int], None], cancelled: Callable[[], bool]):
    """Worker of "Import a benchmark…" and of a drop of task files: the media (files or folders) first, so the
    tasks find their inputs, then the tasks. Returns (AddReport or None, ImportReport); progress runs over both
    halves."""
    from fieldstudio.media.ingest import add_index_thumbnail
    from fieldstudio.scoring import imported_tasks

    def half(k: int) -> Callable[[int, int], None]:
        return lambda done, total: progress(k * max(total, 1) + done, 2 * max(total, 1))

    added = None
    if media:
        added = add_index_thumbnail(project, list(media), progress=half(0), cancelled=cancelled)
    report = imported_tasks.import_tasks(project, tasks, progress=half(1) if media else progress, cancelled=cancelled)
    return added, report


def import_benchmark(parent: QWidget, project: Project, tasks: Path, media: Path | None,
                     reload: Callable[[], None]) -> workers.Worker:
    """Add ``media`` (a folder, optional) and import ``tasks`` (a task file or a folder of them) into ``project``,
    then show the import report as File ▸ Import tasks does."""
    return _run_import(parent, "Importing the benchmark…", "Benchmark imported", _media_then_tasks, project,
                       [Path(tasks)], [Path(media)] if media else [], answers=False, reload=reload, project=project)


def split_task_files(paths: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """(task files, the rest) of dropped ``paths``: a file whose content is a task format of the registry
    (``tasks.formats``) is imported as tasks; folders and anything else go to the media import."""
    from fieldstudio.tasks import formats, importing

    tasks = [p for p in paths if p.is_file() and p.suffix.lower() in importing.TASK_FILE_SUFFIXES
             and formats.detect_format(p) in formats.names(formats.TASKS)]
    return tasks, [p for p in paths if p not in tasks]


def import_task_paths(parent: QWidget, project: Project, tasks: Sequence[Path], media: Sequence[Path],
                      reload: Callable[[], None]) -> workers.Worker:
    """Task files dropped onto the window, with the media dropped beside them (added first): one worker, then the
    import report as File ▸ Import tasks shows it."""
    return _run_import(parent, "Importing tasks…", "Tasks imported", _media_then_tasks, project, list(tasks),
                       list(media), answers=False, reload=reload, project=project)


def import_answers(parent: QWidget, project: Project, reload: Callable[[], None], *,
                   folder: bool = False) -> workers.Worker | None:
    """File ▸ Import answers…: an answer file (or a folder of a benchmark's run logs) as a named source."""
    from fieldstudio.scoring.imported_answers import import_answers as import_answer_file

    paths = _chosen(parent, "Import a folder of run logs" if folder else "Import answers", import_filter("answers"),
                    folder=folder, many=False)
    if not paths:
        return None
    name, ok = QInputDialog.getText(parent, "Import answers", "Name of this answer source (the model):",
                                    text=paths[0].stem)
    if not ok or not name.strip():
        return None
    return _run_import(parent, "Importing answers…", "Answers imported", import_answer_file, project,
                       paths[0], name.strip(), answers=True, reload=reload)


def export_tasks(parent: QWidget, project: Project) -> workers.Worker | None:
    """File ▸ Export tasks…: a format, then a file; tasks the format cannot hold are listed after."""
    from fieldstudio.tasks import exporting

    fmt, ok = QInputDialog.getItem(parent, "Export tasks", "Format:", list(exporting.FORMATS), 0, False)
    if not ok:
        return None
    suffix = exporting.SUFFIX[fmt]
    raw_cells = False
    if fmt == "csv":        # the one format that can hold a formula: the save dialog has the raw-cells box
        choice = raw_cells_choice.ask_save_path(parent, "Export tasks", f"tasks{suffix}", f"{fmt} (*{suffix})")
        out, raw_cells = (choice.path, choice.raw_cells) if choice else ("", False)
    else:
        out = QFileDialog.getSaveFileName(parent, "Export tasks", f"tasks{suffix}", f"{fmt} (*{suffix})")[0]
    if not out:
        return None

    def done(report: exporting.ExportReport) -> None:
        lines = [f"{report.format}: {report.written} task(s) written to {report.path}."]
        if report.skipped:
            lines.append(f"{len(report.skipped)} task(s) left out:")
            lines += [f"  {task}: {reason}" for task, reason in report.skipped[:20]]
            if len(report.skipped) > 20:
                lines.append(f"  … and {len(report.skipped) - 20} more")
        if report.cancelled:
            lines = ["The export was cancelled; nothing was written."]
        QMessageBox.information(parent, "Tasks exported", "\n".join(lines))

    return workers.run_with_progress(parent, "Exporting tasks…", exporting.export_tasks, project, fmt, Path(out),
                                     raw_cells=raw_cells, title="Export tasks", done=done,
                                     failed=lambda message: QMessageBox.critical(parent, "Export tasks: failed",
                                                                                 message))


def _write_report(project: Project, out: Path, scorer: str | None, raw_cells: bool, *,
                  progress: Callable[[int, int], None], cancelled: Callable[[], bool]):
    """``compare.report.export_report`` on a worker (it reports no progress and cannot be cancelled)."""
    from fieldstudio.compare.report_export import export_report

    return export_report(project, out, scorer=scorer, raw_cells=raw_cells)


def export_report(parent: QWidget, project: Project, *, scorer: str | None = None) -> workers.Worker | None:
    """File ▸ Export report…: the comparison of every answer source, the format from the file's suffix
    (HTML, CSV, XLSX, Parquet, JSON), under ``scorer`` (the Compare tab's; None: the scorer with the most
    scores); an HTML report opens in the browser."""
    caption = f"Export report (scorer {scorer}, as in the Compare tab)" if scorer else "Export report"
    choice = raw_cells_choice.ask_save_path(parent, caption, "report.html", REPORT_FILTER)
    if choice is None:
        return None
    out, chosen = choice.path, choice.name_filter
    out_path = Path(out)
    if not out_path.suffix:  # the filter chosen gives the suffix
        out_path = out_path.with_suffix(chosen.rsplit("*", 1)[-1].rstrip(")") if "*" in chosen else ".html")

    def done(result) -> None:
        scorer = result.comparison.scorer or "none (no answer is scored yet)"
        text = f"Wrote {result.path} ({result.format}, {result.rows} answer(s), scorer {scorer})."
        if result.format == "html" and QDesktopServices.openUrl(QUrl.fromLocalFile(str(result.path))):
            # openUrl only says a browser was started; if it then fails, the path must still be on show
            window = parent.window()
            if isinstance(window, QMainWindow):
                window.statusBar().showMessage(text + " Opening it in the web browser (if none appears, open "
                                               "the file from its folder).", 30000)
            return
        QMessageBox.information(parent, "Report exported", text)

    return workers.run_with_progress(parent, "Writing the report…", _write_report, project, out_path, scorer,
                                     choice.raw_cells,
                                     title="Export report", done=done,
                                     failed=lambda message: QMessageBox.critical(parent, "Export report: failed",
                                                                                 message))


def open_dialog(name: str, parent: QWidget, project: Project, reload: Callable[[], None], *,
                folder: bool = False, scorer: str | None = None) -> workers.Worker | None:
    """Open dialog ``name`` (``import_tasks``, ``import_answers``, ``export_tasks``, ``export_report``); None
    when the user cancels. ``scorer``: the one the report is written for (the Compare tab's)."""
    if name == "export_report":
        return export_report(parent, project, scorer=scorer)
    if name == "export_tasks":
        return export_tasks(parent, project)
    return {"import_tasks": import_tasks, "import_answers": import_answers}[name](parent, project, reload,
                                                                               folder=folder)
