"""Pixels crossing into Qt: the decoding thread's picture is in the pixmap's own format."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QImage, QPixmap, qRgb

from fieldstudio.gui.imaging import rgb_from_qimage, screen_image_from_bgra, screen_image_from_rgb


def test_a_frame_for_the_screen_keeps_every_pixel_and_owns_them(qapp):
    rng = np.random.default_rng(4)
    rgb = rng.integers(0, 256, size=(7, 5, 3), dtype=np.uint8)
    image = screen_image_from_rgb(rgb[:, ::-1])          # a non-contiguous view is accepted too
    expected = rgb[:, ::-1].copy()
    rgb[:] = 0                                           # the image holds its own pixels
    assert image.format() == QImage.Format.Format_RGB32
    assert (image.width(), image.height()) == (5, 7)
    assert image.pixel(3, 6) == qRgb(*map(int, expected[6, 3]))
    assert np.array_equal(rgb_from_qimage(image), expected)


def test_its_pixmap_shares_the_pixels_instead_of_converting_them(qapp):
    """What spares the GUI thread a conversion: a raster pixmap made from RGB32 keeps the image's pixels."""
    image = screen_image_from_rgb(np.full((1080, 1920, 3), 9, dtype=np.uint8))
    assert QPixmap.fromImage(image).toImage().cacheKey() == image.cacheKey()
    converted = QImage(image).convertToFormat(QImage.Format.Format_RGB888)
    assert QPixmap.fromImage(converted).toImage().cacheKey() != converted.cacheKey()


def test_a_bgra_frame_for_the_screen_is_the_same_image_by_a_copy(qapp):
    rng = np.random.default_rng(5)
    rgb = rng.integers(0, 256, size=(6, 9, 3), dtype=np.uint8)
    bgra = np.dstack([rgb[..., 2], rgb[..., 1], rgb[..., 0], np.full(rgb.shape[:2], 255, np.uint8)])
    image = screen_image_from_bgra(bgra)
    bgra[:] = 0                                          # the image holds its own pixels
    assert image.format() == QImage.Format.Format_RGB32
    assert image == screen_image_from_rgb(rgb)
    assert np.array_equal(rgb_from_qimage(image), rgb)
    with pytest.raises(ValueError):
        screen_image_from_bgra(rgb)
