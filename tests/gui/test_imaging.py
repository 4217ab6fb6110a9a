"""Pixels crossing into Qt: the decoding thread's picture is in the pixmap's own format."""

from __future__ import annotations

import gc
import sys
import threading

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


def test_a_bgra_frame_for_the_screen_is_the_same_image_sharing_its_pixels(qapp):
    rng = np.random.default_rng(5)
    rgb = rng.integers(0, 256, size=(6, 9, 3), dtype=np.uint8)
    bgra = np.dstack([rgb[..., 2], rgb[..., 1], rgb[..., 0], np.full(rgb.shape[:2], 255, np.uint8)])
    image = screen_image_from_bgra(bgra)
    assert image.format() == QImage.Format.Format_RGB32
    assert image == screen_image_from_rgb(rgb)
    assert np.array_equal(rgb_from_qimage(image), rgb)
    bgra[0, 0] = (3, 2, 1, 255)                          # not copied: the decoding thread spares 8 MB per 1080p frame
    assert image.pixel(0, 0) == qRgb(1, 2, 3)
    with pytest.raises(ValueError):
        screen_image_from_bgra(rgb)


def test_the_shared_pixels_live_as_long_as_the_image_and_its_pixmap(qapp):
    """The array the image shares is kept alive by the image's pixels, also after the image made on the decoding
    thread is gone, and let go with the last user of those pixels (no 8 MB kept per frame shown)."""
    rgb = np.random.default_rng(6).integers(0, 256, size=(8, 10, 3), dtype=np.uint8)
    bgra = np.dstack([rgb[..., 2], rgb[..., 1], rgb[..., 0], np.full(rgb.shape[:2], 255, np.uint8)])
    alone = sys.getrefcount(bgra)
    made: list[QImage] = []
    thread = threading.Thread(target=lambda: made.append(screen_image_from_bgra(bgra)))
    thread.start()
    thread.join()
    pixmap = QPixmap.fromImage(made.pop())               # what the canvas keeps; the thread's image is gone
    gc.collect()
    assert sys.getrefcount(bgra) > alone
    assert np.array_equal(rgb_from_qimage(pixmap.toImage()), rgb)
    del pixmap
    gc.collect()
    assert sys.getrefcount(bgra) == alone


def test_a_bgra_array_of_padded_rows_or_read_only_is_shown_too(qapp):
    rgb = np.random.default_rng(7).integers(0, 256, size=(4, 6, 3), dtype=np.uint8)
    bgra = np.dstack([rgb[..., 2], rgb[..., 1], rgb[..., 0], np.full(rgb.shape[:2], 255, np.uint8)])
    padded = np.zeros((4, 8, 4), np.uint8)
    padded[:, :6] = bgra
    assert np.array_equal(rgb_from_qimage(screen_image_from_bgra(padded[:, :6])), rgb)
    bgra.setflags(write=False)
    assert np.array_equal(rgb_from_qimage(screen_image_from_bgra(bgra)), rgb)
