"""Calibrating a media or its camera group from points picked on the canvas, and the list of calibrations.

The canvas tool (C) collects the image points and opens :class:`CalibrationDialog` with them: two
points for a scale (a line over an object of known length), four for a floor plane (the corners of a
floor rectangle, in any order: they are named by their place in the image, the side nearest the bottom
edge being the near edge). The dialog shows the frame with the points beside the form
(:class:`CalibrationPicture`), asks for the real length(s) and the scope, previews the result with its
warnings (``core.calibration_preview``), refuses degenerate input with ``core.calibration``'s message,
and reports an independent check when the user gives one (a fifth floor point, or a second object for a
scale, clicked on the picture, and its known length); on OK it hands one ``SaveCalibration`` edit
(grouped with a ``SetCameraGroup`` when the media joins a group) to ``apply_edit``. :class:`CalibrationListPanel`
lists the project's calibrations with Delete (``DeleteCalibration``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QAction, QColor, QImage, QKeySequence, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (QAbstractItemView, QButtonGroup, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
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


@dataclass(frozen=True)
class CalibrationRow:
    """One row of the Calibrations dock: the ``record``, what it applies to (``scope``), its reference length or
    rectangle and whether it is in use (``annotations.calibrations.in_use_status``)."""

    record: cal.CalibrationRecord
    scope: str
    reference: str
    status: str


def read_rows(project: Project) -> list[CalibrationRow]:
    """The Calibrations dock's rows of ``project``, read without Qt (the window's open reads them on its worker,
    gui/opened_reads.py). The media's names are read only when a calibration names a media (a project of 5,000
    media and no calibration read every name for nothing)."""
    from fieldstudio.annotations import calibrations as cal
    from fieldstudio.annotations import rows as views
    from fieldstudio.core.calibration import pixel_distance

    records = cal.list_calibrations(project)
    names = views.media_names(project) if any(rec.media_id for rec in records) else {}
    out = []
    for rec in records:
        if rec.media_id:
            scope = names.get(rec.media_id, rec.media_id)
        else:
            n = len(views.group_members(project, rec.camera_group))
            scope = f"camera group {rec.camera_group!r} ({n} media)"
        if rec.kind == "scale":
            ref = f"{rec.length_m:g} m over {pixel_distance(*rec.points):.1f} px"
        else:
            ref = f"{rec.width_m:g} m x {rec.depth_m:g} m floor rectangle"
        out.append(CalibrationRow(rec, scope, ref, cal.in_use_status(project, rec)))
    return out


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
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Applies to", "Kind", "Reference", "In use"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        self.use_button = QPushButton("Use this one")
        self.use_button.setToolTip("Measure every ruler, box and trajectory of its media or camera group with the "
                                   "selected calibration; the other kind is kept, not in use")
        self.delete_button = QPushButton("Delete calibration")
        self.delete_button.setToolTip("Delete the selected calibration; its rulers read in pixels again (Delete)")
        self.message = QLabel()
        self.message.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.message, 1)
        row.addWidget(self.use_button)
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
        self.use_button.clicked.connect(self.use_selected)
        self.use_button.setAutoDefault(False)

    def set_apply_edit(self, apply_edit: ApplyEdit | None) -> None:
        """Where edits go (the window's undo stack); None does them without undo."""
        self._apply = apply_edit or do_now

    def set_project(self, project: Project | None, rows: list[CalibrationRow] | None = None) -> None:
        """Show ``project``'s calibrations (``rows``: :func:`read_rows` of it, read already on the open's worker)."""
        self.project = project
        self.refresh(rows)

    def records(self) -> list[cal.CalibrationRecord]:
        """The calibrations shown, in row order."""
        return list(self._records)

    def refresh(self, rows: list[CalibrationRow] | None = None) -> None:
        """Re-read the calibrations (after a save, a delete or an undo); ``rows``: read already."""
        if rows is None:
            rows = read_rows(self.project) if self.project is not None else []
        self._records = [row.record for row in rows]
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for col, text in enumerate((row.scope, row.record.kind, row.reference, row.status)):
                item = QTableWidgetItem(text)
                item.setToolTip(row.record.describe())
                if row.status != "in use":
                    item.setForeground(QColor("#888888"))  # kept, but it measures nothing
                self.table.setItem(i, col, item)
        self.delete_button.setEnabled(bool(rows))
        self.use_button.setEnabled(bool(rows))

    def use_selected(self) -> None:
        """Make the selected calibration the one in use for its media or camera group (undoable)."""
        from fieldstudio.annotations.edits import ChooseCalibration

        self._edit_selected("Select the calibration to use", lambda rec: ChooseCalibration(
            self.project, rec.kind, media_id=rec.media_id, camera_group=rec.camera_group), "Now in use: the {}")

    def delete_selected(self) -> None:
        """Delete the selected calibration (undoable)."""
        from fieldstudio.annotations.edits import DeleteCalibration

        self._edit_selected("Select a calibration to delete", lambda rec: DeleteCalibration(self.project, rec.id),
                            "Deleted the {}")

    def _edit_selected(self, none_text: str, make_edit, done_text: str) -> None:  # noqa: ANN001 - record -> Edit
        """Apply ``make_edit(selected record)``, say ``done_text`` with its description, tell the media it changes."""
        from fieldstudio.annotations import rows as views

        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        if not rows or self.project is None:
            self._say(none_text, error=True)
            return
        rec = self._records[rows[0]]
        affected = views.affected_media(self.project, rec)   # before a delete takes the record away
        try:
            self._apply(make_edit(rec))
        except FieldstudioError as exc:
            self._say(str(exc), error=True)
            return
        self._say(done_text.format(rec.describe()))
        self.refresh()
        for media_id in affected:
            self.calibration_changed.emit(media_id)

    def _say(self, text: str, *, error: bool = False) -> None:
        self.message.setStyleSheet(ERROR_STYLE if error else "")
        self.message.setText(text)
        self.status.emit(text)


class CalibrationPicture(QLabel):
    """The frame the points were picked on, scaled to ``width`` px, with the points drawn and named.

    The picture covers the frame and every calibration point given (a corner may lie outside the frame),
    with a margin. ``points``: the calibration's points (named ``names``); ``check_points``: the check's
    points (in another colour). A left click asks for a check point: ``clicked(x, y)`` in full-resolution
    image pixels.
    """

    clicked = Signal(float, float)
    MARGIN_PX = 24  # on screen, around the frame and the points

    def __init__(self, image: QImage | None, full_size: tuple[int, int], points: Sequence[Sequence[float]] = (),
                 width: int = 460, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("calibration_picture")
        fw, fh = max(1, int(full_size[0])), max(1, int(full_size[1]))
        xs = [0.0, float(fw)] + [float(p[0]) for p in points]
        ys = [0.0, float(fh)] + [float(p[1]) for p in points]
        span_w, span_h = max(xs) - min(xs), max(ys) - min(ys)
        self._scale = (width - 2 * self.MARGIN_PX) / span_w
        self._origin = (min(xs) - self.MARGIN_PX / self._scale, min(ys) - self.MARGIN_PX / self._scale)
        self._base = QPixmap(width, max(1, round(span_h * self._scale + 2 * self.MARGIN_PX)))
        self._base.fill(QColor("#303030"))
        painter = QPainter(self._base)
        frame_rect = QRectF(self.to_widget(0.0, 0.0), self.to_widget(float(fw), float(fh)))
        if image is not None and not image.isNull():
            painter.drawImage(frame_rect, image)
        else:
            painter.fillRect(frame_rect, QColor("#202020"))
        painter.end()
        self.points: list[tuple[float, float]] = []
        self.names: list[str] = []
        self.check_points: list[tuple[float, float]] = []
        self.setFixedSize(self._base.size())
        self.setCursor(Qt.CursorShape.CrossCursor)
        self.setToolTip("The points on the frame. Click to put a check point (see the check field).")

    def to_widget(self, x: float, y: float) -> QPointF:
        """Widget position of full-resolution image point (x, y)."""
        return QPointF((x - self._origin[0]) * self._scale, (y - self._origin[1]) * self._scale)

    def to_image(self, x: float, y: float) -> tuple[float, float]:
        """Full-resolution image point under widget position (x, y)."""
        return (x / self._scale + self._origin[0], y / self._scale + self._origin[1])

    def set_points(self, points: Sequence[tuple[float, float]], names: Sequence[str],
                   check_points: Sequence[tuple[float, float]]) -> None:
        self.points, self.names, self.check_points = list(points), list(names), list(check_points)
        pix = QPixmap(self._base)
        painter = QPainter(pix)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        ring = [self.to_widget(*p) for p in self.points]
        painter.setPen(QPen(QColor("#ffd60a"), 2))
        for a, b in zip(ring, ring[1:] + ring[:1] if len(ring) == 4 else ring[1:]):
            painter.drawLine(a, b)
        metrics = painter.fontMetrics()
        for p, name in zip(ring, self.names):
            painter.setPen(QPen(QColor("#ffd60a"), 2))
            painter.setBrush(QColor("#ffd60a"))
            painter.drawEllipse(p, 4, 4)
            w = metrics.horizontalAdvance(name)
            x = p.x() + 7 if p.x() + 7 + w < pix.width() else p.x() - 7 - w  # keep the name inside
            y = p.y() - 6 if p.y() - 6 - metrics.ascent() > 0 else p.y() + 6 + metrics.ascent()
            painter.fillRect(QRectF(x - 2, y - metrics.ascent(), w + 4, metrics.height()), QColor(0, 0, 0, 170))
            painter.drawText(QPointF(x, y), name)
        checks = [self.to_widget(*p) for p in self.check_points]
        painter.setPen(QPen(QColor("#00e5ff"), 2, Qt.PenStyle.DashLine))
        if len(checks) == 1 and ring:
            painter.drawLine(ring[0], checks[0])
        elif len(checks) == 2:
            painter.drawLine(checks[0], checks[1])
        painter.setBrush(QColor("#00e5ff"))
        for p in checks:
            painter.drawEllipse(p, 4, 4)
        painter.end()
        self.setPixmap(pix)

    def mousePressEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if event.button() == Qt.MouseButton.LeftButton:
            pos = event.position()
            self.clicked.emit(*self.to_image(pos.x(), pos.y()))


class CalibrationDialog(QDialog):
    """Calibrate ``media_id`` (or its camera group) from image points picked on the canvas.

    ``points``: 2 (scale) or 4 (floor, in any order: named by their place in the image) ``(x, y)`` in
    upright full-resolution pixels; ``image`` the frame they were picked on (shown beside the form) and
    ``full_size`` its full-resolution (W, H). Signals: ``calibration_changed(media_id)`` once per media whose
    measurements change (the media, or every member of the group); ``status(str)``.
    """

    calibration_changed = Signal(str)
    status = Signal(str)

    def __init__(self, project: Project, media_id: str, points: Sequence[Sequence[float]],
                 apply_edit: ApplyEdit | None = None, parent: QWidget | None = None, *,
                 image: QImage | None = None, full_size: tuple[int, int] | None = None):
        from fieldstudio.annotations import rows as views
        from fieldstudio.core.calibration import FLOOR_CORNER_ORDER, order_floor_corners

        super().__init__(parent)
        self.project, self.media_id = project, media_id
        self.points = [(float(x), float(y)) for x, y in points]
        if len(self.points) not in (2, 4):
            raise CalibrationError(f"a calibration needs 2 points (scale) or 4 (floor), got {len(self.points)}")
        self.kind = "scale" if len(self.points) == 2 else "floor"
        if self.kind == "floor":
            try:  # named by their place in the image; degenerate corners stay as clicked for the message
                self.points = list(order_floor_corners(self.points))
            except CalibrationError:
                pass
        self.check_points: list[tuple[float, float]] = []
        self._apply: ApplyEdit = apply_edit or do_now
        self.media = views.media_brief(project, media_id)
        self.preview: CalibrationPreview | None = None
        self.saved_id: str | None = None
        self.setWindowTitle("Calibrate: scale" if self.kind == "scale" else "Calibrate: floor plane")
        self.resize(1040, 620)

        if self.kind == "scale":
            intro = (f"Reference line on {self.media.file_name} from ({self.points[0][0]:.1f}, "
                     f"{self.points[0][1]:.1f}) to ({self.points[1][0]:.1f}, {self.points[1][1]:.1f}) px. "
                     "How long is the object it lies on?")
        else:
            corners = ", ".join(f"{name} ({x:.1f}, {y:.1f})" for name, (x, y) in zip(FLOOR_CORNER_ORDER, self.points))
            intro = (f"Floor rectangle on {self.media.file_name}, corners named by their place in the image "
                     f"(the side nearest the bottom is the near edge): {corners} px. "
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
        self.use_it = QCheckBox()
        self.use_it.setChecked(True)
        self.use_it.setToolTip("When the media or group has the other kind of calibration too, only one measures: "
                               "the one in use (Calibrations ▸ Use this one changes it later)")
        scope_layout.addWidget(self.use_it)

        self.check_m = _metres_box(0.0)
        self.check_m.setObjectName("check_length")
        self.check_m.setSpecialValueText("no check")
        if self.kind == "floor":
            self.check_m.setToolTip("Click a fifth floor point on the picture, then enter its real distance "
                                    "from the near-left corner: it is measured through the calibration")
            check_text = "Fifth point's distance from near-left:"
        else:
            self.check_m.setToolTip("Click the two ends of a second object on the picture, then enter its real "
                                    "length: it is measured through the calibration")
            check_text = "Second object's length:"
        self.clear_check = QPushButton("Clear check points")
        self.clear_check.setAutoDefault(False)
        check_row = QHBoxLayout()
        check_row.addWidget(self.check_m, 1)
        check_row.addWidget(self.clear_check)
        form.addRow(check_text, check_row)
        size = full_size or (self.media.width or 1, self.media.height or 1)
        self.picture = CalibrationPicture(image, size, self.points)
        self.picture.clicked.connect(self.add_check_point)
        self.clear_check.clicked.connect(self.clear_check_points)

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

        right = QVBoxLayout()
        right.addWidget(self.intro)
        right.addLayout(form)
        right.addWidget(scope_box)
        right.addWidget(QLabel("<b>Preview</b>"))
        right.addWidget(self.preview_label)
        right.addWidget(self.buttons)
        right.addWidget(existing_box, 1)
        left = QVBoxLayout()
        left.addWidget(self.picture)
        left.addStretch(1)
        layout = QHBoxLayout(self)
        layout.addLayout(left)
        layout.addLayout(right, 1)

        for box in (self.length_m, self.width_m, self.depth_m, self.check_m):
            box.valueChanged.connect(self.update_preview)
        self._scopes.buttonToggled.connect(self.update_preview)
        self.group_name.currentTextChanged.connect(self.update_preview)
        self.use_it.toggled.connect(self.update_preview)
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

    def add_check_point(self, x: float, y: float) -> None:
        """A click on the picture: the fifth floor point (replacing the last), or an end of the second object."""
        if len(self.check_points) >= (1 if self.kind == "floor" else 2):
            self.check_points = []  # a new check starts
        self.check_points.append((float(x), float(y)))
        self.update_preview()

    def clear_check_points(self) -> None:
        self.check_points = []
        self.update_preview()

    def _check(self) -> tuple | None:
        """(p, q, metres) for the preview when the check is complete, else None."""
        known = self.check_m.value()
        if known <= 0:
            return None
        if self.kind == "floor" and len(self.check_points) == 1:
            return (self.points[0], self.check_points[0], known)
        if self.kind == "scale" and len(self.check_points) == 2:
            return (self.check_points[0], self.check_points[1], known)
        return None

    def _group(self) -> str | None:
        """The chosen camera group's name (None for "this media only")."""
        return (self.group_name.currentText().strip() or None) if self.scope_group.isChecked() else None

    def update_preview(self) -> None:
        """Recompute the preview; a degenerate calibration shows core.calibration's message and disables OK."""
        from fieldstudio.core.calibration_preview import preview_calibration

        from fieldstudio.core.calibration import FLOOR_CORNER_ORDER

        problem = None
        try:
            self.preview = preview_calibration(self.kind, self.points, check=self._check(), **self._lengths())
        except CalibrationError as exc:
            self.preview, problem = None, str(exc)
        names = list(FLOOR_CORNER_ORDER) if self.kind == "floor" else ["end 1", "end 2"]
        self.picture.set_points(self.points, names, self.check_points)
        if problem is None and self.scope_group.isChecked() and self._group() is None:
            problem = "type the camera group's name, or choose 'This media only'"
        if problem is not None:
            self.preview_label.setStyleSheet(ERROR_STYLE)
            self.preview_label.setText(f"Cannot calibrate: {problem}")
        else:
            self.preview_label.setStyleSheet(ERROR_STYLE if self.preview.warnings else OK_STYLE)
            self.preview_label.setText("\n".join(self.preview.lines) + "\n" + self._scope_text())
        self.ok_button.setEnabled(problem is None)

    def _other_kind(self) -> str | None:
        """The other kind when the chosen scope already has it (then one of the two must be in use), else None."""
        from fieldstudio.annotations import calibrations as cal

        other = "floor" if self.kind == "scale" else "scale"
        group = self._group()
        for rec in cal.list_calibrations(self.project):
            if rec.kind == other and (rec.camera_group == group if group else rec.media_id == self.media_id):
                return other
        return None

    def _scope_text(self) -> str:
        from fieldstudio.annotations import rows as views

        group = self._group()
        other = self._other_kind()
        self.use_it.setVisible(other is not None)
        if other is not None:
            self.use_it.setText(f"Use this {self.kind} calibration for measurements (the {other} one is kept, "
                                "not in use)")
            which = self.kind if self.use_it.isChecked() else f"{other} (this {self.kind} one is kept, not in use)"
            in_use = f" It also has a {other} calibration; the one in use will be the {which}."
        else:
            in_use = ""
        if group is None:
            return f"Applies to {self.media.file_name} only.{in_use}"
        n = len(set(views.group_members(self.project, group)) | {self.media_id})
        joins = "" if self.media.camera_group == group else f" ({self.media.file_name} joins it)"
        return f"Applies to the {n} media of camera group {group!r}{joins}.{in_use}"

    def build_edit(self) -> Edit:
        """The edit OK makes: SaveCalibration, with SetCameraGroup first when the media joins a group and
        ChooseCalibration after when the scope has the other kind too (the choice the dialog shows)."""
        from fieldstudio.annotations.edits import ChooseCalibration, SaveCalibration, SetCameraGroup
        from fieldstudio.store.edits import EditGroup

        group = self._group()
        check = self._check()            # kept with the calibration: fs-distance's tolerance comes from it
        save = SaveCalibration(self.project, kind=self.kind, points=[list(p) for p in self.points],
                               media_id=None if group else self.media_id, camera_group=group, **self._lengths(),
                               check=None if check is None else [list(check[0]), list(check[1]), check[2]])
        steps = [save]
        if group is not None and self.media.camera_group != group:
            steps.insert(0, SetCameraGroup(self.project, [self.media_id], group))
        other = self._other_kind()
        if other is not None:
            steps.append(ChooseCalibration(self.project, self.kind if self.use_it.isChecked() else other,
                                           media_id=None if group else self.media_id, camera_group=group))
        return save if len(steps) == 1 else EditGroup("Calibrate", steps)

    def accept(self) -> None:
        """Save through ``apply_edit``; on an error, say why and stay open (nothing is saved)."""
        from fieldstudio.annotations import calibrations as cal
        from fieldstudio.annotations import rows as views
        from fieldstudio.annotations.edits import SaveCalibration
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
        save = next(e for e in edit.edits if isinstance(e, SaveCalibration)) if isinstance(edit, EditGroup) else edit
        self.saved_id = save.calibration_id
        rec = cal.get_calibration(self.project, self.saved_id)
        self.status.emit(f"Saved the {rec.describe()}: {cal.in_use_status(self.project, rec)}")
        self.existing.refresh()
        for media_id in views.affected_media(self.project, rec):
            self.calibration_changed.emit(media_id)
        super().accept()
