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

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QPainter, QPalette, QStaticText
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from fieldstudio.gui.panels.comparison_model import ComparisonTableModel

TEXT_MARGIN_PX = 3
"""Left and right of a cell's text, as Qt's styles leave (PM_FocusFrameHMargin + 1)."""
_PLAIN_MASK = QStyle.StateFlag.State_Selected | QStyle.StateFlag.State_HasFocus
_ELIDE = Qt.TextElideMode.ElideRight


class GridDelegate(QStyledItemDelegate):
    """Paints the cells of ``model`` shown through ``proxy``: the cell's background brush (score colour, grey,
    stale hatching; none without an answer), then its text elided on the right to the cell's width, from a cache
    of laid-out texts keyed by (grid row, column, width) and emptied whenever the model's data or rows change."""

    def __init__(self, proxy: QSortFilterProxyModel, model: ComparisonTableModel, parent: Any = None):
        super().__init__(parent)
        self._proxy, self._model = proxy, model
        self._texts: dict[tuple[int, int, int], QStaticText] = {}
        for signal in (model.modelReset, model.dataChanged, model.layoutChanged, model.rowsInserted,
                       model.rowsRemoved):
            signal.connect(self.forget)

    def forget(self, *_args: object) -> None:
        """Empty the cache of laid-out texts (the model's texts changed)."""
        self._texts.clear()

    def cached(self) -> int:
        """How many laid-out cell texts are kept."""
        return len(self._texts)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        state = option.state
        if state & _PLAIN_MASK:      # the selected and the current cells: Qt's highlight and focus frame
            super().paint(painter, option, index)
            return
        src = self._proxy.mapToSource(index)
        r, c = src.row(), src.column()
        text, brush = self._model.paint_data(r, c)
        rect = option.rect
        if brush is not None:
            painter.fillRect(rect, brush)
        if not text:
            return
        width = rect.width() - 2 * TEXT_MARGIN_PX
        key = (r, c, width)
        laid = self._texts.get(key)
        if laid is None:
            laid = QStaticText(option.fontMetrics.elidedText(text, _ELIDE, width))
            laid.setTextFormat(Qt.TextFormat.PlainText)
            laid.prepare(painter.transform(), option.font)
            self._texts[key] = laid
        group = (QPalette.ColorGroup.Normal if state & QStyle.StateFlag.State_Enabled
                 else QPalette.ColorGroup.Disabled)
        painter.setPen(option.palette.color(group, QPalette.ColorRole.Text))
        painter.setFont(option.font)
        painter.drawStaticText(rect.x() + TEXT_MARGIN_PX,
                               rect.y() + (rect.height() - option.fontMetrics.height()) // 2, laid)
