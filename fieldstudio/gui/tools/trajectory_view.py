"""Annotate ▸ Trajectory of the selected track: the track's ground point path drawn on the video up to the frame
shown, with metres walked so far, and the trajectory window (gui/panels/trajectory.py) beside it.

The path follows the frame on screen (``state.events.frame``), is redrawn when the track or a calibration
changes (``refresh``), and goes when the media, the project or the window closes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QWidget

from fieldstudio.gui.viewer.overlay import BoxItem

if TYPE_CHECKING:
    from PySide6.QtWidgets import QStyleOptionGraphicsItem  # in paint's signature only: created at the first paint

    from fieldstudio.annotations.trajectory import Trajectory
    from fieldstudio.gui.panels.trajectory import TrajectoryDialog
    from fieldstudio.gui.tools.context import ToolContext

PATH_COLOR = "#ff2d95"
Z_PATH = 35.0   # over boxes and rulers, under the captions


class TrajectoryPathItem(QGraphicsItem):
    """The ground points of a track (image pixels) joined up to the frame shown, a dot on that frame's point and
    the metres walked to it."""

    def __init__(self) -> None:
        super().__init__()
        self.setZValue(Z_PATH)
        self.points: list[QPointF] = []
        self.here: QPointF | None = None
        self.text = ""
        self._bounds = QRectF()

    def set_path(self, points: list[tuple[float, float]], here: tuple[float, float] | None, text: str) -> None:
        """The path drawn: ``points`` up to the frame shown, ``here`` its point (None: the track is not on it)."""
        self.prepareGeometryChange()
        self.points = [QPointF(x, y) for x, y in points]
        self.here = None if here is None else QPointF(*here)
        self.text = text
        xs = [p.x() for p in self.points] or [0.0]
        ys = [p.y() for p in self.points] or [0.0]
        self._bounds = QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys))).adjusted(-60, -40, 220, 40)
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        if not self.points:
            return
        scale = painter.worldTransform().m11() or 1.0     # pixel sizes below are screen pixels
        pen = QPen(QColor(PATH_COLOR), 3)
        pen.setCosmetic(True)
        painter.setPen(pen)
        path = QPainterPath(self.points[0])
        for p in self.points[1:]:
            path.lineTo(p)
        painter.drawPath(path)
        if self.here is not None:
            painter.setBrush(QColor(PATH_COLOR))
            painter.drawEllipse(self.here, 5 / scale, 5 / scale)
            if self.text:
                font = painter.font()
                font.setPointSizeF(max(1.0, 11 / scale))
                painter.setFont(font)
                at = self.here + QPointF(9 / scale, -9 / scale)
                box = painter.fontMetrics().boundingRect(self.text)
                painter.fillRect(QRectF(at.x(), at.y() + box.top(), box.width() + 6 / scale, box.height()),
                                 QColor(PATH_COLOR))
                painter.setPen(QColor("#ffffff"))
                painter.drawText(at + QPointF(3 / scale, 0), self.text)


class TrajectoryView(QObject):
    """Opens the trajectory window for the selected track and draws its path on the canvas."""

    def __init__(self, ctx: ToolContext, parent: QObject | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self.dialog: TrajectoryDialog | None = None
        self.item: TrajectoryPathItem | None = None
        self.trajectory: Trajectory | None = None
        ctx.state.events.frame.connect(lambda _f: self._draw())
        ctx.state.events.media.connect(lambda _m: self.close())
        ctx.state.events.project.connect(lambda _p: self.close())

    def show_selected(self) -> TrajectoryDialog | None:
        """Open the trajectory of the selected box's track (a message when no tracked box is selected)."""
        from fieldstudio.gui.panels.trajectory import TrajectoryDialog

        ctx = self.ctx
        media = ctx.media
        tracks = [i.track_id for i in ctx.marks.selected_items() if isinstance(i, BoxItem) and i.track_id is not None]
        if media is None or media.kind != "video" or not tracks:
            ctx.notify("select a box of a track on a video (T tracks a box) to see its trajectory")
            return None
        self.close()
        dialog = TrajectoryDialog(ctx.project, media.id, tracks[0], ctx.canvas.window())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.computed.connect(self._computed)
        dialog.frame_chosen.connect(lambda f: ctx.state.request_frame(media.id, f))
        dialog.finished.connect(lambda _r: self._forget(dialog))
        self.dialog = dialog
        dialog.recompute()
        dialog.show()
        t = self.trajectory
        if t is not None:
            ctx.notify(t.summary())
        return dialog

    def refresh(self) -> None:
        """After an edit (the track moved, a calibration changed): compute the open trajectory again."""
        if self.dialog is not None:
            self.dialog.recompute()

    def close(self) -> None:
        """Close the window and take the path off the canvas."""
        if self.dialog is not None:
            dialog, self.dialog = self.dialog, None
            dialog.close()
        self._drop_item()
        self.trajectory = None

    def _forget(self, dialog: TrajectoryDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
            self._drop_item()
            self.trajectory = None

    def _computed(self, trajectory: Trajectory | None) -> None:
        self.trajectory = trajectory
        self._draw()

    def _drop_item(self) -> None:
        if self.item is not None and self.item.scene() is not None:
            self.item.scene().removeItem(self.item)
        self.item = None

    def _draw(self) -> None:
        t = self.trajectory
        frame = self.ctx.frame_index()
        if t is None or frame is None:
            self._drop_item()
            return
        if self.item is None or self.item.scene() is not self.ctx.canvas.scene():
            self.item = TrajectoryPathItem()
            self.ctx.canvas.scene().addItem(self.item)
        upto = [p for p in t.points if p.frame_index <= frame]
        here = upto[-1] if upto and upto[-1].frame_index == frame else None
        walked = next((p.distance_m for p in reversed(upto) if p.distance_m is not None), None)
        if here is None:
            text = ""
        elif walked is None:
            text = f"#{t.track_id}"
        else:
            speed = "" if here.speed_m_s is None else f", {here.speed_m_s:.2f} m/s"
            text = f"#{t.track_id} {walked:.2f} m{speed}"
        if here is not None and here.outside_area:
            text += " (outside calibrated area)"
        self.item.set_path([p.ground_px for p in upto], None if here is None else here.ground_px, text)
        if self.dialog is not None:
            self.dialog.select_frame(frame)
