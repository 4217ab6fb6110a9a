"""The trajectory of one track in a window beside the video: metres walked and speed, the table per frame, the
smoothing used, Export CSV. The numbers come from ``annotations.trajectory.track_trajectory`` (the service
``fieldstudio trajectory`` prints); this widget only shows them and asks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QFileDialog, QHBoxLayout, QHeaderView, QLabel,
                               QPushButton, QSpinBox, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.panels.edit_support import ERROR_STYLE

if TYPE_CHECKING:
    from fieldstudio.annotations.trajectory import Trajectory
    from fieldstudio.store.project import Project

HEADERS = ("Frame", "Time (s)", "x (m)", "y (m)", "Step (m)", "Walked (m)", "Speed (m/s)", "Area")


class TrajectoryDialog(QDialog):
    """Track ``track_id`` of video ``media_id``: summary, smoothing (frames), the table, Export CSV.

    Signals: ``computed(Trajectory)`` after each (re)computation (the canvas draws the path from it);
    ``frame_chosen(int)`` when a row is activated (the window shows that frame). :meth:`recompute` reads the
    project again (after an edit of the track or of a calibration).
    """

    computed = Signal(object)
    frame_chosen = Signal(int)

    def __init__(self, project: Project, media_id: str, track_id: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.project, self.media_id, self.track_id = project, media_id, track_id
        self.trajectory: Trajectory | None = None
        self.setWindowTitle(f"Trajectory of track #{track_id}")
        self.resize(720, 520)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.smooth = QSpinBox()
        self.smooth.setRange(1, 99)
        self.smooth.setSingleStep(2)
        self.smooth.setSuffix(" frame(s)")
        self.smooth.setToolTip("Average the floor positions over this many frames (centred; 1: none), so that a box "
                               "shaking by a pixel does not add distance nobody walked")
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setAutoDefault(False)
        self.message = QLabel()
        self.message.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(QLabel("Smoothing:"))
        top.addWidget(self.smooth)
        top.addStretch(1)
        top.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.message)
        self.smooth.valueChanged.connect(lambda _v: self.recompute())
        self.export_button.clicked.connect(lambda: self.export_csv())
        self.table.cellActivated.connect(lambda row, _col: self.frame_chosen.emit(self.trajectory.points[row].frame_index))
        self.table.cellClicked.connect(lambda row, _col: self.frame_chosen.emit(self.trajectory.points[row].frame_index))

    def recompute(self) -> Trajectory | None:
        """Read the track and the calibration in use again and refill the table; an error is shown, not raised."""
        from fieldstudio.annotations.trajectory import track_trajectory

        try:
            self.trajectory = track_trajectory(self.project, self.media_id, self.track_id, smooth=self.smooth.value())
        except (FieldstudioError, ValueError) as exc:
            self.trajectory = None
            self.summary.setStyleSheet(ERROR_STYLE)
            self.summary.setText(str(exc))
            self.table.setRowCount(0)
            self.export_button.setEnabled(False)
            self.computed.emit(None)
            return None
        t = self.trajectory
        self.summary.setStyleSheet("" if t.distance_m is not None else ERROR_STYLE)
        self.summary.setText(t.summary())
        rows = t.rows()
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            area = {True: "outside", False: "inside", None: ""}[r["outside_calibrated_area"]]
            cells = (r["frame"], r["time_s"], r["x_m"], r["y_m"], r["step_m"], r["distance_m"], r["speed_m_s"], area)
            for col, v in enumerate(cells):
                text = "" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if col == 0 and r["keyframe"]:
                    item.setToolTip("a keyframe (drawn or tracked); the rows between are interpolated boxes")
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                if col == len(cells) - 1 and area == "outside":
                    item.setToolTip("the ground point lies outside the floor calibration's rectangle: these metres "
                                    "are the homography's extrapolation")
                self.table.setItem(i, col, item)
        self.export_button.setEnabled(True)
        self.computed.emit(t)
        return t

    def select_frame(self, frame_index: int | None) -> None:
        """Select the row of the frame on screen (none when the track has no box there)."""
        if self.trajectory is None or frame_index is None:
            return
        rows = [i for i, p in enumerate(self.trajectory.points) if p.frame_index == frame_index]
        self.table.blockSignals(True)
        if rows:
            self.table.selectRow(rows[0])
            self.table.scrollToItem(self.table.item(rows[0], 0))
        else:
            self.table.clearSelection()
        self.table.blockSignals(False)

    def export_csv(self, path: str | None = None) -> str | None:
        """Write the table (frame, time from PTS, x/y in metres, step, distance, speed, the calibration and the
        smoothing) to ``path``, asked in a file dialog when None. Returns the path written, None if cancelled."""
        if self.trajectory is None:
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export the trajectory", f"track_{self.track_id}.csv",
                                                  "CSV (*.csv)")
            if not path:
                return None
        try:
            self.trajectory.write_csv(path)
        except OSError as exc:
            self.message.setStyleSheet(ERROR_STYLE)
            self.message.setText(f"Not exported: {exc}")
            return None
        self.message.setStyleSheet("")
        self.message.setText(f"Exported {len(self.trajectory.points)} row(s) to {path}")
        return path
