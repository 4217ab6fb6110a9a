"""The task list of the task editor: a table model of the project's tasks and its filter.

Rows are ``tasks.records.TaskRow`` read in one query (``read_listing``, on a worker when a project is opened); the
model itself keeps the rows of one category and one answer type matching a search in id, question and ground truth
(``TaskTableModel.set_filter``), so the proxy in front of it (``TaskFilter``) asks nothing per row: at 100,000 tasks
Qt's call of a Python ``filterAcceptsRow`` per row took a quarter of a second on every reset.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor

from fieldstudio.media import inventory
from fieldstudio.core.garbage_collection import gc_paused
from fieldstudio.store.project import Project
from fieldstudio.tasks import ground_truth as gt
from fieldstudio.tasks import task_records as ts

TASK_ID_ROLE = Qt.ItemDataRole.UserRole + 1
COLUMNS = ("Id", "Category", "Type", "Scenario", "Question", "Ground truth", "")


@dataclass
class TaskListing:
    """What the task list shows of a project: ``rows`` (``task_records.list_tasks``), ``media`` (media id -> (file
    name, kind, frame count), by file name), ``pending`` (the ground-truth changes the annotations would make,
    ``ground_truth.pending_changes``, the ones that can be made) and the ``categories`` of the rows, sorted ("" for
    none)."""

    rows: list[ts.TaskRow] = field(default_factory=list)
    media: dict[str, tuple[str, str, int | None]] = field(default_factory=dict)
    pending: list[gt.GroundTruthChange] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)


def read_listing(project: Project, *, with_pending: bool = True, progress=None,  # noqa: ANN001
                 cancelled=None) -> TaskListing:  # noqa: ANN001 - a worker's callbacks
    """The :class:`TaskListing` of ``project``, without Qt (a worker reads it when a project is opened: 2-3 s at
    100,000 tasks). ``with_pending``: also look for pending ground-truth changes. The collector is paused while
    the rows are made (``gc_paused``): a full collection set off by 100,000 new rows held the interpreter lock,
    and the window's thread with it, for a quarter of a second."""
    with gc_paused():
        pending = [c for c in gt.pending_changes(project) if c.ok] if with_pending else []
        rows = ts.list_tasks(project)
        media = {c.id: (c.file_name, c.kind, c.frame_count) for c in inventory.media_choices(project)}
        categories = sorted({r.category or "" for r in rows})
    return TaskListing(rows, media, pending, categories)


def _kept(row: ts.TaskRow, category: str | None, answer_type: str | None, text: str) -> bool:
    if category is not None and (row.category or "") != category:
        return False
    if answer_type is not None and row.answer_type != answer_type:
        return False
    return not text or any(text in (v or "").casefold() for v in (row.external_id, row.query, row.ground_truth))


class TaskTableModel(QAbstractTableModel):
    """The project's tasks (``tasks.records.TaskRow``) that the filter keeps, one row each: ``rows`` (shown) of
    ``all_rows`` (every task)."""

    def __init__(self, parent=None):  # noqa: ANN001 - QObject
        super().__init__(parent)
        self.all_rows: list[ts.TaskRow] = []
        self.rows: list[ts.TaskRow] = []
        self._filter: tuple[str | None, str | None, str] = (None, None, "")

    def set_rows(self, rows: list[ts.TaskRow]) -> None:
        """Show ``rows`` (every task), within the filter."""
        self.beginResetModel()
        self.all_rows = rows
        self.rows = self._filtered()
        self.endResetModel()

    def set_filter(self, category: str | None, answer_type: str | None, text: str) -> None:
        """Keep the tasks of ``category`` and ``answer_type`` (None: any) whose id, question or ground truth contains
        ``text`` (case-insensitive)."""
        wanted = (category, answer_type, text.casefold().strip())
        if wanted == self._filter:
            return
        self.beginResetModel()
        self._filter = wanted
        self.rows = self._filtered()
        self.endResetModel()

    def _filtered(self) -> list[ts.TaskRow]:
        category, answer_type, text = self._filter
        if category is None and answer_type is None and not text:
            return self.all_rows
        return [r for r in self.all_rows if _kept(r, category, answer_type, text)]

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
    contains the search text (case-insensitive): the filter is the source model's (``TaskTableModel.set_filter``),
    so Qt never calls Python per row here."""

    def set_filter(self, category: str | None, answer_type: str | None, text: str) -> None:
        self.sourceModel().set_filter(category, answer_type, text)
