"""Acceptability measures checked on real photos and on synthetic images with hand-computed values."""

from __future__ import annotations

from pathlib import Path

from tests.support.shared_data import SHARED_DATA

import cv2
import numpy as np
import pytest

from fieldstudio.ratings.acceptability import measures as im

IMAGES = (SHARED_DATA / "media/images")
PHOTOS = ["ppe_electricians_hardhat_vest_wire_room_mta.jpg", "construction_site_mobile_crusher_sbm_pic4.jpg"]


def load_rgb(name: str) -> np.ndarray:
    path = IMAGES / name
    if not path.exists():
        pytest.skip(f"sample photo {path} is not available")
    bgr = cv2.imdecode(np.fromfile(path, np.uint8), cv2.IMREAD_COLOR)
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def gray_rgb(values: np.ndarray) -> np.ndarray:
    """An RGB image with R = G = B = values, so its Rec. 601 luma equals values exactly."""
    v = np.asarray(values, dtype=np.uint8)
    return np.repeat(v[..., None], 3, axis=2)


# --------------------------------------------------------------------------- sharpness


@pytest.mark.parametrize("name", PHOTOS)
def test_sharpness_falls_as_the_photo_is_blurred(name):
    image = load_rgb(name)
    h, w = image.shape[:2]
    box = [w * 0.2, h * 0.2, w * 0.8, h * 0.8]
    blurred = [image] + [cv2.GaussianBlur(image, (k, k), 0) for k in (3, 7, 15, 31, 61)]
    raw = [im.sharpness_laplacian_variance(b, box) for b in blurred]
    norm = [im.sharpness_normalised(b, box) for b in blurred]
    assert all(a > b for a, b in zip(raw, raw[1:])), raw
    assert all(a > b for a, b in zip(norm, norm[1:])), norm
    assert raw[-1] < raw[0] / 20 and norm[-1] < norm[0] / 20


@pytest.mark.parametrize("name", PHOTOS)
def test_normalised_sharpness_is_resolution_independent(name):
    """Property: the same scene at full and half resolution (and half then back up) reads about the same.

    The half-resolution image keeps all detail up to 1/4 cycle per full-res pixel; the reference grid
    (256 px along the box, much coarser than 800 px) only looks at detail below that, so the
    normalised measure should barely move, while the plain variance of Laplacian changes a lot.
    """
    image = load_rgb(name)
    h, w = image.shape[:2]
    half = cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    down_up = cv2.resize(half, (w, h), interpolation=cv2.INTER_LINEAR)
    full_box, half_box = [0, 0, w, h], [0, 0, w // 2, h // 2]

    n_full = im.sharpness_normalised(image, full_box)
    assert im.sharpness_normalised(half, half_box) == pytest.approx(n_full, rel=0.10)
    assert im.sharpness_normalised(down_up, full_box) == pytest.approx(n_full, rel=0.15)

    r_full = im.sharpness_laplacian_variance(image)
    assert im.sharpness_laplacian_variance(half) > 1.5 * r_full
    assert im.sharpness_laplacian_variance(down_up) < 0.3 * r_full


def test_laplacian_variance_by_hand():
    """A vertical step 0 | 100: the Laplacian is +100 and -100 on the two columns next to the edge."""
    values = np.zeros((10, 10), np.uint8)
    values[:, 5:] = 100
    image = gray_rgb(values)
    box = [2, 2, 8, 8]           # columns 2..7: Laplacian 0, 0, +100, -100, 0, 0
    expected = np.var([0, 0, 100, -100, 0, 0])
    assert im.sharpness_laplacian_variance(image, box) == pytest.approx(expected)
    # a flat patch has no detail
    assert im.sharpness_laplacian_variance(gray_rgb(np.full((20, 20), 77)), None) == 0.0
    assert im.sharpness_normalised(gray_rgb(np.full((20, 20), 77)), [3, 3, 15, 15]) == 0.0


# --------------------------------------------------------------------------- exposure


def test_exposure_on_a_horizontal_gradient():
    """Columns 0..255 of a 256-wide ramp: luma <= 5 in 6 columns, >= 250 in 6 columns."""
    ramp = np.tile(np.arange(256, dtype=np.uint8), (40, 1))
    shadows, highlights = im.clipped_fractions(gray_rgb(ramp))
    assert shadows == pytest.approx(6 / 256)
    assert highlights == pytest.approx(6 / 256)
    assert im.mean_luma(gray_rgb(ramp)) == pytest.approx(127.5)
    # over a box of columns 0..9 (10 columns): 6 of them clipped dark, mean 4.5
    assert im.clipped_fractions(gray_rgb(ramp), [0, 0, 10, 40]) == (pytest.approx(0.6), 0.0)
    assert im.mean_luma(gray_rgb(ramp), [0, 0, 10, 40]) == pytest.approx(4.5)


def test_exposure_on_a_colour_ramp_uses_rec601_luma():
    """Pure red 0..255: luma 0.299 R, so R <= 16 is a shadow (0.299*16 = 4.78) and nothing is a highlight."""
    rgb = np.zeros((4, 256, 3), np.uint8)
    rgb[..., 0] = np.arange(256, dtype=np.uint8)
    shadows, highlights = im.clipped_fractions(rgb)
    assert shadows == pytest.approx(17 / 256)
    assert highlights == 0.0
    assert im.mean_luma(rgb) == pytest.approx(0.299 * 127.5)
    # white with blue removed: luma 0.886 * 255 = 225.9, not clipped though two channels are
    assert im.clipped_fractions(np.full((3, 3, 3), (255, 255, 0), np.uint8)) == (0.0, 0.0)


# --------------------------------------------------------------------------- contrast


def test_contrast_by_hand():
    """Half 50, half 200: RMS = 75/255; Michelson = 150/250 = 0.6."""
    values = np.full((20, 20), 50, np.uint8)
    values[:, 10:] = 200
    image = gray_rgb(values)
    assert im.rms_contrast(image) == pytest.approx(75 / 255)
    assert im.michelson_contrast(image) == pytest.approx(0.6)
    # a few hot pixels do not move the robust Michelson contrast
    values[0, :3] = 255
    values[1, :2] = 0
    assert im.michelson_contrast(gray_rgb(values)) == pytest.approx(0.6)
    # flat and black patches
    assert im.rms_contrast(gray_rgb(np.full((5, 5), 90))) == 0.0
    assert im.michelson_contrast(gray_rgb(np.zeros((5, 5)))) == 0.0


# --------------------------------------------------------------------------- box geometry


def test_box_share_edges_and_in_frame():
    frame = (200, 100)                                  # width, height
    assert im.box_area_share([50, 25, 150, 75], frame) == pytest.approx(0.25)
    assert im.box_in_frame([50, 25, 150, 75], frame) is True
    assert im.box_in_frame([0, 0, 200, 100], frame) is True
    d = im.box_edge_distances([50, 20, 170, 90], frame)
    assert (d["left"], d["top"], d["right"], d["bottom"], d["min_px"]) == (50, 20, 30, 10, 10)
    assert d["left_norm"] == pytest.approx(0.25) and d["bottom_norm"] == pytest.approx(0.1)
    assert d["min_norm"] == pytest.approx(0.1)
    # cut by the right edge: half of it is in the frame
    assert im.box_in_frame([150, 0, 250, 100], frame) is False
    assert im.box_area_share([150, 0, 250, 100], frame) == pytest.approx(0.25)
    assert im.box_edge_distances([150, 0, 250, 100], frame)["right"] == -50


def test_occluded_fraction_by_hand():
    target = [0, 0, 10, 10]                             # area 100
    assert im.occluded_fraction(target, []) == 0.0
    assert im.occluded_fraction(target, [[5, 0, 15, 10]]) == pytest.approx(0.5)
    # two overlapping occluders: union = 50 + 50 - 25 = 75
    assert im.occluded_fraction(target, [[5, 0, 15, 10], [0, 5, 10, 15]]) == pytest.approx(0.75)
    # the same occluder twice counts once, a disjoint one not at all
    assert im.occluded_fraction(target, [[0, 0, 4, 5], [0, 0, 4, 5], [20, 20, 30, 30]]) == pytest.approx(0.2)
    # nested and covering
    assert im.occluded_fraction(target, [[2, 2, 4, 4], [1, 1, 5, 5]]) == pytest.approx(0.16)
    assert im.occluded_fraction(target, [[-5, -5, 20, 20]]) == pytest.approx(1.0)


def test_occluded_fraction_matches_a_raster():
    """Random rectangles: the exact union agrees with counting covered cells on a fine raster."""
    rng = np.random.default_rng(3)
    target = [10.0, 20.0, 90.0, 70.0]
    for _ in range(20):
        others = []
        for _ in range(rng.integers(1, 6)):
            x1, y1 = rng.integers(0, 100, 2)
            w, h = rng.integers(1, 50, 2)
            others.append([float(x1), float(y1), float(x1 + w), float(y1 + h)])
        grid = np.zeros((100, 100), bool)                     # integer boxes: cells are exact
        for x1, y1, x2, y2 in others:
            grid[int(y1):int(y2), int(x1):int(x2)] = True
        expected = grid[20:70, 10:90].mean()
        assert im.occluded_fraction(target, others) == pytest.approx(expected)


def test_bad_inputs_raise():
    with pytest.raises(ValueError):
        im.measure_all(np.zeros((10, 10), np.uint8))
    with pytest.raises(ValueError):
        im.measure_all(np.zeros((10, 10, 3), np.float32))
    with pytest.raises(ValueError):
        im.measure_all(np.zeros((10, 10, 3), np.uint8), [5, 5, 5, 8])          # empty box
    with pytest.raises(ValueError):
        im.measure_all(np.zeros((10, 10, 3), np.uint8), [20, 20, 30, 30])      # outside the frame


# --------------------------------------------------------------------------- all at once


def test_measure_all_keys_and_values():
    values = np.full((100, 200), 128, np.uint8)
    values[:, :20] = 0                                   # 10 % clipped shadows
    values[40:60, 90:110] = 255                          # 2 % clipped highlights, inside the box
    image = gray_rgb(values)
    box = [50, 25, 150, 75]
    out = im.measure_all(image, box, others=[[100, 25, 150, 75]])
    assert tuple(out) == im.MEASURE_KEYS
    assert out["shadows_clipped"] == pytest.approx(0.10)
    assert out["highlights_clipped"] == pytest.approx(0.02)
    assert out["mean_luma"] == pytest.approx((0.88 * 20000 * 128 + 0.02 * 20000 * 255) / 20000)
    assert out["box_area_share"] == pytest.approx(0.25)
    assert out["box_in_frame"] is True
    assert out["box_edge_distance_px"] == pytest.approx(25)
    assert out["occluded_fraction"] == pytest.approx(0.5)
    assert out["michelson_contrast"] == pytest.approx((255 - 128) / (255 + 128))
    assert out["sharpness_lap_var"] > 0 and out["sharpness_norm"] > 0

    whole = im.measure_all(image)
    assert whole["box_area_share"] == 1.0 and whole["box_in_frame"] is True
    assert whole["box_edge_distance_px"] == 0.0 and whole["occluded_fraction"] == 0.0


def test_clipped_fractions_exact_at_the_thresholds():
    # every RGB triple whose luma x 1000 (299 R + 587 G + 114 B) lies within 2 levels of a threshold,
    # counted by brute force; the fast path (OpenCV grey candidates) must count exactly the same
    r, g, b = np.meshgrid(np.arange(256), np.arange(256), np.arange(256), indexing="ij")
    milli = 299 * r + 587 * g + 114 * b
    near = (np.abs(milli - 5000) <= 2000) | (np.abs(milli - 250000) <= 2000)
    pixels = np.stack([r[near], g[near], b[near]], axis=-1).astype(np.uint8)[None]  # (1, k, 3)
    shadows, highlights = im.clipped_fractions(pixels)
    k = pixels.shape[1]
    assert shadows == np.count_nonzero(milli[near] <= 5000) / k
    assert highlights == np.count_nonzero(milli[near] >= 250000) / k
    assert im.mean_luma(pixels) == pytest.approx(milli[near].mean() / 1000, abs=1e-9)
