"""The Behaviour dock's list of coded events as a Qt table model that changes one row at a time.

A key press while coding touches one or two events of the thousands an hour holds; the model takes those rows
(:meth:`EventTableModel.update`) and inserts, changes or removes only them, so the view repaints what changed and
never re-creates every cell. Rows are in the order of ``behaviour_events.list_events`` (start frame, then
creation): an event read again after an edit goes after the events already on its start frame, as the newest.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from fieldstudio.gui.imaging import format_pts

if TYPE_CHECKING:
    from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent

EVENT_COLUMNS = ("Start", "Stop", "Subject", "Behaviour", "Modifiers", "Coder")
EVENT_ID_ROLE = Qt.ItemDataRole.UserRole


CLOCK_TIP = ("(clock): coded while libVLC played, and the picture shown at the key press matched no frame near "
             "the playback clock's estimate (libVLC gives no time stamp): the frame is that estimate, perhaps a few "
             "frames off; step to the right frame and edit it")


def event_cells(e: BehaviourEvent) -> tuple[str, ...]:
    """The texts of ``e``'s row, one per column of ``EVENT_COLUMNS`` (start and stop as frame and PTS time; a frame
    left on the playback clock's estimate says "(clock)")."""
    def mark(found: str) -> str:  # right after the frame: a narrow column elides the time, not the mark
        return " (clock)" if found == "clock" else ""

    stop = "running" if e.is_open else f"{e.end_frame_index}{mark(e.end_frame_found)}  {format_pts(e.stop_s)}"
    return (f"{e.frame_index}{mark(e.frame_found)}  {format_pts(e.start_s)}", "" if e.type == "point" else stop,
            e.subject, e.behaviour, ", ".join(e.modifiers), e.coder)


class EventTableModel(QAbstractTableModel):
    """Rows: the events of one video (``events``, read-only outside). ``set_events`` replaces them all;
    ``update(ids, read)`` applies one edit's rows."""

    def __init__(self, parent=None):  # noqa: ANN001 - QObject | None
        super().__init__(parent)
        self.events: list[BehaviourEvent] = []
        self._frames: list[int] = []  # each row's start frame (bisect keys, kept with ``events``)

    # --- Qt --------------------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.events)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(EVENT_COLUMNS)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: ANN201
        if not index.isValid() or not 0 <= index.row() < len(self.events):
            return None
        e = self.events[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return event_cells(e)[index.column()]
        if role == EVENT_ID_ROLE:
            return e.id
        if role == Qt.ItemDataRole.ToolTipRole and index.column() in (0, 1):
            return CLOCK_TIP if (e.frame_found, e.end_frame_found)[index.column()] == "clock" else None
        if role == Qt.ItemDataRole.ToolTipRole and index.column() in (2, 3):  # whole where a narrow dock elides it
            return event_cells(e)[index.column()] or None
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole):  # noqa: ANN201
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return EVENT_COLUMNS[section]
        return None

    # --- changes ---------------------------------------------------------------------------------
    def set_events(self, events: list[BehaviourEvent]) -> None:
        """All the rows at once (another video, or an edit that does not name its rows)."""
        self.beginResetModel()
        self.events = list(events)
        self._frames = [e.frame_index for e in self.events]
        self.endResetModel()

    def row_of(self, event_id: str) -> int | None:
        """The row of ``event_id``, or None."""
        return next((r for r, e in enumerate(self.events) if e.id == event_id), None)

    def update(self, ids: Iterable[str], read: list[BehaviourEvent]) -> set[str]:
        """Apply one edit: ``ids`` are the rows it touched, ``read`` those of them that are live events of this
        video as read now (an id missing from ``read`` was deleted or undone). An event whose start frame is
        unchanged is changed in place; one that moved is taken out and put back in order. Returns the subjects
        whose events changed (before and after the edit: both lanes need drawing again)."""
        wanted = set(ids)
        now = {e.id: e for e in read if e.id in wanted}
        subjects: set[str] = set()
        # one pass over the rows for the ids (the rows' order is not by id), from the bottom so removals keep
        # the rows above in place
        for r in range(len(self.events) - 1, -1, -1):
            old = self.events[r]
            if old.id not in wanted:
                continue
            wanted.discard(old.id)
            subjects.add(old.subject)
            new = now.pop(old.id, None)
            if new is not None and new.frame_index == old.frame_index:
                self.events[r] = new
                subjects.add(new.subject)
                self.dataChanged.emit(self.index(r, 0), self.index(r, len(EVENT_COLUMNS) - 1))
                continue
            self.beginRemoveRows(QModelIndex(), r, r)
            del self.events[r]
            del self._frames[r]
            self.endRemoveRows()
            if new is not None:
                now[new.id] = new  # put back in order below
        for e in sorted(now.values(), key=lambda e: e.frame_index):
            r = bisect_right(self._frames, e.frame_index)
            self.beginInsertRows(QModelIndex(), r, r)
            self.events.insert(r, e)
            self._frames.insert(r, e.frame_index)
            self.endInsertRows()
            subjects.add(e.subject)
        return subjects
