"""The project's runs and the answers of the selected one, for the Run panel.

Runs are listed newest first with status, counts, tokens, cost and duration; choosing one lists its answers,
and choosing an answer shows it in full (raw text, parsed answer, usage, the frames sent with their SHA-256,
and the request / agent trace). Resume and Delete act on the selected run through signals and services.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QSplitter, QVBoxLayout,
                               QWidget)

from fieldstudio.core import costs
from fieldstudio.gui.panels.run_record_actions import RunRecordActions
from fieldstudio.gui.panels.run_tables import (ANSWER_COLUMNS, ROW_ROLE, RUN_COLUMNS, RUN_STATUS_COLOURS,
                                               STATE_COLOURS, RowsModel, make_table)
from fieldstudio.inference.runs import views as run_views
from fieldstudio.inference.runs.run_records import delete_run
from fieldstudio.store.project import Project

#: (min, max) width in pixels of the answer table's columns after fitting them to their contents.
_ANSWER_WIDTHS = {1: (75, 90), 2: (300, 360), 3: (95, 140), 4: (80, 100), 5: (65, 90)}


class RunHistory(QWidget):
    """Runs table, answers table and the answer's detail.

    Signals:
        resume_requested(str, bool): run id, and whether failed answers are retried too.
        open_task(str): a task id, when an answer row is double-clicked.
        deleted(str): the name of a run just deleted.
        status(str): a message for the status bar (the Record menu's outcomes).
    """

    resume_requested = Signal(str, bool)
    open_task = Signal(str)
    deleted = Signal(str)
    status = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.project: Project | None = None
        self.busy_runs: set[str] = set()          # runs being executed: not deletable, not resumable
        self.runs_model = RowsModel(RUN_COLUMNS, self)
        self.runs_model.colour = lambda r: RUN_STATUS_COLOURS.get(r.status)
        self.runs = make_table(self.runs_model, "runs")
        self.runs.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._show_run(cur.row()))
        self.runs.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.runs.customContextMenuRequested.connect(
            lambda pos: self.records.menu.popup(self.runs.viewport().mapToGlobal(pos)))
        self.resume_button = QPushButton("Resume")
        self.resume_button.setObjectName("resume")
        self.resume_button.setToolTip("Answer the pending tasks of the selected run (finished ones are kept)")
        self.resume_button.clicked.connect(self._resume_clicked)
        self.retry_button = QCheckBox("also retry failed answers")
        self.retry_button.setObjectName("retry_failed")
        self.retry_button.toggled.connect(lambda _on: self._update_buttons())
        self.delete_button = QPushButton("Delete run")
        self.delete_button.setToolTip("Delete the selected run with its answers and scores")
        self.delete_button.clicked.connect(self.delete_selected)
        # Save reproducibility record…, Export run…, Import run…, Verify a record… (also the run list's context menu)
        self.records = RunRecordActions(self, self._chosen_run)
        self.records.status.connect(self.status)
        self.records.imported.connect(self.refresh)
        self.record_button = QPushButton("Record")
        self.record_button.setObjectName("record_menu")
        self.record_button.setToolTip("The selected run's reproducibility record; export or import a run; verify a "
                                      "record against this project and machine")
        self.record_button.setMenu(self.records.menu)
        buttons = QHBoxLayout()
        buttons.addWidget(QLabel("Runs"))
        buttons.addStretch(1)
        buttons.addWidget(self.retry_button)
        buttons.addWidget(self.resume_button)
        buttons.addWidget(self.delete_button)
        buttons.addWidget(self.record_button)
        self.answers_model = RowsModel(ANSWER_COLUMNS, self)
        self.answers_model.colour = lambda a: STATE_COLOURS.get(a.state)
        self.answers = make_table(self.answers_model, "answers")
        self.answers.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._show_answer(cur.row()))
        self.answers.doubleClicked.connect(self._answer_activated)
        self.detail_text = QPlainTextEdit()
        self.detail_text.setObjectName("answer_detail")
        self.detail_text.setReadOnly(True)
        self.detail_text.setPlaceholderText("Choose an answer to read it in full, with its frames and trace.")
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addLayout(buttons)
        top_layout.addWidget(self.runs, 1)
        answers = QSplitter(Qt.Orientation.Horizontal)
        answers.addWidget(self.answers)
        answers.addWidget(self.detail_text)
        answers.setSizes([720, 380])
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(answers)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

    def set_project(self, project: Project | None, rows: list[run_views.RunRow] | None = None) -> None:
        """Show ``project``'s runs: ``rows`` when given (read elsewhere, e.g. on a worker), else read here."""
        self.project = project
        self.records.set_project(project)
        self.answers_model.set_rows([])
        self.detail_text.clear()
        if project is None:
            self.runs_model.set_rows([])
        else:
            self.refresh(rows=rows)

    def set_busy(self, run_ids: set[str]) -> None:
        """Mark the runs being executed (empty: none); Resume and Delete are disabled for them."""
        self.busy_runs = set(run_ids)
        self._update_buttons()

    def refresh(self, select: str | None = None, rows: list[run_views.RunRow] | None = None) -> None:
        """Reload the run list (newest first; ``rows`` when given, read elsewhere); keep the selection, or select
        run `select`."""
        if self.project is None:
            return
        current = self.selected_run()
        keep = select or (current.id if current else None)
        self.runs_model.set_rows(run_views.list_runs(self.project) if rows is None else rows)
        for i, row in enumerate(self.runs_model.rows):
            if row.id == keep:
                self.runs.selectionModel().setCurrentIndex(self.runs_model.index(i, 0),
                                                           QItemSelectionModel.SelectionFlag.ClearAndSelect
                                                           | QItemSelectionModel.SelectionFlag.Rows)
                self._show_run(i)
                break
        if self.runs_model.rows:        # measuring the cells costs 40 ms and more; an empty list has none
            self.runs.resizeColumnsToContents()
        self._fit_batch_column()

    def _fit_batch_column(self) -> None:
        # a batch's status grows while it runs ("validating" -> "in_progress 120/200"): keep room for it
        column = next(i for i, c in enumerate(self.runs_model.columns) if c.header == "Batch")
        self.runs.setColumnWidth(column, max(self.runs.columnWidth(column), 140))

    def live_update(self, active_runs: list[str]) -> None:
        """Update the counts and, when one of `active_runs` is selected, its answers, in place."""
        if self.project is None:
            return
        self.runs_model.update_rows(run_views.list_runs(self.project), key=lambda r: r.id)
        run = self.selected_run()
        if run is not None and run.id in active_runs:
            self.answers_model.update_rows(run_views.list_answers(self.project, run.id), key=lambda a: a.id)

    def selected_run(self) -> run_views.RunRow | None:
        index = self.runs.selectionModel().currentIndex()
        rows = self.runs_model.rows
        return rows[index.row()] if index.isValid() and index.row() < len(rows) else None

    def _chosen_run(self) -> tuple[str, str] | None:
        run = self.selected_run()
        return None if run is None else (run.id, run.name)

    def _update_buttons(self) -> None:
        run = self.selected_run()
        free = run is not None and run.id not in self.busy_runs and not self.busy_runs
        self.resume_button.setEnabled(free and run.kind == "model" and
                                      (run.pending > 0 or (self.retry_button.isChecked() and run.failed > 0)))
        self.delete_button.setEnabled(run is not None and run.id not in self.busy_runs)
        self.records.update_actions()

    def _show_run(self, row: int) -> None:
        if self.project is None or not 0 <= row < len(self.runs_model.rows):
            self.answers_model.set_rows([])
            return
        run = self.runs_model.rows[row]
        self.answers_model.set_rows(run_views.list_answers(self.project, run.id))
        self.answers.resizeColumnsToContents()
        for column, (lo, hi) in _ANSWER_WIDTHS.items():
            self.answers.setColumnWidth(column, max(lo, min(self.answers.columnWidth(column), hi)))
        self.detail_text.clear()
        self._update_buttons()

    def _show_answer(self, row: int) -> None:
        if self.project is None or not 0 <= row < len(self.answers_model.rows):
            return
        a = self.answers_model.rows[row]
        self.detail_text.setPlainText(answer_detail_text(a, run_views.answer_detail(self.project, a.id)))

    def _answer_activated(self, index) -> None:  # noqa: ANN001 - QModelIndex
        row = index.data(ROW_ROLE)
        if row is not None:
            self.open_task.emit(row.task_id)

    def _resume_clicked(self) -> None:
        run = self.selected_run()
        if run is not None:
            self.resume_requested.emit(run.id, self.retry_button.isChecked())

    def delete_selected(self) -> None:
        """Delete the selected run (not one being executed) with its answers and scores."""
        row = self.selected_run()
        if self.project is None or row is None or row.id in self.busy_runs:
            return
        delete_run(self.project, row.id)
        self.refresh()
        self.answers_model.set_rows([])
        self.deleted.emit(row.name)


def answer_detail_text(a: run_views.AnswerRow, detail: dict) -> str:
    """An answer in full for the detail box: question, answer or error, usage, frames sent and the trace."""
    lines = [f"Task {a.task_label}: {a.query}", "", f"State: {a.state}"]
    if detail["error"]:
        lines.append(f"Error: {detail['error']}")
    if detail["raw_text"] is not None:
        lines += ["Answer:", detail["raw_text"]]
    if detail["parsed"]:
        lines.append("Parsed: " + json.dumps(detail["parsed"], ensure_ascii=False)[:2000])
    lines.append(f"Tokens: {detail['prompt_tokens']} in / {detail['completion_tokens']} out"
                 + (f" ({detail['reasoning_tokens']} reasoning)" if detail["reasoning_tokens"] else "")
                 + f"; cost {costs.amount_text(detail['cost_usd'], digits=6)}; retries {detail['retries']}"
                 + ("; from cache" if detail["from_cache"] else ""))
    if detail["frames"]:
        lines.append(f"Frames sent ({len(detail['frames'])}):")
        for f in detail["frames"][:60]:
            when = "" if f.get("pts_s") is None else f" at {f['pts_s']:.3f} s"
            lines.append(f"  {f.get('file_name')} frame {f.get('frame_index')}{when} · "
                         f"sha256 {str(f.get('sha256'))[:12]}…")
    if detail["trace"]:
        lines.append("Trace:")
        for step in detail["trace"]:
            if step.get("type") == "request":
                lines.append(f"  request ({step.get('purpose')}): {step.get('prompt_tokens')} in / "
                             f"{step.get('completion_tokens')} out, {step.get('images')} image(s)"
                             + (", from cache" if step.get("from_cache") else ""))
            else:
                shown = {k: v for k, v in step.items() if k != "type"}
                lines.append("  step: " + json.dumps(shown, ensure_ascii=False)[:600])
    return "\n".join(lines)
