"""Guard against a PySide6 build that drops references to ``None`` (issue 23, item 1a).

PySide6 6.12.0 loses a reference to ``None`` in calls such as ``QGraphicsItem.scene()`` and in the
``paint(painter, option, widget=None)`` virtual that Qt calls back into Python. Each lost reference
lowers ``sys.getrefcount(None)``; once it reaches zero Python aborts with "Fatal Python error:
none_dealloc" (about 80 edits, or 240 repaints of a canvas with 40 boxes). pyproject.toml pins a build
without the leak (PySide6-Essentials 6.11.3); this test fails on any build that brings it back.

The expected value is computed outside fieldstudio: a process that only repaints must end with the
same number of references to ``None`` that it started with, up to a small slack for objects the
interpreter itself caches (a few dozen at most; the leak loses thousands here).
"""

from __future__ import annotations

import ctypes
import gc
import sys

import pytest
from PySide6.QtGui import QColor, QImage

from fieldstudio.gui.viewer.canvas import Canvas
from fieldstudio.gui.viewer.overlay import BoxItem

pytestmark = pytest.mark.gui

BOXES = 40
REPAINTS = 1000
SLACK = 50  # references; 6.12.0 loses ~355 per repaint of this scene (measured), 6.11.3 none
ATTEMPTS = 3


class CountedBox(BoxItem):
    """A BoxItem that counts Qt's calls of its Python ``paint`` (the call that lost a reference)."""

    paints = 0

    def paint(self, painter, option, widget=None):  # noqa: ANN001 - Qt override
        CountedBox.paints += 1
        super().paint(painter, option, widget)


def test_repainting_boxes_keeps_every_reference_to_none(qtbot):
    canvas = Canvas()
    qtbot.addWidget(canvas)
    canvas.resize(640, 400)
    image = QImage(480, 270, QImage.Format.Format_RGB32)
    image.fill(QColor("#406080"))
    canvas.set_image(image)
    canvas.show()
    qtbot.waitExposed(canvas)
    items = []
    for i in range(BOXES):
        x, y = 10 + (i % 10) * 45, 10 + (i // 10) * 60
        item = CountedBox((x, y, x + 40, y + 50), "#ff3b30", f"box {i}", annotation_id=f"a{i}", track_id=None,
                       keyframe=bool(i % 2))
        canvas.scene().addItem(item)
        item.setSelected(i % 3 == 0)  # selected boxes also paint their handles
        items.append(item)
    qtbot.wait(100)
    viewport = canvas.viewport()
    # None's count is process-wide: another thread of the test process (a worker a test before left running)
    # that releases references during a measurement counts as lost here. A leaking build loses them in
    # every attempt; such a disturbance is one-off, so the test fails only when all ATTEMPTS lose them.
    losses = []
    for _ in range(ATTEMPTS):
        lost = _measure(viewport)
        _give_back(lost)
        losses.append(lost)
        if lost <= SLACK:
            break
    lost = min(losses)
    assert lost <= SLACK, (
        f"{lost} references to None lost in at most {REPAINTS} repaints of {BOXES} boxes: this PySide6 "
        "build leaks them and will abort with 'none_dealloc'; pin PySide6-Essentials==6.11.3")
    assert all(item.scene() is canvas.scene() for item in items)


def _measure(viewport) -> int:  # noqa: ANN001 - QWidget
    """References to None lost over REPAINTS repaints after a warm-up (more than SLACK: stopped early)."""
    gc.collect()
    lost = _repaint(viewport, 20, sys.getrefcount(None))  # warm up: the first paints fill Qt's and Python's caches
    if lost > SLACK:
        return lost
    gc.collect()
    CountedBox.paints = 0
    before = sys.getrefcount(None)
    lost = _repaint(viewport, REPAINTS, before)
    if lost > SLACK:
        return lost
    assert CountedBox.paints >= BOXES * REPAINTS  # every repaint really painted every box
    gc.collect()
    return before - sys.getrefcount(None)


def _repaint(viewport, times: int, before: int) -> int:  # noqa: ANN001 - QWidget
    """Repaint ``times`` times; references to None lost since ``before``, counted after each repaint.

    Stops as soon as more than SLACK are lost: a leaking build loses ~355 per repaint here and would
    bring None's count (a few thousand) to zero, aborting pytest instead of failing this test.
    """
    lost = 0
    for _ in range(times):
        viewport.repaint()
        lost = before - sys.getrefcount(None)
        if lost > SLACK:
            break
    return lost


def _give_back(lost: int) -> None:
    """Return references a leaking build took from None, so the process lives to report the failure."""
    for _ in range(max(0, lost)):
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(None))
