"""Runs ▸ Sweep…: one model profile over the tasks chosen in the Runs tab with several frame budgets or strategies
(arms), with progress and Stop, then the sweep's table and plot; earlier sweeps can be shown again.

Everything is done by headless services: ``inference.runs.sweep`` (arms, creating and continuing the runs) and
``compare.sweeps`` (executing, scoring, the table), ``compare.plots.sweep_plot``; the long work runs in a
``workers.Worker`` whose cancel flag Stop sets (finished answers are kept; Start again continues the same sweep).
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QDialog, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QPlainTextEdit,
                               QProgressBar, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui import workers
from fieldstudio.inference import profiles as profile_store
from fieldstudio.inference.runs import sweep as sweep_runs
from fieldstudio.store.project import Project

DEFAULT_ARMS = ("uniform:8", "uniform:16", "uniform:32", "fps:1:30", "chunked:30")
"""The arms a new sweep proposes (issue 33: 8, 16, 32 uniform frames; 1 frame/s capped at 30; 30 s chunks)."""
DEFAULT_SCORER = "(the tasks' benchmark's)"


def _read_sweep(project: Project, sweep: sweep_runs.SweepRuns, scorer: str | None, *, progress, cancelled):  # noqa: ANN001, ANN202
    from fieldstudio.compare import sweeps

    return sweeps.sweep_result(project, sweep, scorer)


class SweepDialog(QDialog):
    """The Sweep dialog over ``task_ids`` of ``project``; ``profile_name`` is proposed first.

    Signals:
        status(str): one-line messages for the status bar.
        runs_changed(): the sweep's runs were created or answered.
    """

    status = Signal(str)
    runs_changed = Signal()

    def __init__(self, project: Project, task_ids: list[str], profile_name: str | None = None,
                 parent: QWidget | None = None):
        from fieldstudio.scoring.scorers import REGISTRY

        super().__init__(parent)
        self.setWindowTitle("Sampling sweep")
        self.project, self.task_ids = project, list(task_ids)
        self.worker: workers.Worker | None = None
        self.figure = None
        self.canvas: FigureCanvasQTAgg | None = None
        self.profile = QComboBox()
        self.profile.addItems(sorted(profile_store.load_profiles()))
        if profile_name:
            self.profile.setCurrentText(profile_name)
        self.arms = QPlainTextEdit("\n".join(DEFAULT_ARMS))
        self.arms.setObjectName("arms")
        self.arms.setToolTip("One arm per line: " + sweep_runs.ARM_SYNTAX)
        self.arms.setFixedHeight(110)
        self.scorer = QComboBox()
        self.scorer.addItems([DEFAULT_SCORER, *sorted(REGISTRY)])
        self.earlier = QComboBox()
        self.earlier.setObjectName("earlier_sweeps")
        self.earlier.setToolTip("Show the table and plot of a sweep made before (nothing is run)")
        form = QFormLayout()
        form.addRow("Tasks", QLabel(f"{len(self.task_ids)} task(s), as chosen in the Runs tab"))
        form.addRow("Model profile", self.profile)
        form.addRow("Arms", self.arms)
        form.addRow("", QLabel("uniform:N · fps:R:CAP · chunked:S · STRATEGY:name=value"))
        form.addRow("Scorer", self.scorer)
        form.addRow("Earlier sweeps", self.earlier)

        self.start_button = QPushButton("Start")
        self.start_button.setObjectName("start_sweep")
        self.start_button.clicked.connect(self.start)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("stop_sweep")
        self.stop_button.setToolTip("Stop after the requests in flight; Start again continues without paying twice")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.cancel)
        self.save_button = QPushButton("Save plot…")
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(lambda: self.save_plot())
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m answers")
        self.message = QLabel("")
        self.message.setObjectName("sweep_message")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, 0)
        self.table.setObjectName("sweep_table")
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.plot_area = QVBoxLayout()
        buttons = QHBoxLayout()
        buttons.addWidget(self.progress, 1)
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        layout.addWidget(self.table, 1)
        layout.addLayout(self.plot_area, 2)
        self.resize(1100, 900)
        self._fill_earlier()
        self.earlier.activated.connect(self._show_earlier)

    # -- running ---------------------------------------------------------------------------------

    def _scorer_name(self) -> str | None:
        text = self.scorer.currentText()
        return None if text == DEFAULT_SCORER else text

    def start(self) -> workers.Worker | None:
        """Make (or continue) the sweep of the chosen profile and arms, then answer, score and show it in a worker."""
        from fieldstudio.compare import sweeps

        if self.worker is not None:
            return None
        try:
            name = self.profile.currentText()
            if not name:
                raise FieldstudioError("no model profile: add one with Runs ▸ Model profiles…")
            profile = profile_store.get_profile(name)
            arms = [sweep_runs.parse_arm(line) for line in self.arms.toPlainText().splitlines() if line.strip()]
            if not self.task_ids:
                raise FieldstudioError("no task is chosen in the Runs tab")
            sweep = sweep_runs.find_resumable_sweep(self.project, profile, arms, self.task_ids)
            if sweep is None:
                sweep = sweep_runs.create_sweep(self.project, profile, self.task_ids, arms)
        except FieldstudioError as exc:
            self._say(f"Not started: {exc}", error=True)
            return None
        self.runs_changed.emit()
        self._say(f"Sweep {sweep.sweep_id[:8]}: {len(arms)} arms × {len(self.task_ids)} task(s) with {profile.name}…")
        worker = workers.Worker(sweeps.run_sweep, self.project, sweep, profile, self._scorer_name())
        worker.signals.progress.connect(self._on_progress)
        worker.signals.result.connect(self._on_outcome)
        worker.signals.error.connect(lambda message: self._say(f"The sweep failed: {message}", error=True))
        worker.signals.finished.connect(self._on_finished)
        self.worker = worker
        self.start_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        return workers.start(worker)

    def cancel(self) -> None:
        """Stop after the requests in flight; what finished is kept."""
        if self.worker is not None:
            self.worker.cancel()
            self.stop_button.setEnabled(False)
            self._say("Stopping after the requests in flight…")

    def is_running(self) -> bool:
        return self.worker is not None

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)

    def _on_outcome(self, outcome) -> None:  # noqa: ANN001 - compare.sweeps.SweepOutcome
        lines = outcome.batch.outcome_lines()
        if outcome.result is None:
            self._say("\n".join(lines), error=bool(outcome.batch.stopped))
            return
        self._say(lines[-1])
        self.show_result(outcome.result)

    def _on_finished(self) -> None:
        self.worker = None
        self.start_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        self._fill_earlier()
        self.runs_changed.emit()

    # -- showing ---------------------------------------------------------------------------------

    def _fill_earlier(self) -> None:
        self.earlier.clear()
        found = sweep_runs.list_sweeps(self.project)
        for w in found:
            self.earlier.addItem(f"{w.sweep_id[:8]} · {w.profile} · " + ", ".join(label for label, _ in w.arms), w)
        self.earlier.setEnabled(bool(found))

    def _show_earlier(self, index: int) -> workers.Worker | None:
        sweep = self.earlier.itemData(index)
        if sweep is None or self.worker is not None:
            return None
        worker = workers.Worker(_read_sweep, self.project, sweep, self._scorer_name())
        worker.signals.result.connect(self.show_result)
        worker.signals.error.connect(lambda message: self._say(f"Cannot read the sweep: {message}", error=True))
        return workers.start(worker)

    def show_result(self, result) -> None:  # noqa: ANN001 - compare.sweeps.SweepResult
        """Fill the table and draw the plot of ``result``."""
        from fieldstudio.compare import plots, sweeps

        frame = sweeps.sweep_frame(result)
        self.table.setColumnCount(len(frame.columns))
        self.table.setHorizontalHeaderLabels([str(c) for c in frame.columns])
        self.table.setRowCount(len(frame))
        for r, row in enumerate(frame.itertuples(index=False)):
            for c, value in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(str(value)))
        self.table.resizeColumnsToContents()
        if self.canvas is not None:
            self.plot_area.removeWidget(self.canvas)
            self.canvas.setParent(None)
            self.canvas.deleteLater()
        self.figure = plots.sweep_plot(result)
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.plot_area.addWidget(self.canvas)
        self.canvas.draw_idle()
        self.save_button.setEnabled(True)
        first = result.arms[0].label if result.arms else "—"
        self._say(f"Sweep {result.sweep.sweep_id[:8]} ({result.scorer or 'nothing scored'}): differences are arm minus "
                  f"{first} on the {result.n_paired} of {result.n_tasks} task(s) every arm scored")

    def save_plot(self, path: str | Path | None = None) -> Path | None:
        """Save the plot shown as PNG or SVG (asks for the file when ``path`` is None)."""
        from fieldstudio.compare import plots

        if self.figure is None:
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Save the sweep plot", "sweep.png",
                                                  "PNG image (*.png);;SVG image (*.svg)")
            if not path:
                return None
        saved = plots.save_figure(self.figure, Path(path))
        self.status.emit(f"Saved the sweep plot to {saved}")
        return saved

    def _say(self, text: str, error: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet("color: #b00020;" if error else "")
        if text:
            self.status.emit(text.splitlines()[0])

    def closeEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        self.cancel()                       # the worker stops at its next request; what finished is kept
        super().closeEvent(event)
