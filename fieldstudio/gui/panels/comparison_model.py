"""Qt models of the comparison grid: tasks x sources over the dense arrays of ``comparison_view.GridData``.

``ComparisonTableModel.data()`` only indexes precomputed arrays and caches colours by score step, so 900 tasks
x 20 sources scroll smoothly; the texts of the cells (``grid_text``) are made with the view, off the GUI thread
(issue 37: opening the tab never stalls the window over 100 ms). ``ComparisonFilterProxy`` filters whole
tasks (category, scenario, answer type, "models disagree", "wrong only", text) from per-row arrays; a sort
(a header click) is made by the table model itself, from the same arrays (``ComparisonTableModel.sort``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6.QtCore import (QAbstractTableModel, QModelIndex, QPersistentModelIndex,
                            QSortFilterProxyModel, Qt)
from PySide6.QtGui import QBrush, QColor

from fieldstudio.compare.views import GridData

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
"""A cell's sort key, as ``ComparisonTableModel.sort`` orders the rows by it: the score (unscored -1, no answer -2)
for a source column, the text for a task column (the task's row for the Task column). The proxy does not sort by
it: the model sorts its own rows from the same arrays."""
VALUE_ROLE = Qt.ItemDataRole.UserRole + 2
"""The score as a float (NaN when unscored or absent) for a source column; None for a task column."""
TASK_COLUMNS = ("Task", "Category", "Ground truth")
GREY = QColor(214, 214, 214)
_DISPLAY = Qt.ItemDataRole.DisplayRole.value
_BACKGROUND = Qt.ItemDataRole.BackgroundRole.value
_TOOLTIP = Qt.ItemDataRole.ToolTipRole.value
_SORT = SORT_ROLE.value if hasattr(SORT_ROLE, "value") else int(SORT_ROLE)
_VALUE = VALUE_ROLE.value if hasattr(VALUE_ROLE, "value") else int(VALUE_ROLE)
_NTASK = 3
_STEPS = 100


def score_colour(fraction: float) -> QColor:
    """Red (0) -> amber (0.5) -> green (1) for a score as a fraction of its scale; grey for NaN.

    Light tones (dark text stays readable): (234,128,120) -> (255,214,110) -> (120,200,140).
    """
    if fraction is None or math.isnan(fraction):
        return QColor(GREY)
    f = min(1.0, max(0.0, float(fraction)))
    lo, mid, hi = (234, 128, 120), (255, 214, 110), (120, 200, 140)
    a, b, t = (lo, mid, f * 2) if f < 0.5 else (mid, hi, (f - 0.5) * 2)
    return QColor(*(round(x + (y - x) * t) for x, y in zip(a, b)))


def stale_brush() -> QBrush:
    """The background of a cell whose score is stale: grey diagonal hatching, never a score colour."""
    return QBrush(QColor(150, 150, 150), Qt.BrushStyle.BDiagPattern)


_SCORE_BRUSHES = ([QBrush(score_colour(i / _STEPS)) for i in range(_STEPS + 1)], QBrush(GREY), stale_brush())
"""(a brush per score step 0.._STEPS, the grey brush, the stale brush), made when the module is imported (on the
window's worker that imports the tabs' modules): 103 brushes made by each model cost the click that opens Compare
2-6 ms of the GUI thread."""


@dataclass(frozen=True)
class GridText:
    """What the grid shows as text, made once per load: per task its external id, category and ground truth (cut
    to 80 characters, one line), and ``cells`` (tasks x sources, object array) the text of each source cell."""

    external_ids: list[str]
    categories: list[str]
    ground_truths: list[str]
    cells: np.ndarray


def source_cell_text(grid: GridData, r: int, c: int) -> str:
    """A source cell's text: "⚑ ✎ 0.83 · short answer" ("⚑ " where the matchers and the judge disagree, "✎ "
    where a person set the score; "—" unscored, "stale (was 0.83)" for a stale score, "(failed)" for an answer that
    failed); "" with no answer."""
    if not grid.present[r, c]:
        return ""
    v = grid.value[r, c]
    score = "—" if math.isnan(v) else (f"{v:.2f}" if grid.scale <= 1 else f"{v:.0f}")
    if grid.stale[r, c] is not None:
        old = grid.stale_value[r, c]
        score = "stale" + ("" if math.isnan(old) else f" (was {old:.2f})" if grid.scale <= 1 else f" (was {old:.0f})")
    mark = ("⚑ " if grid.flag[r, c] else "") + ("✎ " if grid.overridden[r, c] else "")
    body = "(failed)" if grid.error[r, c] else grid.short[r, c]
    return f"{mark}{score} · {body}"


def grid_text(grid: GridData | None) -> GridText:
    """The texts of ``grid`` (see ``GridText``); plain Python and numpy, so a worker thread makes them while the
    window keeps painting. An empty GridText for None."""
    if grid is None:
        return GridText([], [], [], np.zeros((0, 0), object))
    n, k = grid.shape
    cells = np.empty((n, k), dtype=object)
    for r in range(n):
        for c in range(k):
            cells[r, c] = source_cell_text(grid, r, c)
    return GridText(grid.tasks["external_id"].astype(str).tolist(), grid.tasks["category"].astype(str).tolist(),
                    [" ".join(str(t).split())[:80] if t is not None else "" for t in grid.tasks["ground_truth"]],
                    cells)


class ComparisonTableModel(QAbstractTableModel):
    """Rows = tasks, columns = Task, Category, Ground truth, then one per source ("0.83 · short answer"; "⚑ "
    first where the deterministic matchers and the judge disagree, "✎ " where a person set the score; a stale
    score reads "stale (was 0.83)" on a hatched background, with the reason in its tooltip)."""

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self._grid: GridData | None = None
        self._text: np.ndarray = np.zeros((0, 0), object)
        self._brushes, self._grey, self._stale = _SCORE_BRUSHES
        self._gt: list[str] = []
        self._ext: list[str] = []
        self._cat: list[str] = []
        self._rows = self._cols = 0
        self._order: list[int] = []      # model row -> grid row (the rows in the sort's order)
        self._row_of: list[int] = []     # grid row -> model row
        self._sort: tuple[int, Qt.SortOrder] = (-1, Qt.SortOrder.AscendingOrder)

    # ------------------------------------------------------------ data in
    @property
    def grid(self) -> GridData | None:
        return self._grid

    @property
    def text(self) -> GridText:
        """The texts shown (``grid_text`` of ``grid``)."""
        return GridText(self._ext, self._cat, self._gt, self._text)

    def set_grid(self, grid: GridData | None, text: GridText | None = None) -> None:
        """Show ``grid`` with its texts ``text`` (``grid_text(grid)``, made here when not given). The same tasks and
        sources in the same order update in place (selection, scroll and sort survive); anything else resets
        the model."""
        same = (self._grid is not None and grid is not None and self._grid.sources == grid.sources
                and self._grid.tasks["task_id"].tolist() == grid.tasks["task_id"].tolist())
        if not same:
            self.beginResetModel()
        self._grid = grid
        text = text if text is not None else grid_text(grid)
        self._rows, self._cols = (0, 0) if grid is None else (grid.shape[0], _NTASK + len(grid.sources))
        self._ext, self._cat, self._gt, self._text = text.external_ids, text.categories, text.ground_truths, \
            text.cells
        if same:
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1))
            self._reorder()       # the sorted column's values may have changed (as Qt's dynamic sort did)
        else:
            self._order = self._sorted_order()
            self._row_of = _inverse(self._order)
            self.endResetModel()

    # ------------------------------------------------------------ rows and their order
    def grid_row(self, row: int) -> int:
        """The grid's row (``grid.tasks``, the arrays) shown at this model row."""
        return self._order[row]

    def model_row(self, grid_row: int) -> int:
        """The model row that shows the grid's row ``grid_row``."""
        return self._row_of[grid_row]

    @property
    def grid_rows(self) -> list[int]:
        """The grid's row of each model row, in order (the proxy's filter reads it)."""
        return self._order

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Show the rows sorted by ``column`` (-1: the grid's own order, by task id): the Task column in task-id
        order, Category and Ground truth as text, a source column by score with unscored answers below scored ones
        and absent answers below those; stable, as Qt's sort (equal keys keep the task-id order in both
        directions). One sort of 900 rows by Qt's proxy called ``data()`` from Python 35,000-130,000 times
        (200-460 ms of the GUI thread at load 5); this sorts the arrays (under 2 ms) and moves the rows."""
        self._sort = (column, order)
        self._reorder()

    def _sorted_order(self) -> list[int]:
        column, order = self._sort
        n = self._rows
        if column <= 0 or column >= self._cols:
            keys = np.arange(n)                       # build_grid gives the rows in task-id order
        elif column < _NTASK:
            texts = self._cat if column == 1 else self._gt
            return sorted(range(n), key=texts.__getitem__, reverse=order == Qt.SortOrder.DescendingOrder)
        else:
            g, k = self._grid, column - _NTASK
            keys = np.where(g.present[:, k], np.nan_to_num(g.value[:, k].astype(float), nan=-1.0), -2.0)
        if order == Qt.SortOrder.DescendingOrder:
            keys = -keys
        return np.argsort(keys, kind="stable").tolist()

    def _reorder(self) -> None:
        """Apply the sort to the rows: the layout changes and every persistent index (the selection, the current
        cell, the proxy's mapping) follows its task."""
        new = self._sorted_order() if self._grid is not None else []
        if new == self._order:
            return
        self.layoutAboutToBeChanged.emit()
        kept = self.persistentIndexList()
        grid_rows = [self._order[i.row()] for i in kept]
        self._order, self._row_of = new, _inverse(new)
        self.changePersistentIndexList(kept, [self.index(self._row_of[r], i.column())
                                              for r, i in zip(grid_rows, kept)])
        self.layoutChanged.emit()

    def update_cell(self, row: int, col: int, value: float, correct: float, overridden: bool,
                    score_id: str | None) -> None:
        """Change one source cell's score (grid row ``row``, source ``col``) in place (after a person's override)
        and repaint it."""
        g = self._grid
        g.value[row, col], g.correct[row, col], g.overridden[row, col] = value, correct, overridden
        g.score_id[row, col] = score_id
        g.stale[row, col] = None                 # a person's verdict now judged the answer as it is
        self._text[row, col] = source_cell_text(g, row, col)
        idx = self.index(self._row_of[row], len(TASK_COLUMNS) + col)
        self.dataChanged.emit(idx, idx)
        if self._sort[0] == len(TASK_COLUMNS) + col:
            self._reorder()

    def update_ground_truth(self, row: int, text: str) -> None:
        """Change one task's ground truth (grid row ``row``) in place (after a promotion) and repaint it."""
        self._grid.tasks.loc[row, "ground_truth"] = text
        self._gt[row] = " ".join(str(text).split())[:80]
        idx = self.index(self._row_of[row], 2)
        self.dataChanged.emit(idx, idx)
        if self._sort[0] == 2:
            self._reorder()

    # ------------------------------------------------------------ Qt interface
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._cols

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or self._grid is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return TASK_COLUMNS[section] if section < len(TASK_COLUMNS) else \
                self._grid.sources[section - len(TASK_COLUMNS)]
        if role == Qt.ItemDataRole.ToolTipRole and section >= len(TASK_COLUMNS):
            return f"answers and scores of {self._grid.sources[section - len(TASK_COLUMNS)]}; click to sort"
        return None

    def index(self, row: int, column: int,
              parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        # one Python call per index the proxy maps (Qt's own asked rowCount and columnCount from Python: two)
        if 0 <= row < self._rows and 0 <= column < self._cols and not parent.isValid():
            return self.createIndex(row, column)
        return QModelIndex()

    def paint_data(self, r: int, c: int) -> tuple[str, QBrush | None]:
        """(the text shown, the background brush or None) of the cell at grid row ``r`` (``grid_row``), column
        ``c`` (what ``data`` gives for DisplayRole and BackgroundRole; the paint's one call per cell)."""
        k = c - _NTASK
        if k < 0:
            return (self._ext[r], self._cat[r], self._gt[r])[c], None
        return self._text[r, k], self._background(r, k)

    def _background(self, r: int, k: int) -> QBrush | None:
        g = self._grid
        if not g.present[r, k]:
            return None
        if g.stale[r, k] is not None:
            return self._stale
        v = g.value[r, k]
        return self._grey if v != v else self._brushes[int(round(min(1.0, max(0.0, v / g.scale)) * _STEPS))]

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # called thousands of times per repaint: plain int roles and array lookups only
        if self._grid is None or not index.isValid():
            return None
        role = role.value if hasattr(role, "value") else role
        r, c = self._order[index.row()], index.column()
        k = c - _NTASK
        if role == _DISPLAY:
            return (self._ext[r], self._cat[r], self._gt[r])[c] if k < 0 else self._text[r, k]
        if k < 0:
            if role == _SORT:   # the rows come in task-id order (build_grid): a task's row is its rank
                return r if c == 0 else (self._cat[r], self._gt[r])[c - 1]
            if role == _TOOLTIP and c == 2:
                gt = self._grid.tasks.at[r, "ground_truth"]
                return None if gt is None else str(gt)[:2000]
            return None
        g = self._grid
        if role == _BACKGROUND:
            return self._background(r, k)
        if role == _SORT:
            if not g.present[r, k]:
                return -2.0
            v = g.value[r, k]
            return -1.0 if v != v else float(v)
        if role == _VALUE:
            return float(g.value[r, k])
        if role == _TOOLTIP and g.present[r, k]:
            note = g.matcher_note[r, k]
            why = g.stale[r, k]
            return (self._text[r, k] + ("\n(score set by a person)" if g.overridden[r, k] else "")
                    + (f"\nstale: {why}; left out of every summary until scored again (Score…)" if why else "")
                    + (f"\n⚑ {note}" if g.flag[r, k] else f"\n{note}" if note else ""))
        return None


class ComparisonFilterProxy(QSortFilterProxyModel):
    """Keeps the tasks that match every filter; a sort is passed to the table model (``sort``), which orders its
    own rows: this proxy never sorts (its ``sortColumn()`` stays -1).

    Filters: ``category``, ``scenario``, ``answer_type`` (None = any), ``disagree``, ``wrong_only``,
    ``flagged`` (a cell where the matchers and the judge disagree), ``evidence`` ("saw": some source was sent a
    frame of the ground truth's span; "never_saw": some source never was; ``compare.evidence``) and a
    case-insensitive ``search`` text
    matched in the task id, query, ground truth and answers.
    """

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self._rows_of: ComparisonTableModel | None = None
        self.category: str | None = None
        self.scenario: str | None = None
        self.answer_type: str | None = None
        self.disagree = False
        self.wrong_only = False
        self.flagged = False
        self.evidence: str | None = None   # "saw" / "never_saw": tasks some source saw / never saw the evidence of
        self.search = ""
        self._mask: np.ndarray | None = None

    def set_filters(self, **filters: Any) -> None:
        """Change any of category, scenario, answer_type, disagree, wrong_only, flagged, search and refilter."""
        for name, value in filters.items():
            if not hasattr(self, name) or name.startswith("_"):
                raise AttributeError(f"no filter {name!r}")
            setattr(self, name, value)
        self.refilter()

    def filters(self) -> tuple:
        """The filters set now (to tell whether they changed)."""
        return (self.category, self.scenario, self.answer_type, self.disagree, self.wrong_only, self.flagged,
                self.evidence, self.search)

    def prepare(self, grid: GridData | None) -> None:
        """Keep the rows of ``grid`` the filters keep, before the source model resets to it (its reset then filters
        once, with these rows)."""
        self._mask = self._kept(grid)

    def refilter(self) -> None:
        """Recompute the kept rows from the grid arrays (vectorised) and refresh the view."""
        model = self.sourceModel()
        self.beginFilterChange()
        self._mask = self._kept(model.grid if model is not None else None)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def _kept(self, grid: GridData | None) -> np.ndarray | None:
        """Per row of ``grid``, whether every filter keeps it; None keeps every row."""
        if grid is None or grid.shape[0] == 0:
            return None
        t = grid.tasks
        keep = np.ones(len(t), dtype=bool)
        for column, want in (("category", self.category), ("scenario", self.scenario),
                             ("answer_type", self.answer_type)):
            if want is not None:
                keep &= (t[column].astype(str) == want).to_numpy()
        if self.disagree:
            keep &= t["disagree"].to_numpy(dtype=bool)
        if self.wrong_only:
            keep &= t["wrong"].to_numpy(dtype=bool)
        if self.flagged and "flagged" in t:
            keep &= t["flagged"].to_numpy(dtype=bool)
        if self.evidence is not None and self.evidence in t:
            keep &= t[self.evidence].to_numpy(dtype=bool)
        needle = self.search.strip().lower()
        if needle:
            keep &= t["search"].str.contains(needle, regex=False).to_numpy(dtype=bool)
        return keep

    def setSourceModel(self, model: ComparisonTableModel) -> None:  # noqa: N802 - Qt API
        self._rows_of = model
        super().setSourceModel(model)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the table model's rows (``ComparisonTableModel.sort``; a header click calls this)."""
        if self._rows_of is not None:
            self._rows_of.sort(column, order)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        if self._mask is None:
            return True
        r = self._rows_of.grid_rows[source_row]
        return True if r >= self._mask.size else bool(self._mask[r])


def _inverse(order: list[int]) -> list[int]:
    """The inverse permutation of ``order`` (grid row -> model row)."""
    inverse = [0] * len(order)
    for i, r in enumerate(order):
        inverse[r] = i
    return inverse
