"""The comparison summary: categories x sources table (the headline mean with its 95 % bootstrap interval,
scored / total tasks, the mean of the scored answers), the coverage of each source with the coverage
warnings (``compare.coverage``), the matplotlib plots embedded with the QtAgg canvas, each exportable
as PNG or SVG, and the cost per correct answer with the cost-accuracy frontier (``compare.cost_per_correct``).

The numbers come from ``comparison_view.category_cells`` (i.e. ``comparison.group_summary`` and
``source_summary``); the figures from ``compare.plots`` and ``comparison_view.category_bars``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QFont, QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from fieldstudio.compare import cost_per_correct, coverage, evidence, plots
from fieldstudio.compare.coverage import MIN_INTERVAL_N, N_TOO_SMALL, answered_text
from fieldstudio.compare.views import ComparisonView, category_bars, cell_text
from fieldstudio.gui import workers
from fieldstudio.gui.panels.comparison_model import VALUE_ROLE, score_colour

N_ROLE = Qt.ItemDataRole.UserRole + 3
"""The number of scored answers behind a summary cell (int)."""
TOTAL_ROLE = Qt.ItemDataRole.UserRole + 4
"""The number of tasks behind a summary cell (int): the coverage's denominator."""
SCORED_MEAN_ROLE = Qt.ItemDataRole.UserRole + 5
"""The mean over the scored answers of a summary cell (float; ``VALUE_ROLE`` holds the headline mean)."""


def _role(role: Any) -> int:
    return role.value if hasattr(role, "value") else int(role)


_DISPLAY, _BACKGROUND, _FONT, _TOOLTIP = (_role(r) for r in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole,
                                                             Qt.ItemDataRole.FontRole, Qt.ItemDataRole.ToolTipRole))
_VALUE, _N, _TOTAL, _SCORED_MEAN = (_role(r) for r in (VALUE_ROLE, N_ROLE, TOTAL_ROLE, SCORED_MEAN_ROLE))


def _float(v: Any) -> float:
    try:
        return math.nan if v is None else float(v)
    except (TypeError, ValueError):
        return math.nan



class SummaryTableModel(QAbstractTableModel):
    """Rows = categories then "all", columns = sources; cells '0.738 [0.595–0.857] 31/42 scored · of scored
    1.000': the headline mean (unscored counted as ``coverage.unscored_rule`` says) with its interval and
    the coverage, then the mean over the scored answers."""

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.categories: list[str] = []
        self.sources: list[str] = []
        self._cells: dict[tuple[int, int], dict[str, Any]] = {}
        self._texts: dict[tuple[int, int], str] = {}       # a cell's text and brush, made on first use
        self._brushes: dict[tuple[int, int], QBrush] = {}
        self._bold = QFont()
        self._bold.setBold(True)
        self._scale = 1.0
        self.rule_text = ""

    def set_cells(self, cells: pd.DataFrame, scale: float = 1.0, rule_text: str = "") -> None:
        """Show the long frame of ``comparison_view.category_cells``; ``rule_text`` says how the headline
        counts unscored answers (``coverage.UnscoredRule.text``)."""
        self.beginResetModel()
        self.rule_text = rule_text
        cats = [c for c in dict.fromkeys(cells["category"].astype(str)) if c != "all"]
        self.categories = cats + (["all"] if (cells["category"] == "all").any() else [])
        self.sources = sorted(cells["source"].astype(str).unique().tolist())
        ri = {c: i for i, c in enumerate(self.categories)}
        ci = {s: j for j, s in enumerate(self.sources)}
        self._cells = {(ri[str(r.category)], ci[str(r.source)]): r._asdict() for r in cells.itertuples(index=False)}
        self._texts.clear()
        self._brushes.clear()
        self._scale = scale
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.categories)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.sources)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        return self.sources[section] if orientation == Qt.Orientation.Horizontal else self.categories[section]

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # the headers' ResizeToContents ask every cell for ~14 roles at each reset: int roles, and the text and
        # brush of a cell made once (a QBrush per call and enum comparisons made the Summary's first showing
        # 20-30 ms of the GUI thread on a quiet machine)
        if not index.isValid():
            return None
        role = role.value if hasattr(role, "value") else role
        key = (index.row(), index.column())
        cell = self._cells.get(key)
        if cell is None:
            return "no answers" if role == _DISPLAY else None
        if role == _DISPLAY:
            text = self._texts.get(key)
            if text is None:
                scored = _float(cell["mean"])
                text = self._texts[key] = (
                    cell_text(_float(cell["headline"]), cell["headline_ci_low"], cell["headline_ci_high"], cell["n"],
                              cell["total"]) + ("" if math.isnan(scored) else f" · of scored {scored:.3f}"))
            return text
        if role == _BACKGROUND:
            brush = self._brushes.get(key)
            if brush is None:
                brush = self._brushes[key] = QBrush(score_colour(_float(cell["headline"]) / self._scale))
            return brush
        if role == _FONT:
            return self._bold if self.categories[index.row()] == "all" else None
        if role == _VALUE:
            return _float(cell["headline"])
        if role == _SCORED_MEAN:
            return _float(cell["mean"])
        if role == _TOTAL:
            return int(cell["total"])
        if role == _N:
            return int(cell["n"])
        if role == _TOOLTIP:
            mean = _float(cell["headline"])
            acc = cell.get("accuracy")
            acc_text = "—" if acc is None or (isinstance(acc, float) and math.isnan(acc)) else f"{acc:.3f}"
            scored = _float(cell["mean"])
            return (f"{self.sources[index.column()]}, {self.categories[index.row()]}: headline mean "
                    f"{cell_text(mean, cell['headline_ci_low'], cell['headline_ci_high'], cell['n'], cell['total'])}"
                    f"\n({self.rule_text})"
                    f"\nmean of the scored answers {cell_text(scored, cell['ci_low'], cell['ci_high'], cell['n'])}"
                    f"\n{int(cell['total'])} tasks in scope: "
                    f"{answered_text(cell['answers'], cell['total'], cell['n'], cell.get('stale', 0))}; "
                    f"accuracy of scored {acc_text}"
                    "\n95 % bootstrap interval over tasks resampled within each category, the same resampled "
                    f"tasks for every cell; 2,000 resamples, seeded; none below {MIN_INTERVAL_N} scored")
        return None


class PlotTab(QWidget):
    """One matplotlib figure in a Qt canvas with an "Export PNG/SVG…" button."""

    def __init__(self, name: str, make: Callable[[ComparisonView], Figure], status: Signal,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.name, self.make, self.status = name, make, status
        self.figure: Figure | None = None
        self._view: ComparisonView | None = None
        self._dirty = False
        self.canvas: FigureCanvasQTAgg | None = None
        self.export_button = QPushButton("Export PNG/SVG…")
        self.export_button.setToolTip(f"Save the {name} plot as a PNG or SVG file")
        self.export_button.clicked.connect(lambda: self.export())
        self.export_button.setEnabled(False)
        bar = QHBoxLayout()
        bar.addStretch(1)
        bar.addWidget(self.export_button)
        self._layout = QVBoxLayout(self)
        self._layout.addLayout(bar)
        self._placeholder = QLabel("no data")
        self._layout.addWidget(self._placeholder, 1)

    def set_view(self, view: ComparisonView | None) -> None:
        """Redraw from ``view`` (None clears); drawn now when the tab is shown, else when it is next shown."""
        self._view, self._dirty = view, True
        self.export_button.setEnabled(view is not None)
        if self.isVisible():
            self._draw()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._dirty:
            self._draw()

    def _draw(self) -> None:
        self._dirty = False
        if self.canvas is not None:
            self._layout.removeWidget(self.canvas)
            self.canvas.setParent(None)
            self.canvas.deleteLater()
            self.canvas = None
        self.figure = self.make(self._view) if self._view is not None else None
        self._placeholder.setVisible(self.figure is None)
        if self.figure is not None:
            self.canvas = FigureCanvasQTAgg(self.figure)
            self._layout.addWidget(self.canvas, 1)
            self.canvas.show()                   # added while the tab is visible: show it explicitly
            self.canvas.draw_idle()
        self.export_button.setEnabled(self.figure is not None)

    def export(self, path: str | Path | None = None) -> Path | None:
        """Save the figure as PNG or SVG (format from the suffix); asks for the file when ``path`` is None."""
        if self._dirty:
            self._draw()
        if self.figure is None:
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, f"Export the {self.name} plot", f"{self.name.replace(' ', '_')}.png",
                                                  "PNG image (*.png);;SVG image (*.svg)")
            if not path:
                return None
        path = Path(path)
        if path.suffix.lower() not in (".png", ".svg"):
            path = path.with_suffix(".png")
        try:
            plots.save_figure(self.figure, path)
        except (OSError, ValueError) as exc:
            self.status.emit(f"Could not export {path.name}: {exc}")
            return None
        self.status.emit(f"Exported {path}")
        return path


def _cost_tables(answers: pd.DataFrame, *, progress, cancelled) -> cost_per_correct.CostTables:  # noqa: ANN001
    return cost_per_correct.cost_tables(answers)


class CostPerCorrectTab(QWidget):
    """The table of cost per correct answer (source, category) above the frontier plot (with its Export button)."""

    def __init__(self, status: Signal, parent: QWidget | None = None):
        super().__init__(parent)
        self._view: ComparisonView | None = None
        self._tables: cost_per_correct.CostTables | None = None
        self._dirty = False
        self.worker: workers.Worker | None = None
        self.note = QLabel(cost_per_correct.NOTE)
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.table = QTableWidget(0, 0)
        self.table.setObjectName("cost_per_correct")
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.frontier = PlotTab("cost frontier", self._frontier, status)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.frontier)
        split.setSizes([250, 400])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.note)
        layout.addWidget(split, 1)

    def set_view(self, view: ComparisonView | None) -> None:
        """Show ``view``'s costs (None clears); computed when the tab is shown, on a worker (the bootstrap of 886 tasks
        x 10 sources takes about a second), then the table and the frontier are filled on the GUI thread."""
        self._view, self._tables, self._dirty = view, None, True
        if self.isVisible():
            self._fill()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._dirty:
            self._fill()

    def _frontier(self, view: ComparisonView):  # noqa: ANN202 - a matplotlib Figure
        return plots.cost_frontier(self._tables.by_source, scorer_label=view.scorer_label)

    def _fill(self) -> None:
        self._dirty = False
        view = self._view
        if view is None or view.answers.empty:
            self._show(view, None)
            return
        worker = workers.Worker(_cost_tables, view.answers)
        worker.signals.result.connect(lambda tables, v=view: self._show(v, tables))
        self.worker = workers.start(worker)

    def _show(self, view: ComparisonView | None, tables: cost_per_correct.CostTables | None) -> None:
        if view is not self._view:                  # a newer view came while this one was computed
            return
        self._tables = tables
        shown = None if tables is None else tables.display()
        self.table.setRowCount(0 if shown is None else len(shown))
        if shown is not None:
            self.table.setColumnCount(len(shown.columns))
            self.table.setHorizontalHeaderLabels([str(c) for c in shown.columns])
            for r, row in enumerate(shown.itertuples(index=False)):
                for c, value in enumerate(row):
                    self.table.setItem(r, c, QTableWidgetItem(str(value)))
            self.table.resizeColumnsToContents()
        self.frontier.set_view(view if shown is not None else None)

    def cell(self, source: str, category: str = "all") -> str:
        """The cost per correct a user reads for ``source`` (and ``category``); KeyError when there is none."""
        heads = [self.table.horizontalHeaderItem(c).text() for c in range(self.table.columnCount())]
        for r in range(self.table.rowCount()):
            if self.table.item(r, 0).text() == source and self.table.item(r, 1).text() == category:
                return self.table.item(r, heads.index("cost per correct [95 % interval]")).text()
        raise KeyError((source, category))


class SummaryPanel(QWidget):
    """Summary tab: the categories x sources table, three plots (score against cost, per-category bars,
    score distributions) and the cost per correct answer with the cost-accuracy frontier. ``set_view(view)`` fills it; ``status`` carries messages for the status bar."""

    status = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.view: ComparisonView | None = None
        self.caption = QLabel("")
        self.caption.setWordWrap(True)
        self.coverage_label = QLabel("")
        self.coverage_label.setObjectName("coverage")
        self.coverage_label.setWordWrap(True)
        self.coverage_label.setTextFormat(Qt.TextFormat.PlainText)
        # the benchmark's own figure as its tool prints it, named apart from the headline in the table
        self.official_label = QLabel("")
        self.official_label.setObjectName("official")
        self.official_label.setWordWrap(True)
        self.official_label.setTextFormat(Qt.TextFormat.PlainText)
        # accuracy split by whether the model was sent a frame of the ground truth's moment (compare.evidence)
        self.evidence_label = QLabel("")
        self.evidence_label.setObjectName("evidence_split")
        self.evidence_label.setWordWrap(True)
        self.evidence_label.setTextFormat(Qt.TextFormat.PlainText)
        self.table_model = SummaryTableModel(self)
        self.table = QTableView()
        self.table.setModel(self.table_model)
        self.table.setWordWrap(False)
        self._fit(True)
        self.tabs = QTabWidget()
        table_page = QWidget()
        tl = QVBoxLayout(table_page)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.caption)
        tl.addWidget(self.coverage_label)
        tl.addWidget(self.official_label)
        tl.addWidget(self.table, 1)
        tl.addWidget(self.evidence_label)
        self.tabs.addTab(table_page, "Table")
        self.plots = {
            "score against cost": PlotTab("score against cost",
                                          lambda v: plots.cost_vs_score(v.summary, scorer_label=v.scorer_label),
                                          self.status),
            "by category": PlotTab("by category", lambda v: category_bars(v.by_category), self.status),
            "distribution": PlotTab("score distribution", lambda v: plots.score_distribution(
                v.answers, v.summary, scorer_label=v.scorer_label), self.status),
        }
        for title, tab in self.plots.items():
            self.tabs.addTab(tab, title.capitalize())
        self.costs = CostPerCorrectTab(self.status)
        self.tabs.addTab(self.costs, "Cost per correct")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)

    def set_view(self, view: ComparisonView | None, texts: SummaryTexts | None = None, *, fit: bool = True) -> None:
        """Show the summaries of ``view`` (None clears) with ``texts`` (``summary_texts(view)``, made here when not
        given: a worker makes them so that the window's thread only sets them). ``fit=False`` leaves the table's
        columns and rows unfitted to their contents until :meth:`fit_columns` (a step of its own: fitting 8 x 20
        cells took 20 ms of the 30 ms of filling an empty table on a quiet machine)."""
        if not fit:
            self._fit(False)
        self.view = view
        if view is None or view.summary.empty:
            self.table_model.set_cells(pd.DataFrame(columns=["category", "source", "n", "total", "answers", "headline",
                                                             "headline_ci_low", "headline_ci_high", "mean", "ci_low",
                                                             "ci_high", "accuracy", "interval_note"]))
            self.caption.setText("No answers to summarise.")
            self.coverage_label.setText("")
            self.official_label.setText("")
            self.evidence_label.setText("")
        else:
            texts = texts or summary_texts(view)
            self.table_model.set_cells(texts.cells, view.grid.scale, texts.rule)
            self.caption.setText(texts.caption)
            self.coverage_label.setText(texts.coverage)
            self.official_label.setText(texts.official)
            self.evidence_label.setText(texts.evidence)
        for tab in self.plots.values():
            tab.set_view(view if view is not None and not view.summary.empty else None)
        self.costs.set_view(view if view is not None and not view.summary.empty else None)

    def fit_columns(self) -> None:
        """Fit the table's columns and rows to their contents again (after ``set_view(..., fit=False)``)."""
        self._fit(True)

    def _fit(self, on: bool) -> None:
        mode = QHeaderView.ResizeMode.ResizeToContents if on else QHeaderView.ResizeMode.Interactive
        for header in (self.table.horizontalHeader(), self.table.verticalHeader()):
            header.setSectionResizeMode(mode)

    def cell(self, category: str, source: str) -> tuple[str, float, int]:
        """(text shown, headline mean, n scored) of a cell, as a user reads it. Raises ValueError for an unknown
        row/column."""
        m = self.table_model
        idx = m.index(m.categories.index(category), m.sources.index(source))
        return m.data(idx), float(m.data(idx, VALUE_ROLE)), int(m.data(idx, N_ROLE))


@dataclass(frozen=True)
class SummaryTexts:
    """What the Summary tab shows of a view besides its plots: ``cells`` (``ComparisonView.category_cells``),
    ``rule`` (how the headline counts unscored answers), the ``caption``, and the ``coverage``, ``official`` and
    ``evidence`` lines (``coverage_line``, ``official_line``, ``evidence_text``)."""

    cells: pd.DataFrame
    rule: str
    caption: str
    coverage: str
    official: str
    evidence: str


def summary_texts(view: ComparisonView) -> SummaryTexts:
    """The :class:`SummaryTexts` of a view with a summary; no Qt, so a worker makes them (pandas work of 20-60 ms
    on two loaded cores at 900 tasks x 20 sources that the window's thread did before)."""
    rule = coverage.unscored_rule(view.scorer)
    caption = (f"{view.scorer_label} — headline mean per category ({rule.text}) with its 95 % bootstrap interval "
               "(tasks resampled within each category, the same resampled tasks for every cell, 2,000 resamples, "
               f"seeded; none below {MIN_INTERVAL_N} scored: {N_TOO_SMALL}), scored / total tasks, and the mean "
               "over the scored answers.")
    return SummaryTexts(view.category_cells(), rule.text, caption, coverage_line(view.summary),
                        official_line(view.summary), evidence_text(view.evidence_split))


def official_line(summary: pd.DataFrame) -> str:
    """One line a source with its benchmark's official figure ('alpha: official FieldWorkArena correctRate 0.5149
    over 837 answered (...)'); '' when the scorer's benchmark has no tool of its own."""
    if "official_figure" not in summary:
        return ""
    return "\n".join(f"{src}: {text}" for src, text in summary["official_figure"].items() if text)


def evidence_text(split: pd.DataFrame) -> str:
    """'Accuracy by evidence coverage (...)' and one line per source (``evidence.split_lines``); '' when no task's
    ground truth names a frame or time of a video."""
    if split.empty or set(split["evidence"]) == {evidence.NO_EVIDENCE}:
        return ""
    return "\n".join(["Accuracy by evidence coverage (saw: a frame sent lies in the ground truth's span):",
                      *evidence.split_lines(split)])


def coverage_line(summary: pd.DataFrame) -> str:
    """'Coverage: careful 31/42 scored, guesser 40/42 scored (41 answered, 1 missing)' over the tasks in
    scope (missing: tasks of the scope the source did not answer, said only when there are some), and a
    'Warning: ...' line when the coverages differ by more than 5 points (``coverage.coverage_warnings``)."""
    parts = [f"{src} {coverage.coverage_text(r['n'], r['total'], r.get('stale', 0))}"
             + (f" ({int(r['answers'])} answered, {int(r['missing'])} missing)" if r.get("missing", 0) else "")
             for src, r in summary.iterrows()]
    lines = ["Coverage: " + ", ".join(parts)] if parts else []
    lines += [f"Warning: {w}" for w in coverage.coverage_warnings(summary)]
    return "\n".join(lines)


__all__ = ["SummaryPanel", "SummaryTableModel", "PlotTab", "N_ROLE", "TOTAL_ROLE", "SCORED_MEAN_ROLE",
           "SummaryTexts", "summary_texts", "coverage_line", "official_line", "evidence_text"]
