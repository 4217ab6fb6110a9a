"""Conversions between numpy frames and Qt images; the only place pixels cross into Qt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QImage

if TYPE_CHECKING:
    import numpy as np


def qimage_from_rgb(rgb: np.ndarray) -> QImage:
    """A QImage (Format_RGB888) holding its own copy of an (H, W, 3) uint8 RGB array."""
    import numpy as np  # here, not at the top: the window starts before numpy is needed

    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 array, got {rgb.shape} {rgb.dtype}")
    rgb = np.ascontiguousarray(rgb)
    h, w, _ = rgb.shape
    return QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()


def screen_image_from_rgb(rgb: np.ndarray) -> QImage:
    """A QImage (Format_RGB32, 0xffRRGGBB) holding its own converted copy of an (H, W, 3) uint8 RGB array.

    RGB32 is the opaque format of Qt's raster pixmaps: ``QPixmap.fromImage`` of it shares the pixels instead of
    converting them, so a decoding thread that makes it spares the GUI thread the conversion (4-6 ms for a
    1080p frame). Raises ValueError as ``qimage_from_rgb``.
    """
    import numpy as np

    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 array, got {rgb.shape} {rgb.dtype}")
    rgb = np.ascontiguousarray(rgb)
    h, w, _ = rgb.shape
    return QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888).convertToFormat(QImage.Format.Format_RGB32)


def screen_image_from_bgra(bgra: np.ndarray) -> QImage:
    """A QImage (Format_RGB32) over the pixels of an (H, W, 4) uint8 array of B, G, R, 255 (what
    ``FrameReader.get_bgra`` makes), shared, not copied: the same image as ``screen_image_from_rgb`` of its RGB.

    PySide keeps the array alive for as long as the image's pixels are used (by any copy of the image, or a raster
    pixmap made from it, which shares them too) and lets it go with the last of them, on whichever thread. Copying
    1080p's 8 MB into fresh pages took 9-70 ms of the decoding thread at load 5-7, between the decode and the paint
    of every exact frame. The caller must not write to the array afterwards (``get_bgra`` makes a new one each
    time). An array whose rows are not packed pixels is copied first. Raises ValueError for another shape or dtype.
    """
    import numpy as np

    if bgra.ndim != 3 or bgra.shape[2] != 4 or bgra.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 4) uint8 array, got {bgra.shape} {bgra.dtype}")
    if not bgra.flags.c_contiguous:
        bgra = np.ascontiguousarray(bgra)
    h, w, _ = bgra.shape
    return QImage(bgra.data, w, h, 4 * w, QImage.Format.Format_RGB32)


def rgb_from_qimage(image: QImage) -> np.ndarray:
    """An (H, W, 3) uint8 RGB copy of any QImage (converted to RGB888 first)."""
    import numpy as np

    img = image.convertToFormat(QImage.Format.Format_RGB888)
    w, h, bpl = img.width(), img.height(), img.bytesPerLine()
    buf = np.frombuffer(img.constBits(), dtype=np.uint8, count=bpl * h).reshape(h, bpl)
    return buf[:, : 3 * w].reshape(h, w, 3).copy()


def format_pts(seconds: float | None) -> str:
    """PTS seconds as HH:MM:SS.mmm (``--:--:--.---`` when unknown); negative times keep their sign."""
    if seconds is None:
        return "--:--:--.---"
    sign = "-" if seconds < 0 else ""
    ms = int(round(abs(seconds) * 1000))
    h, rem = divmod(ms, 3_600_000)
    m, rem = divmod(rem, 60_000)
    s, ms = divmod(rem, 1000)
    return f"{sign}{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def parse_time_or_frame(text: str) -> tuple[str, float]:
    """Parse what a user types in "Go to": ``123`` or ``#123`` (a frame), ``12.5s``, ``1:02.5``, ``0:01:02.5``.

    Returns ("frame", index) or ("time", seconds). Raises ValueError with the reason on anything else,
    such as a time of day ("12:30 PM": ``matchers.time_of_day_issue``).
    """
    from fieldstudio.core.matchers import time_of_day_issue  # here: its regexes are not needed to open a window

    t = text.strip().lower()
    if not t:
        raise ValueError("type a frame number (e.g. 120) or a time (e.g. 0:01:02.5 or 62.5s)")
    clock = time_of_day_issue(text)
    if clock is not None:
        raise ValueError(clock)
    if t.startswith("#"):
        t = t[1:]
        if not t.isdigit():
            raise ValueError(f"{text!r}: a frame number is a whole number")
        return "frame", float(int(t))
    if t.endswith("s") and ":" not in t:
        try:
            return "time", float(t[:-1])
        except ValueError:
            raise ValueError(f"{text!r}: not a time in seconds") from None
    if ":" in t:
        parts = t.split(":")
        if len(parts) > 3:
            raise ValueError(f"{text!r}: use H:MM:SS.mmm or M:SS.mmm")
        try:
            values = [float(p) for p in parts]
        except ValueError:
            raise ValueError(f"{text!r}: not a time; use H:MM:SS.mmm") from None
        seconds = 0.0
        for v in values:
            seconds = seconds * 60 + v
        return "time", seconds
    if t.isdigit():
        return "frame", float(int(t))
    raise ValueError(f"{text!r}: type a frame number (e.g. 120) or a time (e.g. 0:01:02.5 or 62.5s)")
