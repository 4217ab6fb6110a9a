"""The canvas lets the picture it replaces go after the new one is painted (``Canvas.set_image``, ``paintEvent``):
freeing a full-size frame is ~1 ms between a decoded frame and its paint."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from fieldstudio.gui.imaging import screen_image_from_bgra
from fieldstudio.gui.viewer.canvas import Canvas

pytestmark = pytest.mark.gui


def _picture(shade: int) -> np.ndarray:
    bgra = np.full((270, 480, 4), shade, dtype=np.uint8)
    bgra[..., 3] = 255
    return bgra


def test_the_replaced_picture_is_let_go_after_the_next_paint_and_not_before(qtbot):
    canvas = Canvas()
    qtbot.addWidget(canvas)
    canvas.resize(640, 400)
    canvas.show()
    qtbot.waitExposed(canvas)
    first = _picture(40)
    gone = weakref.ref(first)
    canvas.set_image(screen_image_from_bgra(first))
    canvas.viewport().repaint()
    del first
    gc.collect()
    assert gone() is not None                   # on screen
    canvas.set_image(screen_image_from_bgra(_picture(200)), keep_view=True)
    gc.collect()
    assert gone() is not None                   # replaced, its memory not yet handed back before the paint
    canvas.viewport().repaint()
    qtbot.waitUntil(lambda: gc.collect() >= 0 and gone() is None, timeout=2000)
    assert canvas.image().pixel(5, 5) & 0xFFFFFF == 0xC8C8C8  # the new picture is the one shown


def test_pictures_replaced_while_the_canvas_is_not_painted_do_not_pile_up(qtbot):
    canvas = Canvas()
    qtbot.addWidget(canvas)  # never shown: never painted
    kept = []
    for shade in (10, 20, 30, 40):
        array = _picture(shade)
        kept.append(weakref.ref(array))
        canvas.set_image(screen_image_from_bgra(array), keep_view=True)
        del array
    gc.collect()
    assert [ref() is None for ref in kept] == [True, True, False, False]  # the one replaced last, and the one shown
