"""The annotation list: every mark of the media shown (or of the project) in a filterable table.

Columns: media, kind, label (with its colour), frame, PTS time ``HH:MM:SS.mmm``, a segment's end frame
and duration, track id, ruler length (metres through the calibration that applies now, else pixels
"(uncalibrated)"), attributes, and flags (an open segment; segments of one label that overlap). Rows
come from ``annotations.rows.annotation_rows``; a QAbstractTableModel behind a
QSortFilterProxyModel that filters by label and kind. Double-click or Enter emits ``jump``; Delete
deletes the selected rows through ``apply_edit(DeleteAnnotations(...))``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QHBoxLayout, QHeaderView, QLabel, QTableView,
                               QVBoxLayout, QWidget)

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.panels.edit_support import ERROR_STYLE, ApplyEdit, do_now, swatch

if TYPE_CHECKING:
    from fieldstudio.annotations import rows as views
    from fieldstudio.store.project import Project

COLUMNS = ("Media", "Kind", "Label", "Frame", "Time", "End / duration", "Track", "Measurement", "Attributes",
           "Flags")
(MEDIA_COL, KIND_COL, LABEL_COL, FRAME_COL, TIME_COL, END_COL, TRACK_COL, MEASURE_COL, ATTR_COL,
 FLAGS_COL) = range(len(COLUMNS))
ANNOTATION_ID_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2
LABEL_ID_ROLE = Qt.ItemDataRole.UserRole + 3
KIND_ROLE = Qt.ItemDataRole.UserRole + 4
ANY = "__any__"
UNLABELLED = "__unlabelled__"
OPEN_BRUSH = QBrush(QColor("#fff3cd"))
OVERLAP_BRUSH = QBrush(QColor("#f8d7da"))


def flags_text(row: views.AnnotationRow) -> str:
    """'open segment' and/or 'overlaps N' (segments of the same label sharing frames); else ''."""
    parts = ["open segment"] if row.open else []
    if row.overlaps:
        parts.append(f"overlaps {len(row.overlaps)}")
    return ", ".join(parts)


class AnnotationTableModel(QAbstractTableModel):
    """Read-only table of :class:`~fieldstudio.annotations.rows.AnnotationRow`."""

    def __init__(self, parent=None):  # noqa: ANN001 - QObject
        super().__init__(parent)
        self._rows: list[views.AnnotationRow] = []

    def set_rows(self, rows: list[views.AnnotationRow]) -> None:
        """Replace every row."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def row_at(self, row: int) -> views.AnnotationRow:
        """The AnnotationRow of model row ``row``."""
        return self._rows[row]

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole):  # noqa: ANN201
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: ANN201
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        r, col = row.record, index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, col)
        if role == SORT_ROLE:
            return self._sort_key(row, col)
        if role == ANNOTATION_ID_ROLE:
            return r.id
        if role == LABEL_ID_ROLE:
            return r.label_id
        if role == KIND_ROLE:
            return r.kind
        if role == Qt.ItemDataRole.DecorationRole and col == LABEL_COL and row.label_color:
            return swatch(row.label_color)
        if role == Qt.ItemDataRole.BackgroundRole and (row.open or row.overlaps):
            return OVERLAP_BRUSH if row.overlaps else OPEN_BRUSH
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, col)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (FRAME_COL, TRACK_COL, MEASURE_COL):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    @staticmethod
    def _text(row: views.AnnotationRow, col: int) -> str:
        r = row.record
        if col == MEDIA_COL:
            return row.media_name + ("" if row.media_status == "ok" else f" ({row.media_status})")
        if col == KIND_COL:
            return r.kind
        if col == LABEL_COL:
            return r.label_name or ""
        if col == FRAME_COL:
            return "" if r.frame_index is None else str(r.frame_index)
        if col == TIME_COL:
            return row.time_text
        if col == END_COL:
            return row.end_text
        if col == TRACK_COL:
            return "" if r.track_id is None else str(r.track_id)
        if col == MEASURE_COL:
            return row.measurement_text
        if col == ATTR_COL:
            return row.attributes_text
        return flags_text(row)

    @staticmethod
    def _sort_key(row: views.AnnotationRow, col: int):  # noqa: ANN205 - str or float
        r = row.record
        if col == FRAME_COL:
            return -1 if r.frame_index is None else r.frame_index
        if col == TIME_COL:
            return -1.0 if r.pts_seconds is None else r.pts_seconds
        if col == TRACK_COL:
            return -1 if r.track_id is None else r.track_id
        if col == MEASURE_COL:
            m = row.measurement
            return -1.0 if m is None else (m.metres if m.metres is not None else m.pixels)
        return AnnotationTableModel._text(row, col).lower()

    @staticmethod
    def _tooltip(row: views.AnnotationRow, col: int) -> str | None:
        if col == MEASURE_COL and row.measurement is not None:
            return row.measurement.how
        if col == FLAGS_COL and row.open:
            return "This segment was started (I) but not ended (O)"
        if col == FLAGS_COL and row.overlaps:
            return "Shares frames with another segment of the same label"
        if col == MEDIA_COL and row.media_status == "missing":
            return "The media's file is missing; its annotations stay (relink the file to see it)"
        return None


class AnnotationFilter(QSortFilterProxyModel):
    """Keeps rows of one label (or unlabelled, or any) and one kind (or any)."""

    def __init__(self, parent=None):  # noqa: ANN001
        super().__init__(parent)
        self.label = ANY
        self.kind = ANY
        self.setSortRole(SORT_ROLE)

    def set_filter(self, *, label: str | None = None, kind: str | None = None) -> None:
        """``label``: a label id, ANY or UNLABELLED; ``kind``: an annotation kind or ANY."""
        new_api = hasattr(self, "beginFilterChange")   # Qt 6.10+; invalidateFilter is deprecated there
        if new_api:
            self.beginFilterChange()
        if label is not None:
            self.label = label
        if kind is not None:
            self.kind = kind
        if new_api:
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:  # pragma: no cover - Qt < 6.10
            self.invalidateFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:  # noqa: N802
        r = self.sourceModel().row_at(source_row).record
        if self.kind != ANY and r.kind != self.kind:
            return False
        if self.label == UNLABELLED:
            return r.label_id is None
        return self.label == ANY or r.label_id == self.label


class AnnotationListPanel(QWidget):
    """The annotation list with label and kind filters and an "All media" switch.

    Signals: ``jump(media_id, frame_index or 0, annotation_id)`` on double-click or Enter;
    ``status(str)``; ``annotations_deleted(list)`` (ids) after Delete.
    Slots: :meth:`set_project`, :meth:`set_media`, :meth:`refresh`, :meth:`select_annotation`.
    """

    jump = Signal(str, int, str)
    status = Signal(str)
    annotations_deleted = Signal(list)

    def __init__(self, parent: QWidget | None = None, apply_edit: ApplyEdit | None = None):
        super().__init__(parent)
        self.project: Project | None = None
        self.media_id: str | None = None
        self._apply: ApplyEdit = apply_edit or do_now
        self.model = AnnotationTableModel(self)
        self.proxy = AnnotationFilter(self)
        self.proxy.setSourceModel(self.model)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(22)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.setToolTip("Double-click or Enter: go to the mark. Delete: delete the selected marks.")
        self.label_filter = QComboBox()
        self.label_filter.setToolTip("Show the marks of one label")
        self.kind_filter = QComboBox()
        self.kind_filter.addItem("All kinds", ANY)  # the kinds follow with the first project
        self.kind_filter.setToolTip("Show one kind of mark")
        self.all_media = QCheckBox("All media")
        self.all_media.setToolTip("List the marks of every media of the project, not only the one shown")
        self.summary = QLabel()
        self.summary.setObjectName("annotation_list_summary")

        top = QHBoxLayout()
        top.addWidget(self.label_filter, 1)
        top.addWidget(self.kind_filter)
        top.addWidget(self.all_media)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.summary)

        delete = QAction("Delete marks", self.view)
        delete.setShortcut(QKeySequence(Qt.Key.Key_Delete))
        delete.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        delete.triggered.connect(self.delete_selected)
        self.view.addAction(delete)
        self.view.activated.connect(self._activated)
        self.label_filter.currentIndexChanged.connect(self._filters_changed)
        self.kind_filter.currentIndexChanged.connect(self._filters_changed)
        self.all_media.toggled.connect(lambda _on: self.refresh())
        self._fill_labels()
        self.refresh()

    # -- wiring -------------------------------------------------------------------------------------
    def set_apply_edit(self, apply_edit: ApplyEdit | None) -> None:
        """Where edits go (the window's undo stack); None does them without undo."""
        self._apply = apply_edit or do_now

    def set_project(self, project: Project | None, labels: list | None = None) -> None:
        """Show ``project`` (no media until :meth:`set_media`, unless "All media" is on); ``labels``: its
        ``annotations.labels.list_labels``, read already on the open's worker (gui/opened_reads.py)."""
        if project is not None and self.kind_filter.count() == 1:
            from fieldstudio.annotations import annotation_records as ann

            for kind in ann.KINDS:
                self.kind_filter.addItem(kind, kind)
        self.project = project
        self.media_id = None
        self._fill_labels(labels)
        self.refresh(labels)

    def set_media(self, media_id: str | None) -> None:
        """The media shown in the viewer (None: nothing shown)."""
        self.media_id = media_id
        self.refresh()

    def refresh(self, labels: list | None = None) -> None:
        """Re-read the rows (after any edit, undo or redo, or a calibration change), keeping the selection;
        ``labels``: the project's labels, read already."""
        keep = set(self.selected_ids())
        self._fill_labels(labels)
        everything = self.all_media.isChecked()
        if self.project is None or (self.media_id is None and not everything):
            rows: list[views.AnnotationRow] = []
        else:
            from fieldstudio.annotations import rows as views

            rows = views.annotation_rows(self.project, None if everything else self.media_id)
        self.model.set_rows(rows)
        self.view.setColumnHidden(MEDIA_COL, not everything)
        for i in range(self.proxy.rowCount()):
            if self.proxy.index(i, 0).data(ANNOTATION_ID_ROLE) in keep:
                self.view.selectionModel().select(
                    self.proxy.index(i, 0), self.view.selectionModel().SelectionFlag.Select
                    | self.view.selectionModel().SelectionFlag.Rows)
        self._update_summary()

    def visible_ids(self) -> list[str]:
        """Annotation ids of the rows shown (after filtering), top to bottom."""
        return [self.proxy.index(i, 0).data(ANNOTATION_ID_ROLE) for i in range(self.proxy.rowCount())]

    def selected_ids(self) -> list[str]:
        """Annotation ids of the selected rows, top to bottom."""
        rows = sorted({i.row() for i in self.view.selectionModel().selectedRows()})
        return [self.proxy.index(r, 0).data(ANNOTATION_ID_ROLE) for r in rows]

    def select_annotation(self, annotation_id: str) -> bool:
        """Select and show the row of ``annotation_id`` (e.g. when the canvas selects a mark)."""
        for i in range(self.proxy.rowCount()):
            index = self.proxy.index(i, 0)
            if index.data(ANNOTATION_ID_ROLE) == annotation_id:
                self.view.selectRow(i)
                self.view.scrollTo(index)
                return True
        return False

    def set_label_filter(self, label: str) -> None:
        """Show one label (a label id), UNLABELLED or ANY, as choosing it in the combo does."""
        self.label_filter.setCurrentIndex(max(0, self.label_filter.findData(label)))

    def set_kind_filter(self, kind: str) -> None:
        """Show one kind or ANY, as choosing it in the combo does."""
        self.kind_filter.setCurrentIndex(max(0, self.kind_filter.findData(kind)))

    # -- actions ------------------------------------------------------------------------------------
    def delete_selected(self) -> None:
        """Delete the selected marks in one undoable edit."""
        from fieldstudio.annotations.edits import DeleteAnnotations

        ids = self.selected_ids()
        if not ids or self.project is None:
            return
        try:
            self._apply(DeleteAnnotations(self.project, ids))
        except FieldstudioError as exc:
            self.summary.setStyleSheet(ERROR_STYLE)
            self.summary.setText(str(exc))
            self.status.emit(str(exc))
            return
        self.view.clearSelection()
        self.refresh()
        self.status.emit(f"Deleted {len(ids)} mark(s); Ctrl+Z brings them back")
        self.annotations_deleted.emit(ids)

    def _activated(self, index: QModelIndex) -> None:
        source = self.model.row_at(self.proxy.mapToSource(index).row()).record
        self.jump.emit(source.media_id, source.frame_index or 0, source.id)

    def _filters_changed(self) -> None:
        self.proxy.set_filter(label=self.label_filter.currentData() or ANY, kind=self.kind_filter.currentData() or ANY)
        self._update_summary()

    def _fill_labels(self, records: list | None = None) -> None:
        current = self.label_filter.currentData() or ANY
        self.label_filter.blockSignals(True)
        self.label_filter.clear()
        self.label_filter.addItem("All labels", ANY)
        self.label_filter.addItem("Unlabelled", UNLABELLED)
        if self.project is not None:
            from fieldstudio.annotations import labels as label_store

            for lab in records if records is not None else label_store.list_labels(self.project):
                self.label_filter.addItem(swatch(lab.color), lab.name, lab.id)
        self.label_filter.setCurrentIndex(max(0, self.label_filter.findData(current)))
        self.label_filter.blockSignals(False)
        self.proxy.set_filter(label=self.label_filter.currentData() or ANY)

    def _update_summary(self) -> None:
        total, shown = self.model.rowCount(), self.proxy.rowCount()
        rows = [self.model.row_at(i) for i in range(total)]
        n_open = sum(1 for r in rows if r.open)
        n_overlap = sum(1 for r in rows if r.overlaps)
        text = f"{shown} of {total} marks shown"
        if n_open:
            text += f"; {n_open} open segment(s)"
        if n_overlap:
            text += f"; {n_overlap} overlapping segment(s)"
        self.summary.setStyleSheet(ERROR_STYLE if (n_open or n_overlap) else "")
        self.summary.setText(text)
