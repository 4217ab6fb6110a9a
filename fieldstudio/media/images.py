"""Image probing and loading: the one loader used for display, thumbnails, model payloads and export.

Every image is returned upright (EXIF orientation applied once, here) as RGB uint8. Files are read
through ``np.fromfile`` + ``cv2.imdecode`` so non-ASCII paths work on Windows, with ``IMREAD_COLOR``
so OpenCV applies EXIF orientation (pitfalls.md §4, §5). Pillow reads the header only, for the size
and the orientation tag, without decoding pixels, so a 12000 x 12000 JPEG is probed in milliseconds.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

from fieldstudio.core.atomic import atomic_write_bytes
from fieldstudio.core.errors import MediaError

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff"}
# Above this many pixels a full decode is refused; a reduced decode is used instead.
MAX_FULL_DECODE_PIXELS = 80_000_000
MAX_IMAGE_PIXELS = 250_000_000
"""Default import limit (width x height of the header): larger images are refused by ``library.add_paths``
as decompression bombs (pitfalls.md, "decompression bombs"); its ``max_image_pixels`` and
``fieldstudio add --max-image-pixels`` change it."""

Image.MAX_IMAGE_PIXELS = None  # we bound memory ourselves, by reduced decoding
warnings.simplefilter("ignore", Image.DecompressionBombWarning)

_SWAPS_AXES = {5, 6, 7, 8}  # EXIF orientations that rotate by 90 or 270 degrees


@dataclass(frozen=True)
class ImageProbe:
    """Header facts of an image: upright ``width`` x ``height`` pixels, ``format``, EXIF ``orientation``;
    ``damage`` says what is wrong with an image that decodes only partly (a cut JPEG), else None."""

    width: int
    height: int
    format: str
    orientation: int
    damage: str | None = None


def probe_image(path: Path) -> ImageProbe:
    """Read an image header: upright size (EXIF orientation applied), format and orientation tag.

    Raises MediaError naming the file when it is empty, not an image (whatever its name says) or
    its header is damaged. A JPEG whose data ends before its picture does is readable (the part that
    decodes is shown) and its ``damage`` says so.
    """
    path = Path(path)
    try:
        if path.stat().st_size == 0:
            raise MediaError(path, "is empty (0 bytes)")
        with Image.open(path) as im:
            fmt = (im.format or "").lower()
            width, height = im.size
            try:
                orientation = int(im.getexif().get(0x0112, 1) or 1)
            except Exception:  # noqa: BLE001 - a damaged EXIF block is not a damaged image
                orientation = 1
        with Image.open(path) as im:
            im.verify()  # structure and checksums, without decoding pixels
    except MediaError:
        raise
    except FileNotFoundError as exc:
        raise MediaError(path, "no longer exists") from exc
    except UnidentifiedImageError as exc:
        raise MediaError(path, "is not an image file (the content is not JPEG, PNG, WebP, BMP or TIFF)") from exc
    except (OSError, SyntaxError, ValueError) as exc:
        raise MediaError(path, f"image is damaged or truncated ({exc})") from exc
    if orientation not in range(1, 9):
        orientation = 1
    if orientation in _SWAPS_AXES:
        width, height = height, width
    damage = jpeg_damage(path) if fmt == "jpeg" else None
    return ImageProbe(width=width, height=height, format=fmt, orientation=orientation, damage=damage)


def jpeg_damage(path: Path) -> str | None:
    """Why a JPEG decodes only partly (its data ends before the picture does), or None when it is whole.

    A whole JPEG ends with its end-of-image marker, read from the file's last bytes (the usual case costs no
    decoding). Without it (a cut copy, or data some cameras append after the picture) the image is decoded
    at 1/8 scale, which reads every scan: a decoder that runs out of data says the file is truncated.
    """
    size = path.stat().st_size
    with open(path, "rb") as f:
        f.seek(max(0, size - 64))
        if f.read().rstrip(b"\x00").endswith(b"\xff\xd9"):
            return None
    try:
        with Image.open(path) as im:
            im.draft("RGB", (max(1, im.width // 8), max(1, im.height // 8)))
            im.load()
    except (OSError, SyntaxError, ValueError) as exc:
        return f"truncated: the image data ends before the picture does ({exc}); the part that decodes is shown"
    return None


def read_image(path: Path, *, max_side: int | None = None) -> np.ndarray:
    """Load an image upright as an RGB uint8 array of shape (H, W, 3).

    Args:
        path: image file (any name, including non-ASCII).
        max_side: if given, the result's longest side is at most this many pixels; JPEGs are then
            decoded at a reduced scale (1/2, 1/4, 1/8) so a huge photo never needs its full-size buffer.
    Raises:
        MediaError: the file cannot be decoded, or it is too large to decode in full and no
            ``max_side`` was given.
    """
    path = Path(path)
    probe = probe_image(path)
    pixels = probe.width * probe.height
    flag = cv2.IMREAD_COLOR
    if max_side:
        scale = max(probe.width, probe.height) / max_side
        if scale >= 8:
            flag = cv2.IMREAD_REDUCED_COLOR_8
        elif scale >= 4:
            flag = cv2.IMREAD_REDUCED_COLOR_4
        elif scale >= 2:
            flag = cv2.IMREAD_REDUCED_COLOR_2
    elif pixels > MAX_FULL_DECODE_PIXELS:
        raise MediaError(path, f"is {probe.width}x{probe.height} pixels, too large to decode in full")
    try:
        buf = np.fromfile(path, dtype=np.uint8)
    except OSError as exc:
        raise MediaError(path, f"cannot be read ({exc.strerror or exc})") from exc
    try:
        bgr = cv2.imdecode(buf, flag)
    except cv2.error as exc:  # e.g. a header above OpenCV's own pixel limit (CV_IO_MAX_IMAGE_PIXELS)
        raise MediaError(path, f"image data cannot be decoded ({str(exc).strip().splitlines()[-1]})") from exc
    if bgr is None and probe.damage:
        rgb = _read_partial(path, probe.orientation)  # OpenCV refuses a cut JPEG whole; FFmpeg shows its part
    elif bgr is None:
        raise MediaError(path, "image data cannot be decoded (damaged or unsupported)")
    else:
        if bgr.ndim == 2:
            bgr = cv2.cvtColor(bgr, cv2.COLOR_GRAY2BGR)
        rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    if max_side and max(rgb.shape[:2]) > max_side:
        rgb = fit_within(rgb, max_side)
    return rgb


def _read_partial(path: Path, orientation: int) -> np.ndarray:
    """The part of a damaged JPEG that decodes, upright RGB (FFmpeg's decoder keeps the rows it read and
    fills the rest). Raises MediaError when nothing decodes."""
    import av

    try:
        with av.open(str(path)) as container:
            rgb = next(container.decode(video=0)).to_ndarray(format="rgb24")
    except (av.error.FFmpegError, StopIteration, OSError) as exc:
        raise MediaError(path, f"image data cannot be decoded ({exc})") from exc
    turns = {3: 2, 6: -1, 8: 1}  # EXIF orientation -> quarter turns counter-clockwise that make it upright
    if orientation in (2, 4, 5, 7):
        rgb = rgb[:, ::-1] if orientation == 2 else rgb[::-1] if orientation == 4 else \
            np.rot90(rgb, -1)[:, ::-1] if orientation == 5 else np.rot90(rgb, 1)[:, ::-1]
    elif orientation in turns:
        rgb = np.rot90(rgb, turns[orientation])
    return np.ascontiguousarray(rgb)


def fit_within(rgb: np.ndarray, max_side: int) -> np.ndarray:
    """Downscale (area interpolation) so the longest side is at most ``max_side`` pixels."""
    h, w = rgb.shape[:2]
    scale = max_side / max(h, w)
    if scale >= 1:
        return rgb
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)


def encode_jpeg(rgb: np.ndarray, quality: int = 85) -> bytes:
    """Encode an RGB uint8 array as JPEG bytes (quality 0-100)."""
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return buf.tobytes()


def write_image(path: Path, rgb: np.ndarray) -> None:
    """Write an RGB array to ``path`` (format from the suffix) atomically, non-ASCII paths included."""
    path = Path(path)
    ext = path.suffix.lower() or ".png"
    ok, buf = cv2.imencode(ext, cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    if not ok:
        raise ValueError(f"{path}: cannot encode as {ext}")
    atomic_write_bytes(path, buf.tobytes())
