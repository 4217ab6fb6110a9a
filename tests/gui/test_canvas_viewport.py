"""The canvas's viewport is made by the canvas (gui/viewer/canvas.py, own_viewport) and set up as the one
QGraphicsView makes itself: same settings, same events, same pixels."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

from fieldstudio.gui.viewer.canvas import Canvas

pytestmark = pytest.mark.gui


def test_the_viewport_is_set_up_as_qt_sets_up_its_own(qtbot):
    canvas, plain = Canvas(), QGraphicsView()
    for view in (canvas, plain):
        qtbot.addWidget(view)
        view.resize(320, 240)
    plain.setScene(QGraphicsScene(plain))
    plain.setBackgroundBrush(QBrush(QColor("#202124")))
    mine, qts = canvas.viewport(), plain.viewport()
    assert mine.parent() is canvas and mine.focusProxy() is canvas
    assert (mine.objectName(), mine.autoFillBackground(), mine.backgroundRole()) == \
        (qts.objectName(), qts.autoFillBackground(), qts.backgroundRole())
    for attribute in (Qt.WidgetAttribute.WA_AcceptTouchEvents, Qt.WidgetAttribute.WA_OpaquePaintEvent,
                      Qt.WidgetAttribute.WA_NoSystemBackground):
        assert mine.testAttribute(attribute) == qts.testAttribute(attribute), attribute
    assert mine.hasMouseTracking()  # the pointer's image position is shown without a button held
    canvas.show()
    plain.show()
    qtbot.waitExposed(canvas)
    qtbot.waitExposed(plain)
    # an empty canvas is its background colour, drawn as a plain view draws it
    shown, reference = mine.grab().toImage(), qts.grab().toImage()
    for point in (QPoint(5, 5), QPoint(160, 120), QPoint(300, 220)):
        assert shown.pixelColor(point) == reference.pixelColor(point) == QColor("#202124")
