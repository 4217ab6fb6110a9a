"""Calibrating a media or its camera group from points picked on the canvas, and the list of calibrations.

The canvas tool (C) collects the image points and opens :class:`CalibrationDialog` with them: two
points for a scale (a line over an object of known length), four for a floor plane (near-left,
near-right, far-right, far-left corners of a floor rectangle). The dialog asks for the real length(s)
and the scope, previews the result (``core.calibration_preview``), refuses degenerate input with
``core.calibration``'s message, and on OK hands one ``SaveCalibration`` edit (grouped with a
``SetCameraGroup`` when the media joins a group) to ``apply_edit``. :class:`CalibrationListPanel`
lists the project's calibrations with Delete (``DeleteCalibration``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QButtonGroup, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
                               QFormLayout, QGroupBox, QHBoxLayout, QHeaderView, QLabel, QPushButton, QRadioButton,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from fieldstudio.core.errors import CalibrationError, FieldstudioError
from fieldstudio.gui.panels.edit_support import ERROR_STYLE, OK_STYLE, ApplyEdit, do_now

if TYPE_CHECKING:
    from fieldstudio.annotations import calibrations as cal
    from fieldstudio.core.calibration_preview import CalibrationPreview
    from fieldstudio.store.edits import Edit
    from fieldstudio.store.project import Project


def _metres_box(value: float) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(0.0, 100000.0)
    box.setDecimals(3)
    box.setSingleStep(0.1)
    box.setSuffix(" m")
    box.setValue(value)
    box.setKeyboardTracking(True)
    return box


class CalibrationListPanel(QWidget):
    """The project's calibrations (what each applies to, kind, size) with Delete.

    Signals: ``calibration_changed(media_id)`` once per media whose measurements a deletion changes;
    ``status(str)``. Slots: :meth:`set_project`, :meth:`refresh`, :meth:`delete_selected`.
    """

    calibration_changed = Signal(str)
    status = Signal(str)

    def __init__(self, parent: QWidget | None = None, apply_edit: ApplyEdit | None = None):
        super().__init__(parent)
        self.project: Project | None = None
        self._apply: ApplyEdit = apply_edit or do_now
        self._records: list[cal.CalibrationRecord] = []
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Applies to", "Kind", "Reference"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.delete_button = QPushButton("Delete calibration")
        self.delete_button.setToolTip("Delete the selected calibration; its rulers read in pixels again (Delete)")
        self.message = QLabel()
        self.message.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.message, 1)
        row.addWidget(self.delete_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        action = QAction("Delete calibration", self.table)
        action.setShortcut(QKeySequence(Qt.Key.Key_Delete))
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(self.delete_selected)
        self.table.addAction(action)
        self.delete_button.clicked.connect(self.delete_selected)
        self.delete_button.setAutoDefault(False)

    def set_apply_edit(self, apply_edit: ApplyEdit | None) -> None:
        """Where edits go (the window's undo stack); None does them without undo."""
        self._apply = apply_edit or do_now

    def set_project(self, project: Project | None) -> None:
        """Show ``project``'s calibrations."""
        self.project = project
        self.refresh()

    def records(self) -> list[cal.CalibrationRecord]:
        """The calibrations shown, in row order."""
        return list(self._records)

    def refresh(self) -> None:
        """Re-read the calibrations (after a save, a delete or an undo)."""
        self._records, names = [], {}
        if self.project is not None:
            from fieldstudio.annotations import calibrations as cal
            from fieldstudio.annotations import rows as views
            from fieldstudio.core.calibration import pixel_distance

            self._records = cal.list_calibrations(self.project)
            names = views.media_names(self.project)
        self.table.setRowCount(len(self._records))
        for i, rec in enumerate(self._records):
            if rec.media_id:
                scope = names.get(rec.media_id, rec.media_id)
            else:
                n = len(views.group_members(self.project, rec.camera_group))
                scope = f"camera group {rec.camera_group!r} ({n} media)"
            if rec.kind == "scale":
                ref = f"{rec.length_m:g} m over {pixel_distance(*rec.points):.1f} px"
            else:
                ref = f"{rec.width_m:g} m x {rec.depth_m:g} m floor rectangle"
            for col, text in enumerate((scope, rec.kind, ref)):
                item = QTableWidgetItem(text)
                item.setToolTip(rec.describe())
                self.table.setItem(i, col, item)
        self.delete_button.setEnabled(bool(self._records))

    def delete_selected(self) -> None:
        """Delete the selected calibration (undoable)."""
        from fieldstudio.annotations import rows as views
        from fieldstudio.annotations.edits import DeleteCalibration

        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        if not rows or self.project is None:
            self._say("Select a calibration to delete", error=True)
            return
        rec = self._records[rows[0]]
        affected = views.affected_media(self.project, rec)
        try:
            self._apply(DeleteCalibration(self.project, rec.id))
        except FieldstudioError as exc:
            self._say(str(exc), error=True)
            return
        self._say(f"Deleted the {rec.describe()}")
        self.refresh()
        for media_id in affected:
            self.calibration_changed.emit(media_id)

    def _say(self, text: str, *, error: bool = False) -> None:
        self.message.setStyleSheet(ERROR_STYLE if error else "")
        self.message.setText(text)
        self.status.emit(text)


class CalibrationDialog(QDialog):
    """Calibrate ``media_id`` (or its camera group) from image points picked on the canvas.

    ``points``: 2 (scale) or 4 (floor; near-left, near-right, far-right, far-left) ``(x, y)`` in
    upright full-resolution pixels. Signals: ``calibration_changed(media_id)`` once per media whose
    measurements change (the media, or every member of the group); ``status(str)``.
    """

    calibration_changed = Signal(str)
    status = Signal(str)

    def __init__(self, project: Project, media_id: str, points: Sequence[Sequence[float]],
                 apply_edit: ApplyEdit | None = None, parent: QWidget | None = None):
        from fieldstudio.annotations import rows as views
        from fieldstudio.core.calibration import FLOOR_CORNER_ORDER

        super().__init__(parent)
        self.project, self.media_id = project, media_id
        self.points = [(float(x), float(y)) for x, y in points]
        if len(self.points) not in (2, 4):
            raise CalibrationError(f"a calibration needs 2 points (scale) or 4 (floor), got {len(self.points)}")
        self.kind = "scale" if len(self.points) == 2 else "floor"
        self._apply: ApplyEdit = apply_edit or do_now
        self.media = views.media_brief(project, media_id)
        self.preview: CalibrationPreview | None = None
        self.saved_id: str | None = None
        self.setWindowTitle("Calibrate: scale" if self.kind == "scale" else "Calibrate: floor plane")
        self.resize(560, 560)

        if self.kind == "scale":
            intro = (f"Reference line on {self.media.file_name} from ({self.points[0][0]:.1f}, "
                     f"{self.points[0][1]:.1f}) to ({self.points[1][0]:.1f}, {self.points[1][1]:.1f}) px. "
                     "How long is the object it lies on?")
        else:
            corners = ", ".join(f"{name} ({x:.1f}, {y:.1f})" for name, (x, y) in zip(FLOOR_CORNER_ORDER, self.points))
            intro = (f"Floor rectangle on {self.media.file_name}: {corners} px. "
                     "How wide (near edge) and deep is it?")
        self.intro = QLabel(intro)
        self.intro.setWordWrap(True)
        form = QFormLayout()
        self.length_m = _metres_box(1.0)
        self.width_m = _metres_box(1.0)
        self.depth_m = _metres_box(1.0)
        if self.kind == "scale":
            self.length_m.setToolTip("The real length of the object under the line, in metres")
            form.addRow("Known length:", self.length_m)
        else:
            self.width_m.setToolTip("Near-left to near-right corner, in metres")
            self.depth_m.setToolTip("Near-right to far-right corner, in metres")
            form.addRow("Width:", self.width_m)
            form.addRow("Depth:", self.depth_m)

        scope_box = QGroupBox("Applies to")
        self.scope_media = QRadioButton(f"This media only ({self.media.file_name})")
        self.scope_group = QRadioButton("Its camera group (same camera and resolution):")
        self.group_name = QComboBox()
        self.group_name.setEditable(True)
        self.group_name.addItems(views.camera_groups(project))
        self.group_name.setToolTip("Every photo and video of this group is measured with this calibration. "
                                   "Type a new name to put this media in a new group.")
        if self.media.camera_group:
            self.group_name.setCurrentText(self.media.camera_group)
            self.scope_group.setChecked(True)
        else:
            self.group_name.setCurrentText("")
            self.scope_media.setChecked(True)
        self._scopes = QButtonGroup(self)
        self._scopes.addButton(self.scope_media)
        self._scopes.addButton(self.scope_group)
        scope_layout = QVBoxLayout(scope_box)
        scope_layout.addWidget(self.scope_media)
        group_row = QHBoxLayout()
        group_row.addWidget(self.scope_group)
        group_row.addWidget(self.group_name, 1)
        scope_layout.addLayout(group_row)

        self.preview_label = QLabel()
        self.preview_label.setObjectName("calibration_preview")
        self.preview_label.setWordWrap(True)
        self.preview_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Save calibration")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.existing = CalibrationListPanel(apply_edit=self._apply)
        self.existing.set_project(project)
        self.existing.calibration_changed.connect(self.calibration_changed)
        existing_box = QGroupBox("Calibrations of this project")
        QVBoxLayout(existing_box).addWidget(self.existing)

        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addLayout(form)
        layout.addWidget(scope_box)
        layout.addWidget(QLabel("<b>Preview</b>"))
        layout.addWidget(self.preview_label)
        layout.addWidget(self.buttons)
        layout.addWidget(existing_box, 1)

        for box in (self.length_m, self.width_m, self.depth_m):
            box.valueChanged.connect(self.update_preview)
        self._scopes.buttonToggled.connect(self.update_preview)
        self.group_name.currentTextChanged.connect(self.update_preview)
        self.update_preview()

    def set_apply_edit(self, apply_edit: ApplyEdit | None) -> None:
        """Where edits go (the window's undo stack); None does them without undo."""
        self._apply = apply_edit or do_now
        self.existing.set_apply_edit(apply_edit)

    # -- preview and saving -------------------------------------------------------------------------
    def _lengths(self) -> dict[str, float]:
        if self.kind == "scale":
            return {"length_m": self.length_m.value()}
        return {"width_m": self.width_m.value(), "depth_m": self.depth_m.value()}

    def _group(self) -> str | None:
        """The chosen camera group's name (None for "this media only")."""
        return (self.group_name.currentText().strip() or None) if self.scope_group.isChecked() else None

    def update_preview(self) -> None:
        """Recompute the preview; a degenerate calibration shows core.calibration's message and disables OK."""
        from fieldstudio.core.calibration_preview import preview_calibration

        problem = None
        try:
            self.preview = preview_calibration(self.kind, self.points, **self._lengths())
        except CalibrationError as exc:
            self.preview, problem = None, str(exc)
        if problem is None and self.scope_group.isChecked() and self._group() is None:
            problem = "type the camera group's name, or choose 'This media only'"
        if problem is not None:
            self.preview_label.setStyleSheet(ERROR_STYLE)
            self.preview_label.setText(f"Cannot calibrate: {problem}")
        else:
            self.preview_label.setStyleSheet(OK_STYLE)
            self.preview_label.setText("\n".join(self.preview.lines) + "\n" + self._scope_text())
        self.ok_button.setEnabled(problem is None)

    def _scope_text(self) -> str:
        from fieldstudio.annotations import rows as views

        group = self._group()
        if group is None:
            return f"Applies to {self.media.file_name} only."
        n = len(set(views.group_members(self.project, group)) | {self.media_id})
        joins = "" if self.media.camera_group == group else f" ({self.media.file_name} joins it)"
        return f"Applies to the {n} media of camera group {group!r}{joins}."

    def build_edit(self) -> Edit:
        """The edit OK makes: SaveCalibration, with SetCameraGroup first when the media joins a group."""
        from fieldstudio.annotations.edits import SaveCalibration, SetCameraGroup
        from fieldstudio.store.edits import EditGroup

        group = self._group()
        save = SaveCalibration(self.project, kind=self.kind, points=[list(p) for p in self.points],
                               media_id=None if group else self.media_id, camera_group=group, **self._lengths())
        if group is None or self.media.camera_group == group:
            return save
        return EditGroup("Calibrate", [SetCameraGroup(self.project, [self.media_id], group), save])

    def accept(self) -> None:
        """Save through ``apply_edit``; on an error, say why and stay open (nothing is saved)."""
        from fieldstudio.annotations import calibrations as cal
        from fieldstudio.annotations import rows as views
        from fieldstudio.store.edits import EditGroup

        self.update_preview()
        if not self.ok_button.isEnabled():
            return
        edit = self.build_edit()
        try:
            self._apply(edit)
        except FieldstudioError as exc:
            self.preview_label.setStyleSheet(ERROR_STYLE)
            self.preview_label.setText(f"Not saved: {exc}")
            self.status.emit(f"Calibration not saved: {exc}")
            return
        save = edit.edits[-1] if isinstance(edit, EditGroup) else edit
        self.saved_id = save.calibration_id
        rec = cal.get_calibration(self.project, self.saved_id)
        self.status.emit(f"Saved the {rec.describe()}")
        self.existing.refresh()
        for media_id in views.affected_media(self.project, rec):
            self.calibration_changed.emit(media_id)
        super().accept()
