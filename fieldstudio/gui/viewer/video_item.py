"""The canvas items that draw a video's pictures: libVLC's while it plays, the exact frame's otherwise.

Both pictures arrive already scaled to about the size they take on screen (``VlcPlayback``'s render size, the
frame loader's ``within``), so drawing one is a blit, not a resample: when the picture's size equals the device
rectangle it covers, it is drawn with the identity transform at that rectangle's whole-pixel position
(``blit_target``). Each item stands for the full-resolution frame in scene coordinates (DESIGN.md, "Coordinates"),
so the overlays above it keep their image-pixel geometry whatever size the picture has.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter, QTransform
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPixmapItem


def blit_target(painter: QPainter, rect: QRectF, size: tuple[int, int], slack: float) -> QRectF | None:
    """Where a picture of ``size`` (W, H) pixels standing for ``rect`` (item coordinates) is drawn without
    resampling: the device rectangle ``rect`` covers, moved to whole device pixels, in device-independent pixels
    for a painter whose transform is reset. None when that rectangle is more than ``slack`` device pixels from the
    picture's size on either side, or the transform rotates or shears: the picture must then be resampled.

    A transform within a pixel of 1:1 still resamples every pixel when drawn as given (a smooth scale of a
    1090 x 613 picture by 0.99996 took 1.1 ms where its blit took 0.14 ms), which is what the canvas's fit gives
    a picture made at the size the fit asked for (issue 37 item 6)."""
    world = painter.worldTransform()
    if world.type().value > QTransform.TransformationType.TxScale.value:
        return None
    device = world.mapRect(rect)
    dpr = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
    if abs(device.width() * dpr - size[0]) > slack or abs(device.height() * dpr - size[1]) > slack:
        return None
    return QRectF(round(device.x() * dpr) / dpr, round(device.y() * dpr) / dpr, size[0] / dpr, size[1] / dpr)


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
        target = blit_target(painter, self._rect, (image.width(), image.height()), slack=2)
        if target is not None:
            # a blit at the picture's own size, on whole device pixels: no resampling on the GUI thread
            painter.save()
            painter.resetTransform()
            painter.drawImage(target, image)
            painter.restore()
        else:
            painter.drawImage(self._rect, image)
        if self._serial != self._painted_serial:
            self._painted_serial = self._serial
            self.painted += 1


class ExactFrameItem(QGraphicsPixmapItem):
    """The pixmap item of the exact frame (and of a photo, a page): drawn as a blit when its picture has the size
    it covers on screen to within a pixel (``blit_target``: the rounding of the size asked for), smoothly scaled
    otherwise (zoomed in or out since the picture was made)."""

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: ANN001 - Qt override
        pixmap = self.pixmap()
        covered = QRectF(self.offset(), pixmap.deviceIndependentSize())
        target = None if pixmap.isNull() else blit_target(painter, covered, (pixmap.width(), pixmap.height()), slack=1)
        if target is None:
            super().paint(painter, option, widget)
            return
        painter.save()
        painter.resetTransform()
        painter.drawPixmap(target, pixmap, QRectF(pixmap.rect()))
        painter.restore()
