"""Dragging a vertex of a polygon repaints only the vertex's neighbourhood (gui/viewer/shape_items.py): what the
screen holds after a drag, made of those partial repaints, is what a whole repaint of the moved polygon shows.

The screen is read from the offscreen platform's backing store (``QScreen.grabWindow``: the pixels last flushed,
not a fresh render as ``QWidget.grab`` would give), then the whole canvas is repainted and read again.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest

from fieldstudio.gui.imaging import rgb_from_qimage

pytestmark = pytest.mark.gui


def _on_screen(canvas) -> np.ndarray:  # noqa: ANN001 - Canvas
    shot = canvas.screen().grabWindow(canvas.winId()).toImage()
    return rgb_from_qimage(shot.convertToFormat(QImage.Format.Format_RGB888))


@pytest.mark.parametrize("kind", ["polygon", "polyline"])
def test_a_dragged_vertex_leaves_the_screen_as_a_whole_repaint_draws_it(qapp, qtbot, kind):
    from fieldstudio.gui.viewer.canvas import Canvas
    from fieldstudio.gui.viewer.shape_items import ShapeItem

    canvas = Canvas()
    qtbot.addWidget(canvas)
    canvas.resize(900, 560)
    canvas.show()
    qtbot.waitExposed(canvas)
    frame = QImage(1920, 1080, QImage.Format.Format_RGB888)
    frame.fill(0x607080)
    canvas.set_image(frame, (1920, 1080))
    canvas.fit()
    vertices = [[960 + 400 * math.cos(2 * math.pi * i / 40), 540 + 400 * math.sin(2 * math.pi * i / 40)]
                for i in range(40)]
    moves = []
    item = ShapeItem(kind, vertices, "#ff00ff", "spill", annotation_id="a" * 32,
                     changed=lambda _item, v, what: moves.append((v, what)))
    canvas.scene().addItem(item)
    item.setSelected(True)
    qtbot.wait(50)
    vp = canvas.viewport()
    start = canvas.mapFromScene(QPointF(*vertices[10]))            # a vertex at the bottom: moves inside and out
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, pos=start)
    for dx, dy in ((-40, -60), (30, -120), (90, 40), (-20, 80), (5, -30)):
        QTest.mouseMove(vp, QPoint(start.x() + dx, start.y() + dy))
        qapp.processEvents()
    after_drag = _on_screen(canvas)                                 # before the release (which may repaint all)
    canvas.viewport().repaint()                                     # everything drawn again at once
    qapp.processEvents()
    whole = _on_screen(canvas)
    assert after_drag.shape == whole.shape
    differ = np.abs(after_drag.astype(int) - whole.astype(int)).max(axis=2) > 8
    assert int(differ.sum()) == 0, f"{int(differ.sum())} pixels differ from a whole repaint"
    end = QPoint(start.x() + 5, start.y() - 30)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=end)
    qtbot.wait(50)
    assert len(moves) == 1 and moves[0][1] == "Move vertex"
    moved = canvas.mapToScene(end)
    assert moves[0][0][10] == pytest.approx([moved.x(), moved.y()], abs=1e-6)
    others = [v for i, v in enumerate(moves[0][0]) if i != 10]
    assert np.allclose(others, [v for i, v in enumerate(vertices) if i != 10])
    assert item.boundingRect().contains(QPointF(moved.x(), moved.y()))
