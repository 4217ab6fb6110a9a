"""The task list of the task editor: a table model of the project's tasks and its filter.

Rows are ``tasks.records.TaskRow`` read in one query; the filter keeps one category and one answer type and
searches id, question and ground truth, so thousands of tasks filter at once.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor

from fieldstudio.tasks import task_records as ts

TASK_ID_ROLE = Qt.ItemDataRole.UserRole + 1
COLUMNS = ("Id", "Category", "Type", "Scenario", "Question", "Ground truth", "")


class TaskTableModel(QAbstractTableModel):
    """The project's tasks (``tasks.records.TaskRow``), one row each."""

    def __init__(self, parent=None):  # noqa: ANN001 - QObject
        super().__init__(parent)
        self.rows: list[ts.TaskRow] = []

    def set_rows(self, rows: list[ts.TaskRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802, B008 - Qt override
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802, B008 - Qt override
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: ANN001, ANN201, N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: ANN201 - Qt
        if not index.isValid():
            return None
        r = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            flags = ("↔" if r.linked else "") + ("⚠" if r.missing_media else "")
            text = (r.external_id or "", r.category or "", ts.ANSWER_TYPES.get(r.answer_type, r.answer_type),
                    r.scenario or "", r.query, r.ground_truth or "—", flags)[col]
            return " ".join(text.split())[:200] if col in (4, 5) else text
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 6:
                tips = (["ground truth linked to annotations"] if r.linked else []) + (
                    ["names media that are not in the project"] if r.missing_media else [])
                return "; ".join(tips) or None
            if col in (4, 5):
                return (r.query if col == 4 else r.ground_truth)[:2000] if (r.query if col == 4 else r.ground_truth) else None
        if role == Qt.ItemDataRole.ForegroundRole and col == 5 and r.ground_truth is None:
            return QColor("#9aa0a6")
        if role == TASK_ID_ROLE:
            return r.id
        return None


class TaskFilter(QSortFilterProxyModel):
    """Keeps tasks of one category and one answer type (None: all) whose id, question or ground truth
    contains the search text (case-insensitive)."""

    def __init__(self, parent=None):  # noqa: ANN001 - QObject
        super().__init__(parent)
        self.category: str | None = None
        self.answer_type: str | None = None
        self.text = ""

    def set_filter(self, category: str | None, answer_type: str | None, text: str) -> None:
        self.beginFilterChange()
        self.category, self.answer_type, self.text = category, answer_type, text.casefold().strip()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, parent: QModelIndex) -> bool:  # noqa: N802 - Qt override
        r = self.sourceModel().rows[source_row]
        if self.category is not None and (r.category or "") != self.category:
            return False
        if self.answer_type is not None and r.answer_type != self.answer_type:
            return False
        if not self.text:
            return True
        return any(self.text in (v or "").casefold() for v in (r.external_id, r.query, r.ground_truth))
