"""The comparison view: tasks x answer sources with scores in colour, filters, the evidence of one answer, a person's
overrides and promotions (``comparison_edits``), the summary tab (tables with coverage, intervals and plots) and the
judge audit tab (a person's marks on judged answers, ``comparison_audit``).

All reads and writes are services of ``fieldstudio.compare.views`` (built on ``comparison``, ``scoring``, ``plots``);
loading runs in a worker (``gui.workers``) because the bootstrap intervals take a moment on 900 tasks x 20 sources,
and the worker also makes the grid's cell texts. The panel is built in steps (the grid's page, then the Summary's,
then the Judge audit's) and a loaded view is shown in steps, one event-loop turn each (the filters, then the grid's
rows laid out unpainted, then their one paint, then the Summary, its columns fitted, then the Judge audit), so that the
window never stalls over 100 ms while it opens (issue 37; ``benchmarks/bench_compare.py`` measures it). A reload of a
project nothing was committed to since gets the same view back (``load_view``) and keeps its texts. The panel never
computes a statistic itself.
"""

from __future__ import annotations

import logging

import shiboken6

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from fieldstudio.compare import coverage
from fieldstudio.compare import views as cv
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.gui import workers
from fieldstudio.gui.panels.comparison_audit import JudgeAuditPanel
from fieldstudio.gui.panels.comparison_delegate import GridDelegate
from fieldstudio.gui.panels.comparison_detail import AnswerDetailPane
from fieldstudio.gui.panels.comparison_edits import GridEdits
from fieldstudio.gui.panels.comparison_model import (
    TASK_COLUMNS,
    ComparisonFilterProxy,
    ComparisonTableModel,
    GridText,
    grid_text,
)
from fieldstudio.gui.panels.comparison_score import ScoreDialog
from fieldstudio.gui.panels.comparison_summary import SummaryPanel, SummaryTexts, summary_texts
from fieldstudio.gui.panels.run_menu import RunTasksMenu
from fieldstudio.store.project import Project

log = logging.getLogger(__name__)

__all__ = ["ComparisonPanel"]

_ALL = None
STEP_GAP_MS = 10
"""Between two steps of building the panel or showing a load: a timer, not a posted event (0 ms), so that the
user's input and the paint run between the steps (Qt sent the posted steps one after the other in one turn); and
10 ms, not 1: Qt fires the timers that are due in the order of their due times, so a 1 ms step, due before the
window's other timers (a 5 ms heartbeat, playback's frames), ran right after the paint of the step before it and
the two made one stall (issue 37: 60-70 ms of the 100 ms under load). Any timer of a period up to 10 ms now runs
between two steps."""
SOURCE_WIDTH_PX = (170, 320)
"""Narrowest and widest a source column starts (its header's name decides between them)."""


class ComparisonPanel(GridEdits, QWidget):
    """Tasks x sources grid with filters and a detail pane, plus a Summary tab.

    Signals: ``open_media_at(media_id, frame_index)`` asks the window to show a media at a frame (the first
    frame the model saw); ``frames_seen(media_id, [frame indices])`` is emitted just before it so the
    timeline can mark those frames; ``status(text)`` for the status bar; ``loaded()`` after data is shown;
    ``ground_truth_changed(task_id)`` after a promotion; ``run_on_tasks(task_ids)`` from the grid's context
    menu ("Run model on these tasks…", gui/panels/run_menu.py).
    """

    open_media_at = Signal(str, int)
    frames_seen = Signal(str, object)
    status = Signal(str)
    loaded = Signal()
    ground_truth_changed = Signal(str)
    run_on_tasks = Signal(list)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.project: Project | None = None
        self.view: cv.ComparisonView | None = None
        self._generation = 0
        self._worker: workers.Worker | None = None
        self._keep_cell: tuple[str, str] | None = None
        self._summary_texts: SummaryTexts | None = None   # of the view shown, made by the worker
        self._shown_view: cv.ComparisonView | None = None  # the view whose every step is shown

        # filters
        self.scorer_combo = QComboBox()
        self.scorer_combo.setToolTip("Scorer whose values are shown; another scorer reloads the view")
        self.scorer_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.category_combo, self.scenario_combo, self.type_combo = QComboBox(), QComboBox(), QComboBox()
        for combo, what in ((self.category_combo, "category"), (self.scenario_combo, "scenario"),
                            (self.type_combo, "answer type")):
            combo.setToolTip(f"Show only the tasks of one {what}")
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.disagree_check = QCheckBox("Models disagree")
        self.disagree_check.setToolTip("Only tasks whose scored sources do not all have the same verdict")
        self.wrong_check = QCheckBox("Wrong only")
        self.wrong_check.setToolTip("Only tasks where at least one source is not correct")
        self.flagged_check = QCheckBox("⚑ Matcher ≠ judge")
        self.flagged_check.setToolTip("Only tasks with a judged answer that fieldstudio's deterministic matchers "
                                      "decide the other way: check those by hand")
        self.evidence_combo = QComboBox()
        self.evidence_combo.setObjectName("evidence_filter")
        for text, data in (("Evidence", None), ("Saw it", "saw"), ("Never saw", "never_saw")):
            self.evidence_combo.addItem(text, data)
        # as narrow as its shortest useful text: the row must fit a 1280 px screen beside the Media tab's docks
        self.evidence_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.evidence_combo.setMinimumContentsLength(7)
        self.evidence_combo.setToolTip("Evidence: all tasks; Saw it: tasks where some source was sent a frame of the "
                                       "ground truth's span (a linked segment, event or ruler, a time in the "
                                       "reference); Never saw: tasks where some source never was (compare.evidence)")
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("Search task, question, ground truth, answers (Ctrl+E)")
        self.search_edit.setClearButtonEnabled(True)
        self.score_button = QPushButton("Score…")
        self.score_button.setToolTip("Score the answers: choose the scorer and the judge, see the cost first")
        self.score_button.clicked.connect(lambda: self.open_score_dialog())
        self.refresh_button = QPushButton("Reload")
        self.refresh_button.setToolTip("Read the answers and scores again (F5)")
        self.count_label = QLabel("")
        self.count_label.setMinimumWidth(self.count_label.fontMetrics().horizontalAdvance("99999 of 99999 tasks"))
        self.coverage_label = QLabel("")
        self.coverage_label.setObjectName("grid_coverage")
        self.coverage_label.setWordWrap(True)  # one line per source would set the whole window's minimum width
        self.coverage_label.setToolTip("Answers scored under the scorer shown, of the tasks in the grid (the tasks "
                                       "some source answered, within the filters), per source. The Summary counts "
                                       "every task of the benchmark, answered or not, so its totals can be larger")

        row1 = QHBoxLayout()
        for label, w in (("Scorer", self.scorer_combo), ("Category", self.category_combo),
                         ("Scenario", self.scenario_combo), ("Answer type", self.type_combo)):
            row1.addWidget(QLabel(label))
            row1.addWidget(w)
        row1.addStretch(1)
        row1.addWidget(self.score_button)
        # Reload on the second row: on the first, that row's minimum width (plus the Media tab's docks) was
        # over a 1280 px screen, and a tab widget is as wide as the widest minimum of its tabs
        row2 = QHBoxLayout()
        row2.addWidget(self.disagree_check)
        row2.addWidget(self.wrong_check)
        row2.addWidget(self.flagged_check)
        row2.addWidget(self.evidence_combo)
        row2.addWidget(self.search_edit, 1)
        row2.addWidget(self.count_label)
        row2.addWidget(self.refresh_button)

        # grid
        self.model = ComparisonTableModel(self)
        self.proxy = ComparisonFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setItemDelegate(GridDelegate(self.proxy, self.model, self.table))   # texts laid out once
        self.table.itemDelegate().lay_out_after_sorts(self.table, STEP_GAP_MS)
        self.table.horizontalHeader().setSortIndicator(0, Qt.SortOrder.AscendingOrder)   # tasks in id order
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        # several cells for "Run model on these tasks…"; the detail pane follows the current cell
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setWordWrap(False)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setDefaultSectionSize(180)
        header.setSortIndicatorShown(True)
        # a source's name is read from its start ("SmolLM2-135M blind (rec…"): left aligned, cut on the right only
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.selectionModel().currentChanged.connect(self._on_current)
        self.detail = AnswerDetailPane()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.table)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([900, 420])
        self.model.modelReset.connect(self._size_columns)
        grid_page = QWidget()
        gl = QVBoxLayout(grid_page)
        gl.setContentsMargins(0, 0, 0, 0)
        gl.addLayout(row1)
        gl.addLayout(row2)
        gl.addWidget(self.coverage_label)
        gl.addWidget(splitter, 1)

        # the Summary and Judge audit pages are built in later event-loop turns (or when first asked for: the
        # ``summary`` and ``audit`` properties): built with the grid, the click that opens the tab stalled the
        # window 20 ms more on a quiet machine, 100 ms more under load (issue 37)
        self._summary: SummaryPanel | None = None
        self._audit: JudgeAuditPanel | None = None
        self.undo_stack = QUndoStack(self)   # the audit's marks; in the window's undo group from the start
        self.tabs = QTabWidget()
        self.tabs.addTab(grid_page, "Grid")
        self.tabs.addTab(QWidget(), "Summary")          # placeholders until the pages are built
        self.tabs.addTab(QWidget(), "Judge audit")
        self.tabs.currentChanged.connect(self._build_page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)

        # wiring
        self.scorer_combo.activated.connect(lambda _i: self.reload(self.scorer_combo.currentData()))
        for combo in (self.category_combo, self.scenario_combo, self.type_combo):
            combo.currentIndexChanged.connect(self._apply_filters)
        self.disagree_check.toggled.connect(self._apply_filters)
        self.wrong_check.toggled.connect(self._apply_filters)
        self.flagged_check.toggled.connect(self._apply_filters)
        self.evidence_combo.currentIndexChanged.connect(self._apply_filters)
        self.search_edit.textChanged.connect(self._apply_filters)
        self.refresh_button.clicked.connect(lambda: self.reload(self.current_scorer()))
        self.detail.open_media.connect(self.open_media)
        self.detail.open_frame.connect(self.open_media_at)
        self.detail.override.connect(self.open_override_dialog)
        self.detail.promote.connect(self.open_promote_dialog)
        for keys, slot, name in (("Ctrl+E", self.search_edit.setFocus, "focus_search"),
                                 ("F5", lambda: self.reload(self.current_scorer()), "reload")):
            action = QAction(self)
            action.setObjectName(name)
            action.setShortcut(QKeySequence(keys))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(slot)
            self.addAction(action)
        self.run_menu = RunTasksMenu(self.table, self.selected_task_ids, self.shown_task_ids, self.run_on_tasks.emit)
        self._set_enabled(False)
        QTimer.singleShot(STEP_GAP_MS, self, lambda: self._build_page(1))

    @property
    def summary(self) -> SummaryPanel:
        """The Summary page (built now if it is not yet)."""
        if self._summary is None:
            self._summary = SummaryPanel()
            self._summary.status.connect(self.status)
            self._put_page(1, self._summary, "Summary")
        return self._summary

    @property
    def audit(self) -> JudgeAuditPanel:
        """The Judge audit page (built now if it is not yet), whose marks go on ``undo_stack``."""
        if self._audit is None:
            self._audit = JudgeAuditPanel(undo_stack=self.undo_stack)
            self._audit.status.connect(self.status)
            self._put_page(2, self._audit, "Judge audit")
        return self._audit

    def _put_page(self, index: int, page: QWidget, title: str) -> None:
        """Put ``page`` in place of tab ``index``'s placeholder; the tab shown stays shown."""
        current = self.tabs.currentIndex()
        placeholder = self.tabs.widget(index)
        self.tabs.insertTab(index, page, title)
        self.tabs.removeTab(index + 1)
        placeholder.deleteLater()
        self.tabs.setCurrentIndex(current)

    def _build_page(self, index: int) -> None:
        """Build the page of tab ``index`` (1 Summary, 2 Judge audit) if it is not yet; the Summary's build is
        followed by the Judge audit's one event-loop turn later, each a short step."""
        if index == 1:
            built = self._summary is not None
            _ = self.summary
            if not built:
                QTimer.singleShot(STEP_GAP_MS, self, lambda: self._build_page(2))
        elif index == 2:
            _ = self.audit

    def selected_task_ids(self) -> list[str]:
        """Task ids of the rows with a selected cell, in the grid's order (repeats removed by the menu)."""
        g = self.model.grid
        if g is None:
            return []
        rows = sorted(self.table.selectionModel().selectedIndexes(), key=lambda i: i.row())
        return [str(g.tasks.at[self.model.grid_row(self.proxy.mapToSource(i).row()), "task_id"]) for i in rows]

    def shown_task_ids(self) -> list[str]:
        """Task ids of every row the grid shows after its filters, top to bottom."""
        g = self.model.grid
        if g is None:
            return []
        rows = (self.model.grid_row(self.proxy.mapToSource(self.proxy.index(r, 0)).row())
                for r in range(self.proxy.rowCount()))
        return [str(g.tasks.at[r, "task_id"]) for r in rows]

    # ------------------------------------------------------------ loading
    def set_project(self, project: Project | None) -> None:
        """Show ``project``'s answers and scores (None clears the view); the filters start unset."""
        self.project = project
        self._keep_cell = None
        for check in (self.disagree_check, self.wrong_check, self.flagged_check):
            check.setChecked(False)  # a filter of the project left would hide this one's tasks unsaid
        self.evidence_combo.setCurrentIndex(0)
        self.search_edit.clear()
        if project is None:
            self._generation += 1
            self._show(None)
            return
        self.reload(None)

    def on_runs_changed(self) -> None:
        """A run added or changed answers (Runs tab): read them again, with the scorer shown."""
        self.reload(self.current_scorer())

    def on_tasks_imported(self) -> None:
        """Tasks or answers were imported (File menu): read them again, with the scorer shown."""
        self.reload(self.current_scorer())

    def current_scorer(self) -> str | None:
        """The scorer shown (None before anything is loaded)."""
        return self.view.scorer if self.view is not None else None

    def reload(self, scorer: str | None = None) -> None:
        """Read answers and scores again in the background; ``loaded`` is emitted when they are shown."""
        if self.project is None:
            return
        self._generation += 1
        gen = self._generation
        if self._worker is not None:
            self._worker.cancel()
        worker = workers.Worker(_load_with_text, self.project, scorer, self.view, self.model.text, self._summary_texts)
        worker.signals.result.connect(lambda loaded: self._on_loaded(gen, *loaded))
        worker.signals.error.connect(lambda msg: self._on_error(gen, msg))
        self._worker = worker
        self.count_label.setText("loading…")
        workers.start(worker)

    def _on_loaded(self, gen: int, view: cv.ComparisonView, text: GridText, summary: SummaryTexts | None) -> None:
        if gen != self._generation or not shiboken6.isValid(self.table):
            return                       # a newer reload is on its way, or the panel is gone
        if view is self.view and view is self._shown_view:
            # load_view gave the view shown back (nothing was committed since it was read), and every step of it is
            # shown: nothing to show again (a warm reload took five steps and their paints for the same pixels)
            self._worker = None
            self._announce(view)
            return
        self._summary_texts = summary
        self._show(view, text, gen)      # _worker stays set until the last step is shown

    def _on_error(self, gen: int, message: str) -> None:
        if gen != self._generation or not shiboken6.isValid(self.table):
            return
        self._worker = None
        self.count_label.setText("")
        self.status.emit(f"Could not load the comparison: {message}")

    def _show(self, view: cv.ComparisonView | None, text: GridText | None = None, gen: int | None = None) -> None:
        """Show ``view``: the filters' choices and the coverage line now, the grid's rows, count and selected cell in
        the next event-loop turn, then the Summary and the Judge audit, each step with its paint under 100 ms at
        900 x 20; then ``loaded``. The lines that change the panel's layout come first, while the grid is empty
        (first load) or unchanged, so that the grid is painted once. ``gen``: the load this is; a newer one drops
        the later steps (it shows its own). None shows everything at once (the view cleared)."""
        current = self._current_cell_key()
        self._fill_combos(view)
        self._set_enabled(view is not None)
        self._show_coverage(view.grid if view is not None else None)
        if gen is None:
            self._show_rows(view, text, current)
            self._summary_texts = None
            self.summary.set_view(view)
            self._show_audit(view)
            return
        QTimer.singleShot(STEP_GAP_MS, self, lambda: gen == self._generation and self._show_rows(view, text, current,
                                                                                                  gen))

    def _show_rows(self, view: cv.ComparisonView | None, text: GridText | None, current: tuple[str, str] | None,
                   gen: int | None = None) -> None:
        """The step of the grid's rows: filtered once, with the filters set; the count; the cell selected before the
        load (or the one an edit asked to keep); then the Summary's step when ``gen`` is given."""
        self.view = view                 # with the model's texts: a reload passes both to the worker
        grid = view.grid if view is not None else None
        if gen is not None:   # no paint until the next step: the reset and its delayed layout asked for two full
            self.table.setUpdatesEnabled(False)  # paints in a row (40-50 ms each on two loaded cores, issue 37)
        # the rows the filters keep, before the model resets (or updates in place: the proxy's dynamic filter asks
        # the changed rows again), so that a load filters them once, not once more in a refilter
        self.proxy.prepare(grid)
        self.model.set_grid(grid, text)
        self._update_count()
        keep = self._keep_cell or current
        self._keep_cell = None
        if not (keep and self.select_cell(*keep)):
            self.detail.show_detail(None)
        if gen is not None:
            self.table.doItemsLayout()   # the layout the reset delayed, done now while nothing paints
            self.table.itemDelegate().lay_out_visible(self.table, lambda: self._paint_rows(gen, view), STEP_GAP_MS)

    def _paint_rows(self, gen: int, view: cv.ComparisonView | None) -> None:
        self.table.setUpdatesEnabled(True)   # the step of the grid's one paint; then the Summary's
        QTimer.singleShot(STEP_GAP_MS, self, lambda: gen == self._generation and self._show_summary(gen, view))

    def _show_summary(self, gen: int, view: cv.ComparisonView | None) -> None:
        self.summary.set_view(view, self._summary_texts, fit=False)
        QTimer.singleShot(STEP_GAP_MS, self, lambda: gen == self._generation and self._fit_summary(gen, view))

    def _fit_summary(self, gen: int, view: cv.ComparisonView | None) -> None:
        self.summary.fit_columns()       # the Summary table's columns fitted to its cells, a step of its own
        QTimer.singleShot(STEP_GAP_MS, self, lambda: gen == self._generation and self._show_audit(view))

    def _show_audit(self, view: cv.ComparisonView | None) -> None:
        self._worker = None
        g = view.grid if view is not None else None
        flagged = [] if g is None else [str(a) for a in g.answer_id[g.flag]]
        self.audit.set_view(self.project, view.scorer if view is not None else None,
                            view.answers if view is not None else None, flagged)
        self._shown_view = view
        self._announce(view)

    def _announce(self, view: cv.ComparisonView | None) -> None:
        """The status line of a load shown, then ``loaded``."""
        if view is not None and self.isVisible():  # a load that ends behind another tab must not overwrite its status
            self.status.emit(f"Comparison: {view.grid.shape[0]} tasks x {len(view.grid.sources)} sources, "
                             f"scorer {view.scorer or 'none'}")
        self.loaded.emit()

    def _size_columns(self) -> None:
        """Narrow task columns; each source column as wide as its name in the header (sort mark included),
        between SOURCE_WIDTH_PX's bounds, so a long name does not widen the grid past use (the user may
        resize them)."""
        for column, width in enumerate((80, 60, 200)):
            self.table.setColumnWidth(column, width)
        header = self.table.horizontalHeader()
        low, high = SOURCE_WIDTH_PX
        for column in range(len(TASK_COLUMNS), self.model.columnCount()):
            self.table.setColumnWidth(column, min(high, max(low, header.sectionSizeHint(column))))

    def _fill_combos(self, view: cv.ComparisonView | None) -> None:
        combos = ((self.category_combo, "category", "All categories"), (self.scenario_combo, "scenario",
                  "All scenarios"), (self.type_combo, "answer_type", "All answer types"))
        for combo, column, everything in combos:
            before = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(everything, _ALL)
            if view is not None and not view.grid.tasks.empty:
                for value in sorted(view.grid.tasks[column].astype(str).unique()):
                    combo.addItem(value, value)
            i = combo.findData(before) if before is not None else 0
            combo.setCurrentIndex(max(0, i))
            combo.blockSignals(False)
        self.scorer_combo.blockSignals(True)
        self.scorer_combo.clear()
        names = list(view.scorers) if view is not None else []
        if view is not None and view.scorer and view.scorer not in names:
            names.insert(0, view.scorer)
        for name in names:
            self.scorer_combo.addItem(name, name)
        if not names:
            self.scorer_combo.addItem("no scores yet", None)
        self.scorer_combo.setCurrentIndex(max(0, self.scorer_combo.findData(view.scorer) if view else 0))
        self.scorer_combo.blockSignals(False)
        self.proxy.category = self.category_combo.currentData()
        self.proxy.scenario = self.scenario_combo.currentData()
        self.proxy.answer_type = self.type_combo.currentData()

    def _set_enabled(self, on: bool) -> None:
        for w in (self.scorer_combo, self.category_combo, self.scenario_combo, self.type_combo, self.disagree_check,
                  self.wrong_check, self.flagged_check, self.evidence_combo, self.search_edit, self.refresh_button):
            w.setEnabled(on)
        self.score_button.setEnabled(self.project is not None)

    def _show_coverage(self, g: cv.GridData | None) -> None:
        """The line under the filters: each source's scored answers of the grid's tasks, the coverage warning and
        the judged answers the matchers decide otherwise (the whole grid, whatever the filters)."""
        total = g.shape[0] if g is not None else 0
        flagged = int(g.flag.sum()) if g is not None and total else 0
        shares = [n / t for _src, n, t in g.coverage() if t] if g is not None and total else []
        gap = (max(shares) - min(shares)) if shares else 0.0
        stale = g.stale_counts() if g is not None and total else {}
        self.coverage_label.setText(("Of the tasks in the grid: " + ", ".join(
            f"{src} {coverage.coverage_text(n, t, stale.get(src, 0))}" for src, n, t in g.coverage())
                                     + (f" · ⚠ coverage differs by {gap * 100:.0f} points (Summary)"
                                        if gap > coverage.COVERAGE_GAP + 1e-12 else "")
                                     + (f" · ⚑ {flagged} judged answers the matchers decide otherwise"
                                        if flagged else "")) if g and total else "")

    # ------------------------------------------------------------ filters
    def _apply_filters(self, *_args: object) -> None:
        self.proxy.set_filters(category=self.category_combo.currentData(), scenario=self.scenario_combo.currentData(),
                               answer_type=self.type_combo.currentData(), disagree=self.disagree_check.isChecked(),
                               wrong_only=self.wrong_check.isChecked(), flagged=self.flagged_check.isChecked(),
                               evidence=self.evidence_combo.currentData(), search=self.search_edit.text())
        self._update_count()

    def _update_count(self) -> None:
        total = self.model.rowCount()
        self.count_label.setText(f"{self.proxy.rowCount()} of {total} tasks" if total else "no answers yet")
        self.count_label.setToolTip("" if total else "Run a model in the Runs tab (Alt+3), or import answers made "
                                    "elsewhere (File ▸ Import answers…); then score them (Score…)")
        self.detail.text.setPlaceholderText(
            "Click a cell to see the answer, its score and the evidence." if total else
            "No answers to compare yet.\n\nRun a model on the tasks in the Runs tab (Alt+3), or import answers "
            "produced elsewhere (fieldstudio answers import P FILE --model NAME), then score them "
            "(Score… above, or fieldstudio score P).")

    # ------------------------------------------------------------ cells
    def _cell_at(self, proxy_index: QModelIndex) -> tuple[int, int] | None:
        """(grid row, source column) under a proxy index; None for a task column or nothing."""
        if not proxy_index.isValid():
            return None
        src = self.proxy.mapToSource(proxy_index)
        k = src.column() - len(TASK_COLUMNS)
        return (self.model.grid_row(src.row()), k) if k >= 0 else None

    def _current_cell_key(self) -> tuple[str, str] | None:
        cell = self._cell_at(self.table.currentIndex())
        g = self.model.grid
        if cell is None or g is None:
            return None
        return str(g.tasks.at[cell[0], "task_id"]), g.sources[cell[1]]

    def select_cell(self, task_id: str, source: str) -> bool:
        """Make (task, source) the current cell if it is shown; returns whether it is."""
        g = self.model.grid
        try:
            row, k = g.cell_of(task_id, source) if g is not None else (None, None)
        except KeyError:
            return False
        if row is None:
            return False
        proxy_index = self.proxy.mapFromSource(self.model.index(self.model.model_row(row), len(TASK_COLUMNS) + k))
        if not proxy_index.isValid():
            return False
        self.table.selectionModel().setCurrentIndex(proxy_index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        self.table.scrollTo(proxy_index)
        self._on_current(proxy_index, QModelIndex())
        return True

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        cell = self._cell_at(current)
        g = self.model.grid
        if cell is None or g is None or self.project is None or not g.present[cell]:
            self.detail.show_detail(None)
            return
        try:
            detail = cv.answer_detail(self.project, g.answer_id[cell], self.current_scorer())
            target = cv.media_target(self.project, detail)
        except FieldstudioError as exc:
            self.status.emit(str(exc))
            self.detail.show_detail(None)
            return
        self.detail.show_detail(detail, has_media=target is not None, scorer=self.current_scorer(),
                                matcher_note=g.matcher_note[cell], flagged=bool(g.flag[cell]), project=self.project)

    # ------------------------------------------------------------ actions
    def open_media(self) -> None:
        """Emit ``frames_seen`` and ``open_media_at`` for the answer shown (first frame the model saw)."""
        d = self.detail.detail
        if d is None or self.project is None:
            return
        target = cv.media_target(self.project, d)
        if target is None:
            self.status.emit("This task names no media in the project")
            return
        media_id, frame = target
        seen = sorted({int(f["frame_index"]) for f in d.frames
                       if f.get("media_id") == media_id and f.get("frame_index") is not None})
        self.frames_seen.emit(media_id, seen)
        self.open_media_at.emit(media_id, frame)

    def open_score_dialog(self) -> ScoreDialog | None:
        """Open the score dialog (non-blocking); the grid reloads as scores arrive and when scoring ends."""
        if self.project is None:
            return None
        dialog = ScoreDialog(self.project, self.current_scorer(), self)
        dialog.scores_written.connect(self.reload)
        dialog.status.connect(self.status)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog


def _load_with_text(project: Project, scorer: str | None, shown: cv.ComparisonView | None, shown_text: GridText,
                    shown_summary: SummaryTexts | None, *, progress: Progress,
                    cancelled: Cancelled) -> tuple[cv.ComparisonView, GridText, SummaryTexts | None]:
    """(the view of ``compare.views.load_view``, its grid's texts, its Summary's texts or None without a summary):
    all made in the worker, off the GUI thread. The view shown (``shown``, with ``shown_text`` and
    ``shown_summary``) when the project has not changed since (the same object)."""
    view = cv.load_view(project, scorer, progress=progress, cancelled=cancelled)
    if view is shown:
        return view, shown_text, shown_summary
    return view, grid_text(view.grid), None if view.summary.empty else summary_texts(view)
