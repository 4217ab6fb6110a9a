"""The comparison grid's cell painter: each cell's text elided once to its column's width and kept laid out.

Qt's own item delegate lays a cell's whole text out at every paint (shaping 60-70 characters where 25 show) and
then shapes it again to elide it: most of the 35-55 ms of GUI-thread CPU a full paint of the 1036x832 grid took
(~300 cells; issue 37: the Compare tab opens without a stall over 100 ms), and every scroll or click repainted
them all again. ``GridDelegate`` keeps a ``QStaticText`` of each cell's elided text per column width, so a
repaint draws laid-out glyphs (5x less CPU in a repaint of the grid, measured offscreen) and asks the model one
Python call per cell (``ComparisonTableModel.paint_data``) instead of seven ``data()`` roles through the proxy.
Cells that are selected or current are painted by Qt's delegate as before (its highlight and focus frame).
"""

from __future__ import annotations

import itertools
from typing import Any

import shiboken6

from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette, QStaticText, QTransform
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTableView

from fieldstudio.gui.panels.comparison_model import ComparisonTableModel

TEXT_MARGIN_PX = 3
"""Left and right of a cell's text, as Qt's styles leave (PM_FocusFrameHMargin + 1)."""
_PLAIN_MASK = QStyle.StateFlag.State_Selected | QStyle.StateFlag.State_HasFocus
_ELIDE = Qt.TextElideMode.ElideRight
CELLS_PER_STEP = 80
"""Cells laid out in one step of ``lay_out_visible`` (~10 ms of GUI-thread CPU on a quiet machine)."""

MAX_KEPT_TEXTS = 8_000
"""Laid-out texts kept at most; past it the oldest quarter is dropped. A full screen of the grid is 200-600 cells,
and every cell of 886 tasks x 20 sources scrolled through at two column widths would be 35,440 texts (each a
QStaticText of a few hundred bytes to a few KB), kept for as long as the tab lives."""


class GridDelegate(QStyledItemDelegate):
    """Paints the cells of ``model`` shown through ``proxy``: the cell's background brush (score colour, grey,
    stale hatching; none without an answer), then its text elided on the right to the cell's width, from a cache
    of laid-out texts keyed by (grid row, column, width) (the grid's row, not the model's: a sort moves rows),
    emptied whenever the model's data or rows change and kept under ``MAX_KEPT_TEXTS``."""

    def __init__(self, proxy: QSortFilterProxyModel, model: ComparisonTableModel, parent: Any = None):
        super().__init__(parent)
        self._proxy, self._model = proxy, model
        self._texts: dict[tuple[int, int, int], QStaticText] = {}
        # keyed by the grid's row, the texts stay right through a sort (the model's layoutChanged)
        for signal in (model.modelReset, model.dataChanged, model.rowsInserted, model.rowsRemoved):
            signal.connect(self.forget)

    def forget(self, *_args: object) -> None:
        """Empty the cache of laid-out texts (the model's texts changed)."""
        self._texts.clear()

    def cached(self) -> int:
        """How many laid-out cell texts are kept."""
        return len(self._texts)

    def _laid(self, r: int, c: int, width: int, text: str, metrics: QFontMetrics, font: QFont,
              transform: QTransform) -> QStaticText:
        laid = self._texts.get((r, c, width))
        if laid is None:
            laid = QStaticText(metrics.elidedText(text, _ELIDE, width))
            laid.setTextFormat(Qt.TextFormat.PlainText)
            laid.prepare(transform, font)
            if len(self._texts) >= MAX_KEPT_TEXTS:      # dicts keep insertion order: the first are the oldest
                for key in list(itertools.islice(self._texts, max(1, MAX_KEPT_TEXTS // 4))):
                    del self._texts[key]
            self._texts[(r, c, width)] = laid
        return laid

    def lay_out_visible(self, table: QTableView, then: Callable[[], None], gap_ms: int) -> None:
        """Lay out the texts of the cells ``table`` shows now, ``CELLS_PER_STEP`` per event-loop turn, the first
        ``gap_ms`` from now and each ``gap_ms`` after the one before, then call ``then`` in the last turn (a load's
        first paint of the grid then draws laid-out texts: it took 44 ms of GUI-thread CPU in one paint at load
        8-11 when it laid them out itself). ``then`` is called even when the table's rows changed meanwhile.
        Which cells are shown is read in the first step: the headers' layout it asks for took 13 ms of the step
        that called this."""
        cells: list[tuple[int, int]] = []
        metrics, font = table.fontMetrics(), table.font()

        def step(start: int) -> None:
            if not shiboken6.isValid(table):
                return
            if start == 0:
                cells.extend(_shown_cells(table))
            for r, c in cells[start:start + CELLS_PER_STEP]:
                index = self._proxy.index(r, c)
                src = self._proxy.mapToSource(index)
                if not src.isValid():
                    continue
                r = self._model.grid_row(src.row())
                text, _brush = self._model.paint_data(r, src.column())
                if text:     # the width its paint is given (the column's less the grid line)
                    width = table.visualRect(index).width() - 2 * TEXT_MARGIN_PX
                    self._laid(r, src.column(), width, text, metrics, font, QTransform())
            if start + CELLS_PER_STEP < len(cells):
                QTimer.singleShot(gap_ms, table, lambda: step(start + CELLS_PER_STEP))
            else:
                then()

        QTimer.singleShot(gap_ms, table, lambda: step(0))

    def lay_out_after_sorts(self, table: QTableView, gap_ms: int) -> None:
        """After each sort of ``table`` by a header click, hold its paint until the texts of the cells it then
        shows are laid out (``lay_out_visible``'s steps, ``gap_ms`` apart): a sort by a source's score brings other
        tasks into view, and laying out their texts within the one paint stalled the window 420 ms at load 7."""
        pending: list[int] = []

        def sorted_(*_args: object) -> None:
            pending.append(1)
            table.setUpdatesEnabled(False)

            def laid() -> None:
                pending.pop()
                if not pending and shiboken6.isValid(table):
                    table.setUpdatesEnabled(True)

            self.lay_out_visible(table, laid, gap_ms)

        # connected after the view's own sort (setSortingEnabled): this runs once the rows are in their new order
        table.horizontalHeader().sortIndicatorChanged.connect(sorted_)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        state = option.state
        if state & _PLAIN_MASK:      # the selected and the current cells: Qt's highlight and focus frame
            super().paint(painter, option, index)
            return
        src = self._proxy.mapToSource(index)
        r, c = self._model.grid_row(src.row()), src.column()
        text, brush = self._model.paint_data(r, c)
        rect = option.rect
        if brush is not None:
            painter.fillRect(rect, brush)
        if not text:
            return
        laid = self._laid(r, c, rect.width() - 2 * TEXT_MARGIN_PX, text, option.fontMetrics, option.font,
                          painter.transform())
        group = (QPalette.ColorGroup.Normal if state & QStyle.StateFlag.State_Enabled
                 else QPalette.ColorGroup.Disabled)
        painter.setPen(option.palette.color(group, QPalette.ColorRole.Text))
        painter.setFont(option.font)
        painter.drawStaticText(rect.x() + TEXT_MARGIN_PX,
                               rect.y() + (rect.height() - option.fontMetrics.height()) // 2, laid)


def _shown_cells(table: QTableView) -> list[tuple[int, int]]:
    """(row, column) of every cell ``table`` shows now, in its model's (the proxy's) numbering."""
    header, rows = table.horizontalHeader(), table.verticalHeader()
    viewport = table.viewport()
    top, bottom = rows.logicalIndexAt(0), rows.logicalIndexAt(viewport.height() - 1)
    left, right = header.logicalIndexAt(0), header.logicalIndexAt(viewport.width() - 1)
    if top < 0 or left < 0:
        return []
    bottom = table.model().rowCount() - 1 if bottom < 0 else bottom
    right = table.model().columnCount() - 1 if right < 0 else right
    return [(r, c) for r in range(top, bottom + 1) for c in range(left, right + 1)]
