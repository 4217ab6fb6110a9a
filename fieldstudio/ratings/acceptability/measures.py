"""Programmatic acceptability measures of a photo or frame and a target box in it.

These are the image terms a RealityBench-style programmatic scorer can use to judge whether a photo
is acceptable proof of work (reference/benchmarks.md, section 4.1; the paper's own terms are
unverified, so each definition here is fieldstudio's and is stated with its source).

Conventions:
    image: RGB, uint8, numpy array of shape (H, W, 3) (convert OpenCV's BGR before calling).
    box: [x1, y1, x2, y2] floats in pixels of the same image, x1 < x2 and y1 < y2. The image covers
        the continuous rectangle [0, W] x [0, H]; pixel (i, j) covers [i, i+1) x [j, j+1). Pixel-based
        measures of a box use every pixel that the box overlaps, within the frame.
    luma: Rec. ITU-R BT.601 luma of the gamma-encoded values, Y' = 0.299 R' + 0.587 G' + 0.114 B',
        on the 0..255 scale (the weights of OpenCV's RGB2GRAY and of JPEG), computed in float
        (exactly, as integers x 1000, for the clipping thresholds).
Bad arguments (wrong image shape or dtype, an empty box, a box wholly outside the frame) raise
ValueError: they are programming errors, not user errors.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import cv2
import numpy as np

Box = Sequence[float]

#: Luma at or below which a pixel counts as a clipped shadow (0..255 scale).
SHADOW_CLIP_LUMA = 5
#: Luma at or above which a pixel counts as a clipped highlight (0..255 scale).
HIGHLIGHT_CLIP_LUMA = 250
#: Longest side, in pixels, the box is resampled to for the resolution-normalised sharpness.
SHARPNESS_REF_SIDE = 256
#: Gaussian anti-alias filter (sigma, in reference pixels) applied before shrinking to that size.
SHARPNESS_ANTIALIAS_SIGMA = 0.5
#: Percentiles of luma taken as I_min and I_max by the robust Michelson contrast.
MICHELSON_PERCENTILES = (1.0, 99.0)

MEASURE_KEYS = ("sharpness_lap_var", "sharpness_norm", "shadows_clipped", "highlights_clipped", "mean_luma",
                "rms_contrast", "michelson_contrast", "box_area_share", "box_in_frame",
                "box_edge_distance_px", "occluded_fraction")


# --------------------------------------------------------------------------- inputs


def _check_image(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        shape = getattr(image, "shape", None)
        dtype = getattr(image, "dtype", None)
        raise ValueError(f"expected an RGB uint8 image of shape (H, W, 3), got shape {shape} dtype {dtype}")
    if image.shape[0] == 0 or image.shape[1] == 0:
        raise ValueError("the image is empty")
    return image


def _check_box(box: Box) -> tuple[float, float, float, float]:
    try:
        x1, y1, x2, y2 = (float(v) for v in box)
    except (TypeError, ValueError):
        raise ValueError(f"a box is [x1, y1, x2, y2] in pixels, got {box!r}") from None
    if not all(math.isfinite(v) for v in (x1, y1, x2, y2)) or x2 <= x1 or y2 <= y1:
        raise ValueError(f"a box needs finite x1 < x2 and y1 < y2, got {box!r}")
    return x1, y1, x2, y2


def _pixel_window(shape: tuple[int, ...], box: Box | None) -> tuple[int, int, int, int]:
    """Integer pixel window [c0, c1) x [r0, r1) of the pixels the box overlaps, within the frame."""
    h, w = shape[:2]
    if box is None:
        return 0, 0, w, h
    x1, y1, x2, y2 = _check_box(box)
    c0, r0 = max(0, math.floor(x1)), max(0, math.floor(y1))
    c1, r1 = min(w, math.ceil(x2)), min(h, math.ceil(y2))
    if c1 <= c0 or r1 <= r0:
        raise ValueError(f"the box {list(box)} lies outside the {w}x{h} frame")
    return c0, r0, c1, r1


def luma(image: np.ndarray) -> np.ndarray:
    """Rec. 601 luma Y' = 0.299 R + 0.587 G + 0.114 B of an RGB uint8 image.

    Returns: float64 array of shape (H, W), values 0..255.
    """
    img = _check_image(image)
    return img[..., 0] * 0.299 + img[..., 1] * 0.587 + img[..., 2] * 0.114


_LUMA_MILLI = np.array([[299.0, 587.0, 114.0]], dtype=np.float32)


def _luma_milli(pixels: np.ndarray) -> np.ndarray:
    """Luma x 1000 (299 R + 587 G + 114 B), for threshold tests without rounding.

    Computed by cv2.transform in float32, which is exact here: every product and sum is an integer
    below 255,000 < 2^24. Returns shape (H, W) float32 holding whole numbers.
    """
    out = cv2.transform(pixels.astype(np.float32), _LUMA_MILLI)  # float input: cv2 keeps float output
    return out.reshape(pixels.shape[:2])  # (H, W)


# --------------------------------------------------------------------------- sharpness


def _variance(values: np.ndarray) -> float:
    """Population variance of a 2-D float64 array (a view is fine), by ``cv2.meanStdDev`` in float64: one pass
    in C, where numpy's ``var`` makes a temporary array the size of the input and took a third of
    ``measure_all`` on a 12 MP photo (bench_acceptability.py). The same value to about 1e-12 (relative; the
    luma's mean and spread are of one order); exactly 0.0 for a constant array."""
    if values.size == 0:
        return 0.0
    lo, hi, _, _ = cv2.minMaxLoc(values)
    if lo == hi:
        return 0.0
    _, std = cv2.meanStdDev(values)
    return float(std[0, 0]) ** 2


def _laplacian_variance(gray: np.ndarray) -> float:
    """Variance of the 4-neighbour Laplacian [[0,1,0],[1,-4,1],[0,1,0]] over the valid interior."""
    if gray.shape[0] < 3 or gray.shape[1] < 3:
        return 0.0
    lap = cv2.Laplacian(gray, cv2.CV_64F, ksize=1)
    return _variance(lap[1:-1, 1:-1])


def sharpness_laplacian_variance(image: np.ndarray, box: Box | None = None) -> float:
    """Variance of the Laplacian of the luma in the box (whole frame when box is None).

    Definition: L = cv2.Laplacian(Y', ksize=1), the 4-neighbour kernel [[0,1,0],[1,-4,1],[0,1,0]],
    evaluated on the luma with the neighbours outside the box taken from the image (so the box
    edge adds no artefact), and var(L) over the box's pixels. Units: (luma levels / px^2)^2.
    Source: Pech-Pacheco et al., "Diatom autofocusing in brightfield microscopy: a comparative
    study", ICPR 2000 (the "variance of Laplacian" focus measure).
    Depends on resolution: the same scene at half the pixels has a much higher value (every edge is
    twice as steep per pixel), so compare only frames of one size; see :func:`sharpness_normalised`.
    Returns 0.0 for a box less than 3 pixels wide or high.
    """
    img = _check_image(image)
    window = _pixel_window(img.shape, box)
    ring = _ring_window(img.shape, window)
    return _lapvar_in_box(luma(img[ring[1]:ring[3], ring[0]:ring[2]]), img.shape, window, ring)


def _ring_window(shape: tuple[int, ...], window: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The box's pixel window grown by one pixel on each side, within the frame."""
    h, w = shape[:2]
    c0, r0, c1, r1 = window
    return max(0, c0 - 1), max(0, r0 - 1), min(w, c1 + 1), min(h, r1 + 1)


def _lapvar_in_box(gray: np.ndarray, shape: tuple[int, ...], window: tuple[int, int, int, int],
                   ring: tuple[int, int, int, int]) -> float:
    """:func:`sharpness_laplacian_variance` given the luma of the ring window."""
    h, w = shape[:2]
    c0, r0, c1, r1 = window
    e0, f0, _e1, _f1 = ring
    lap = cv2.Laplacian(gray, cv2.CV_64F, ksize=1, borderType=cv2.BORDER_REFLECT)
    inner = lap[r0 - f0:r1 - f0, c0 - e0:c1 - e0]
    # a box touching the frame edge has its outer ring computed from reflected pixels: drop it
    inner = inner[(1 if r0 == 0 else 0):inner.shape[0] - (1 if r1 == h else 0),
                  (1 if c0 == 0 else 0):inner.shape[1] - (1 if c1 == w else 0)]
    if inner.size == 0 or (r1 - r0) < 3 or (c1 - c0) < 3:
        return 0.0
    return _variance(inner)


def sharpness_normalised(image: np.ndarray, box: Box | None = None, *, ref_side: int = SHARPNESS_REF_SIDE) -> float:
    """Variance of the Laplacian after resampling the box so its longest side is ``ref_side`` pixels.

    Definition: the box's luma is resampled, aspect kept, so that its longer side is ``ref_side``
    (256) px. Shrinking first low-pass filters with a Gaussian of sigma = SHARPNESS_ANTIALIAS_SIGMA
    (0.5) reference px (= 0.5 / scale source px), then averages with cv2.INTER_AREA; enlarging uses
    cv2.INTER_LINEAR. The result is the variance of the 4-neighbour Laplacian over the valid
    interior of the resampled patch. Units: (luma levels / reference px^2)^2.

    Why it is comparable across resolutions: the Laplacian is always taken on the same sampling of
    the object (``ref_side`` samples along the box) behind the same anti-alias filter, whatever the
    camera's resolution or the object's size in pixels, so it measures the detail present at that
    fixed scale. Detail finer than the reference grid, which is what a lower resolution loses, is
    filtered out of every input alike: a photo and its 2x downscale read within about 5 %, and its
    2x downscale-then-upscale within about 10 % (tests/ratings/test_acceptability_measures.py), while the plain
    variance of Laplacian changes by a factor of 3 to 10. This holds while the box has at least
    about 2 x ``ref_side`` px along its longer side; a box with fewer pixels is enlarged and reads
    softer, as it looks when a rater zooms in, so the value then also reflects the lack of pixels.
    It is not divided by the contrast on purpose: a contrast-normalised measure scores sensor noise
    on a flat wall as "sharp". Use :func:`sharpness_laplacian_variance` for fine focus differences
    between frames of one size.
    Source: the variance-of-Laplacian focus measure (Pech-Pacheco et al., ICPR 2000) on a fixed
    sampling grid; the grid and filter are fieldstudio's (RealityBench does not publish its own).
    """
    img = _check_image(image)
    c0, r0, c1, r1 = _pixel_window(img.shape, box)
    return _normalised_from_luma(luma(img[r0:r1, c0:c1]), ref_side)


def _normalised_from_luma(gray: np.ndarray, ref_side: int = SHARPNESS_REF_SIDE) -> float:
    """:func:`sharpness_normalised` given the luma of the box's pixels."""
    h, w = gray.shape
    scale = float(ref_side) / max(h, w)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    if scale < 1:
        gray = cv2.GaussianBlur(gray, (0, 0), SHARPNESS_ANTIALIAS_SIGMA / scale, borderType=cv2.BORDER_REFLECT)
        resized = cv2.resize(gray, size, interpolation=cv2.INTER_AREA)
    elif scale > 1:
        resized = cv2.resize(gray, size, interpolation=cv2.INTER_LINEAR)
    else:
        resized = gray
    return _laplacian_variance(resized)


# --------------------------------------------------------------------------- exposure


def clipped_fractions(image: np.ndarray, box: Box | None = None) -> tuple[float, float]:
    """Fractions (0..1) of pixels with clipped shadows (luma <= 5) and clipped highlights (luma >= 250).

    Luma is Rec. 601 on 0..255, compared exactly (299 R + 587 G + 114 B against 5000 and 250000).
    A pixel with one saturated channel but a mid luma is not counted. Whole frame when box is None.
    Returns: (shadows_clipped, highlights_clipped).
    Source: the usual histogram-clipping check of exposure; the thresholds are fieldstudio's.
    """
    img = _check_image(image)
    c0, r0, c1, r1 = _pixel_window(img.shape, box)
    return _clipped(img[r0:r1, c0:c1])


def _clipped(pixels: np.ndarray) -> tuple[float, float]:
    """:func:`clipped_fractions` of an RGB block, exactly, without the luma of every pixel.

    OpenCV's rounded grey (fixed-point Rec. 601, within 0.02 of the true luma) picks the candidates a
    level either side of each threshold; only those are tested with the exact integer luma.
    """
    block = np.ascontiguousarray(pixels)
    n = block.shape[0] * block.shape[1]
    gray = cv2.cvtColor(block, cv2.COLOR_RGB2GRAY).ravel()
    flat = block.reshape(-1, 3)
    counts = []
    for candidates, test in ((gray <= SHADOW_CLIP_LUMA + 1, lambda y: y <= SHADOW_CLIP_LUMA * 1000),
                             (gray >= HIGHLIGHT_CLIP_LUMA - 1, lambda y: y >= HIGHLIGHT_CLIP_LUMA * 1000)):
        picked = flat[np.flatnonzero(candidates)]  # (k, 3); indices, since a boolean mask on 3 channels is slow
        counts.append(int(np.count_nonzero(test(_luma_milli(picked[None])))) if len(picked) else 0)
    return float(counts[0]) / n, float(counts[1]) / n


def mean_luma(image: np.ndarray, box: Box | None = None) -> float:
    """Mean Rec. 601 luma (0..255) over the box, or the whole frame when box is None."""
    img = _check_image(image)
    c0, r0, c1, r1 = _pixel_window(img.shape, box)
    return _mean_luma(img[r0:r1, c0:c1])


def _mean_luma(pixels: np.ndarray) -> float:
    # the mean of a weighted sum is the weighted sum of the channel totals; cv2.sumElems adds the
    # whole numbers in float64, exactly (the totals stay far below 2^53)
    r, g, b, _ = cv2.sumElems(np.ascontiguousarray(pixels))
    n = pixels.shape[0] * pixels.shape[1]
    return float((299 * r + 587 * g + 114 * b) / n / 1000.0)


# --------------------------------------------------------------------------- contrast


def rms_contrast(image: np.ndarray, box: Box | None = None) -> float:
    """RMS contrast: standard deviation of the luma normalised to 0..1, over the box.

    Definition: std(Y' / 255) (population std), so 0 for a flat patch and at most 0.5 (half black,
    half white). Dimensionless. Source: E. Peli, "Contrast in complex images", JOSA A 7(10), 1990.
    """
    img = _check_image(image)
    c0, r0, c1, r1 = _pixel_window(img.shape, box)
    return _rms_from_luma(luma(img[r0:r1, c0:c1]))


def _rms_from_luma(gray: np.ndarray) -> float:
    return math.sqrt(_variance(gray)) / 255.0


def michelson_contrast(image: np.ndarray, box: Box | None = None, *,
                       percentiles: tuple[float, float] = MICHELSON_PERCENTILES) -> float:
    """Robust Michelson contrast (I_max - I_min) / (I_max + I_min) of the luma in the box.

    I_min and I_max are the 1st and 99th percentiles of the luma (linear interpolation, numpy's
    default), not the extremes, so a few hot or dead pixels do not decide it; this suits text-like
    regions (dark strokes on a light label, or the reverse). Dimensionless, 0..1; 0.0 when both are 0.
    Source: A. A. Michelson, "Studies in Optics", 1927; the percentile variant is fieldstudio's.
    """
    img = _check_image(image)
    c0, r0, c1, r1 = _pixel_window(img.shape, box)
    return _michelson_from_luma(luma(img[r0:r1, c0:c1]), percentiles)


def _michelson_from_luma(gray: np.ndarray, percentiles: tuple[float, float] = MICHELSON_PERCENTILES) -> float:
    lo, hi = _luma_percentiles(gray, percentiles)
    return 0.0 if hi + lo <= 0 else float((hi - lo) / (hi + lo))


def _luma_percentiles(gray: np.ndarray, percentiles: Sequence[float]) -> list[float]:
    """``np.percentile(gray, percentiles)`` (linear interpolation) of a luma array (``luma``'s output), from a
    histogram: the luma is a whole number of thousandths (299 R + 587 G + 114 B over 1000), so its order
    statistics are read from the counts of its 255,001 possible values instead of partially sorting the
    pixels (numpy's partition was a sixth of ``measure_all`` on a 12 MP photo). The same values to the float
    rounding of ``luma`` (about 1e-13)."""
    flat = gray.ravel()
    n = flat.size
    milli = (flat * 1000.0 + 0.5).astype(np.int32)                 # rounded: the luma is >= 0
    below = np.cumsum(np.bincount(milli, minlength=255_001))      # below[v]: pixels with luma x 1000 <= v

    def order_statistic(k: int) -> float:                         # the k-th smallest (0-based), in luma
        return float(np.searchsorted(below, k, side="right")) / 1000.0

    out = []
    for q in percentiles:
        position = (n - 1) * q / 100.0
        k = math.floor(position)
        a, frac = order_statistic(k), position - k
        b = order_statistic(min(k + 1, n - 1))
        out.append(a + (b - a) * frac)
    return out


# --------------------------------------------------------------------------- box geometry


def box_area_share(box: Box, frame_size: tuple[int, int]) -> float:
    """Share (0..1) of the frame's area covered by the box's part inside the frame.

    Args:
        box: [x1, y1, x2, y2] pixels.
        frame_size: (width, height) in pixels.
    """
    x1, y1, x2, y2 = _check_box(box)
    w, h = frame_size
    iw = max(0.0, min(x2, w) - max(x1, 0.0))
    ih = max(0.0, min(y2, h) - max(y1, 0.0))
    return iw * ih / (float(w) * float(h))


def box_edge_distances(box: Box, frame_size: tuple[int, int]) -> dict[str, float]:
    """Distance of the box from each frame edge, in pixels and normalised by the frame's size.

    left = x1, top = y1, right = W - x2, bottom = H - y2 (pixels; negative when the box extends past
    that edge); ``*_norm`` divides left/right by W and top/bottom by H. ``min_px`` and ``min_norm``
    are the smallest of the four.
    Returns: dict with keys left, top, right, bottom, min_px, left_norm, top_norm, right_norm,
    bottom_norm, min_norm.
    """
    x1, y1, x2, y2 = _check_box(box)
    w, h = float(frame_size[0]), float(frame_size[1])
    px = {"left": x1, "top": y1, "right": w - x2, "bottom": h - y2}
    norm = {"left_norm": x1 / w, "top_norm": y1 / h, "right_norm": (w - x2) / w, "bottom_norm": (h - y2) / h}
    return {**px, "min_px": min(px.values()), **norm, "min_norm": min(norm.values())}


def box_in_frame(box: Box, frame_size: tuple[int, int]) -> bool:
    """True when the whole box lies within [0, W] x [0, H]; a box cut by a frame edge is False."""
    x1, y1, x2, y2 = _check_box(box)
    w, h = frame_size
    return x1 >= 0 and y1 >= 0 and x2 <= w and y2 <= h


def occluded_fraction(box: Box, others: Iterable[Box]) -> float:
    """Fraction (0..1) of the box's area covered by the union of the other boxes.

    Exact: each other box is clipped to the target, and the area of the union of the clipped
    rectangles is summed over the cells of the grid formed by all their x and y edges (coordinate
    compression), so overlaps among the others are counted once. Boxes that do not overlap the
    target are ignored. Units: area / area.
    """
    x1, y1, x2, y2 = _check_box(box)
    clipped = []
    for other in others:
        a1, b1, a2, b2 = _check_box(other)
        c = (max(a1, x1), max(b1, y1), min(a2, x2), min(b2, y2))
        if c[2] > c[0] and c[3] > c[1]:
            clipped.append(c)
    if not clipped:
        return 0.0
    rects = np.array(clipped)
    xs = np.unique(np.concatenate([rects[:, 0], rects[:, 2]]))
    ys = np.unique(np.concatenate([rects[:, 1], rects[:, 3]]))
    # covered[i, j]: cell [xs[j], xs[j+1]] x [ys[i], ys[i+1]] is inside some rectangle
    cx = (xs[:-1] + xs[1:]) / 2
    cy = (ys[:-1] + ys[1:]) / 2
    covered = np.zeros((cy.size, cx.size), dtype=bool)
    for a1, b1, a2, b2 in rects:
        covered |= ((cy > b1) & (cy < b2))[:, None] & ((cx > a1) & (cx < a2))[None, :]
    cell_area = np.diff(ys)[:, None] * np.diff(xs)[None, :]
    area = float(cell_area[covered].sum())
    return min(1.0, area / ((x2 - x1) * (y2 - y1)))


# --------------------------------------------------------------------------- all at once


def measure_all(image: np.ndarray, box: Box | None = None, others: Iterable[Box] = ()) -> dict[str, float | bool]:
    """Every measure, with stable keys (MEASURE_KEYS), for a scorer, a table or an export.

    Sharpness and contrast are taken over the box (the pixels of it inside the frame); exposure
    (shadows_clipped, highlights_clipped, mean_luma) over the whole frame, since clipping anywhere
    spoils the photo. With box None the box is the whole frame. ``box_edge_distance_px`` is the
    smallest of the four edge distances (negative when the box is cut by an edge); the others are
    as in their functions.
    """
    img = _check_image(image)
    h, w = img.shape[:2]
    target = [0.0, 0.0, float(w), float(h)] if box is None else list(_check_box(box))
    # each luma is computed once and shared: the same numbers as the single measures, a third of the time
    shadows, highlights = _clipped(img)
    window = _pixel_window(img.shape, target)
    ring = _ring_window(img.shape, window)
    ring_gray = luma(img[ring[1]:ring[3], ring[0]:ring[2]])
    c0, r0, c1, r1 = window
    box_gray = ring_gray[r0 - ring[1]:r1 - ring[1], c0 - ring[0]:c1 - ring[0]]
    return {
        "sharpness_lap_var": _lapvar_in_box(ring_gray, img.shape, window, ring),
        "sharpness_norm": _normalised_from_luma(box_gray),
        "shadows_clipped": shadows,
        "highlights_clipped": highlights,
        "mean_luma": _mean_luma(img),
        "rms_contrast": _rms_from_luma(box_gray),
        "michelson_contrast": _michelson_from_luma(box_gray),
        "box_area_share": box_area_share(target, (w, h)),
        "box_in_frame": box_in_frame(target, (w, h)),
        "box_edge_distance_px": box_edge_distances(target, (w, h))["min_px"],
        "occluded_fraction": occluded_fraction(target, list(others)),
    }
