"""The exact frame's picture, made at the size it covers on screen, is drawn as a blit (``ExactFrameItem``,
``blit_target``): the pixels on screen are the picture's own, where drawing it through the canvas's near-1:1 transform
(the fit's scale times the picture's, 0.9999...) resampled every pixel (1.1 ms of a 1090 x 613 picture against
0.14 ms for its blit)."""

from __future__ import annotations

import numpy as np
import pytest

from fieldstudio.gui.imaging import rgb_from_qimage, screen_image_from_bgra
from fieldstudio.gui.viewer.canvas import Canvas

pytestmark = pytest.mark.gui

FULL = (1920, 1080)


def _checkerboard(w: int, h: int) -> np.ndarray:
    """B, G, R, 255 one-pixel checks: any resampling blends neighbours into grey."""
    ys, xs = np.mgrid[0:h, 0:w]
    on = ((xs + ys) % 2).astype(np.uint8) * 255
    return np.dstack([on, 255 - on, on, np.full_like(on, 255)])


def _canvas(qtbot) -> Canvas:  # noqa: ANN001 - pytest-qt's qtbot
    canvas = Canvas()
    qtbot.addWidget(canvas)
    canvas.resize(700, 420)
    canvas.show()
    qtbot.waitExposed(canvas)
    canvas.set_image(screen_image_from_bgra(_checkerboard(64, 36)), FULL)  # fitted to the view: the zoom is set
    return canvas


def _shown(canvas: Canvas, w: int, h: int) -> np.ndarray:
    """The viewport's pixels where the picture of ``w`` x ``h`` is drawn (its top-left found by the checks)."""
    grabbed = rgb_from_qimage(canvas.viewport().grab().toImage())
    top_left = canvas.mapFromScene(0, 0)
    x, y = round(top_left.x()), round(top_left.y())
    return grabbed[y:y + h, x:x + w]


def test_a_picture_made_at_the_size_it_covers_is_shown_pixel_for_pixel(qtbot):
    canvas = _canvas(qtbot)
    w, h = canvas.render_size(FULL)
    picture = _checkerboard(w, h)
    canvas.set_image(screen_image_from_bgra(picture.copy()), FULL, keep_view=True)
    shown = _shown(canvas, w, h)
    assert shown.shape == (h, w, 3)
    assert np.array_equal(shown, picture[..., 2::-1])


def test_a_picture_of_another_size_is_still_scaled_to_cover_the_frame(qtbot):
    canvas = _canvas(qtbot)
    w, h = canvas.render_size(FULL)
    canvas.set_image(screen_image_from_bgra(_checkerboard(w // 2, h // 2)), FULL, keep_view=True)
    shown = _shown(canvas, w, h).astype(int)
    assert shown.shape == (h, w, 3)
    # scaled up 2x, smoothly: the one-pixel checks become blends, none of them the pure colours of a blit
    assert 0.25 < (np.abs(shown[..., 0] - shown[..., 1]) < 200).mean()
