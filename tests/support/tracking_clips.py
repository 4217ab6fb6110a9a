"""Clips of a textured rectangle moving on a smooth background along a known path, for the box tracker.

The rectangle (80 x 56 px: blocks of colour noise over green and blue ramps) is pasted at whole-pixel
positions computed here, so its true box on frame n is known exactly (``truth(n)``), independently of
fieldstudio. ``path="wave"`` crosses the image left to right on a sine, staying inside for 150 frames;
``path="exit"`` leaves through the right edge (fully outside from about frame 69 on); ``path="loop"``
runs on a Lissajous curve inside the image for any number of frames. Encoded by the
ffmpeg CLI (H.264, a keyframe every 30 frames, B-frames), 30 fps.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import numpy as np

BOX_W, BOX_H = 80, 56


def position(n: int, path: str) -> tuple[int, int]:
    """Top-left corner (x, y) of the rectangle on frame ``n`` (whole pixels)."""
    if path == "exit":
        return round(400 + 3.5 * n), round(150 + 20 * math.sin(n / 15))
    if path == "loop":
        return round(280 + 200 * math.sin(n / 40)), round(150 + 100 * math.sin(n / 23))
    return round(80 + 3.0 * n), round(150 + 70 * math.sin(n / 20.0))


def truth(n: int, path: str, width: int = 640, height: int = 360) -> tuple[float, float, float, float] | None:
    """The true box ``(x1, y1, x2, y2)`` of the part of the rectangle inside the image, None when none is."""
    x, y = position(n, path)
    x1, y1, x2, y2 = max(x, 0), max(y, 0), min(x + BOX_W, width), min(y + BOX_H, height)
    return (float(x1), float(y1), float(x2), float(y2)) if x2 > x1 and y2 > y1 else None


def _texture() -> np.ndarray:
    """Smoothed colour noise (fixed seed) over ramps: detailed but not periodic, so no shifted copy of the
    rectangle matches it (a checkerboard lets a correlation tracker lock on one period off)."""
    rng = np.random.default_rng(20)
    noise = rng.normal(0.0, 1.0, (BOX_H // 4 + 1, BOX_W // 4 + 1, 3))
    noise = np.repeat(np.repeat(noise, 4, axis=0), 4, axis=1)[:BOX_H, :BOX_W]
    ty, tx = np.mgrid[0:BOX_H, 0:BOX_W]
    tex = 128 + 70 * noise
    tex[..., 1] += 60 * (tx / BOX_W - 0.5)
    tex[..., 2] += 60 * (ty / BOX_H - 0.5)
    return np.clip(tex, 0, 255).astype(np.uint8)


def frame(n: int, path: str, width: int = 640, height: int = 360) -> np.ndarray:
    """RGB frame ``n``: the background with the rectangle pasted at ``position(n, path)``."""
    yy, xx = np.mgrid[0:height, 0:width]
    img = np.empty((height, width, 3), np.uint8)
    img[..., 0] = (100 + 60 * np.sin(xx / 37.0)).astype(np.uint8)
    img[..., 1] = (110 + 50 * np.cos(yy / 29.0)).astype(np.uint8)
    img[..., 2] = (90 + 40 * np.sin((xx + yy) / 53.0)).astype(np.uint8)
    x, y = position(n, path)
    tex = _texture()
    x0, x1 = max(x, 0), min(x + BOX_W, width)
    y0, y1 = max(y, 0), min(y + BOX_H, height)
    if x1 > x0 and y1 > y0:
        img[y0:y1, x0:x1] = tex[y0 - y:y1 - y, x0 - x:x1 - x]
    return img


def make_clip(out: Path, path: str = "wave", frames: int = 150, width: int = 640, height: int = 360,
              scale: int = 1) -> Path:
    """Encode ``frames`` frames of ``path`` to ``out`` (each frame enlarged ``scale`` times); returns ``out``."""
    exe = shutil.which("ffmpeg")
    if not exe:
        raise RuntimeError("ffmpeg is not installed")
    w, h = width * scale, height * scale
    cmd = [exe, "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", "30",
           "-i", "-", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p",
           "-g", "30", "-bf", "2", str(out)]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    for n in range(frames):
        img = frame(n, path, width, height)
        if scale > 1:
            img = np.repeat(np.repeat(img, scale, axis=0), scale, axis=1)
        proc.stdin.write(img.tobytes())
    proc.stdin.close()
    if proc.wait() != 0:
        raise RuntimeError(f"ffmpeg failed for {out}")
    return out


def iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Intersection over union of two ``(x1, y1, x2, y2)`` boxes."""
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0
