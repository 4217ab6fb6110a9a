"""The canvas item that draws libVLC's pictures while a video plays.

A played picture arrives already scaled to about the size it takes on screen (``VlcPlayback``'s render
size), so drawing it is a blit, not a resample: when the picture's size equals the device rectangle it
covers, it is drawn with the identity transform at that rectangle's whole-pixel position. The item
stands for the full-resolution frame in scene coordinates (DESIGN.md, "Coordinates"), so the overlays
above it keep their image-pixel geometry whatever size the picture has.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter, QTransform
from PySide6.QtWidgets import QGraphicsItem


class VideoFrameItem(QGraphicsItem):
    """Draws one borrowed QImage over the scene rectangle (0, 0, W, H) of the full-resolution frame.

    ``set_frame(image, serial)`` shows a picture (not copied: the caller keeps it unchanged until the
    next ``set_frame``); ``painted`` counts the distinct serials actually painted, which is what the
    playback benchmark calls "shown".
    """

    def __init__(self) -> None:
        super().__init__()
        self._image = QImage()
        self._rect = QRectF()
        self._serial = 0
        self._painted_serial = 0
        self.painted = 0

    def set_full_size(self, size: tuple[int, int]) -> None:
        """The full-resolution (W, H) pixels the picture stands for."""
        rect = QRectF(0, 0, float(size[0]), float(size[1]))
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = rect

    def set_frame(self, image: QImage, serial: int, *, update: bool = True) -> None:
        """Show ``image``; ``update`` False leaves the repaint to the caller (``Canvas.set_video_frame``)."""
        self._image, self._serial = image, serial
        if update:
            self.update()

    def image(self) -> QImage:
        """The picture shown (borrowed: copy it to keep it past the next frame)."""
        return self._image

    def clear(self) -> None:
        self._image = QImage()
        self._serial = self._painted_serial = 0
        self.update()

    def reset_count(self) -> None:
        self.painted = 0

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._rect

    def paint(self, painter: QPainter, _option, _widget=None) -> None:  # noqa: ANN001 - Qt override
        image = self._image
        if image.isNull() or self._rect.isEmpty():
            return
        world = painter.worldTransform()
        device = world.mapRect(self._rect)
        dpr = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
        unrotated = world.type().value <= QTransform.TransformationType.TxScale.value
        if unrotated and abs(device.width() * dpr - image.width()) <= 2 and \
                abs(device.height() * dpr - image.height()) <= 2:
            # a blit at the picture's own size, on whole device pixels: no resampling on the GUI thread
            x, y = round(device.x() * dpr) / dpr, round(device.y() * dpr) / dpr
            painter.save()
            painter.resetTransform()
            painter.drawImage(QRectF(x, y, image.width() / dpr, image.height() / dpr), image)
            painter.restore()
        else:
            painter.drawImage(self._rect, image)
        if self._serial != self._painted_serial:
            self._painted_serial = self._serial
            self.painted += 1
