"""Box geometry and track interpolation, checked against values worked out by hand."""

from __future__ import annotations

import pytest

from fieldstudio.core.tracks import (
    clip_xyxy,
    interpolate_track,
    overlapping_pairs,
    xywh_to_xyxy,
    xyxy_to_xywh,
)


def test_linear_interpolation_between_two_keyframes():
    # box moves 40 px right and 20 px down over 4 frames, growing by nothing: 10 px right, 5 down per frame
    got = interpolate_track({0: (0, 0, 10, 10), 4: (40, 20, 50, 30)})
    assert sorted(got) == [0, 1, 2, 3, 4]
    assert got[1].box == pytest.approx((10, 5, 20, 15))
    assert got[2].box == pytest.approx((20, 10, 30, 20))
    assert got[3].box == pytest.approx((30, 15, 40, 25))
    assert [got[f].keyframe for f in range(5)] == [True, False, False, False, True]
    assert got[3].source == (0, 4)


def test_interpolation_uses_the_keyframes_around_each_frame_and_resizes():
    keys = {10: (100, 100, 200, 150), 13: (130, 100, 260, 180), 20: (130, 100, 260, 180)}
    got = interpolate_track(keys, frames=[9, 11, 12, 16, 20, 21])
    assert sorted(got) == [11, 12, 16, 20]            # 9 and 21 lie outside the track
    # frame 11: t = 1/3 -> x1 100 + 30/3, x2 200 + 60/3, y2 150 + 30/3
    assert got[11].box == pytest.approx((110, 100, 220, 160))
    assert got[12].box == pytest.approx((120, 100, 240, 170))
    assert got[16].box == pytest.approx((130, 100, 260, 180))   # between two equal keyframes
    assert got[16].source == (13, 20)
    assert got[20].keyframe


def test_single_keyframe_and_empty_track():
    assert interpolate_track({}) == {}
    got = interpolate_track([(5, (1, 2, 3, 4))])
    assert list(got) == [5] and got[5].keyframe


def test_two_keyframes_on_one_frame_raise():
    with pytest.raises(ValueError, match="frame 3"):
        interpolate_track([(3, (0, 0, 1, 1)), (3, (0, 0, 2, 2))])


def test_box_conversions():
    assert xywh_to_xyxy((10, 20, 30, 40)) == (10, 20, 40, 60)
    assert xywh_to_xyxy((40, 60, -30, -40)) == (10, 20, 40, 60)     # dragged up-left
    assert xyxy_to_xywh((40, 60, 10, 20)) == (10, 20, 30, 40)
    with pytest.raises(ValueError, match="zero width"):
        xywh_to_xyxy((10, 20, 0, 5))
    with pytest.raises(ValueError, match="finite"):
        xywh_to_xyxy((float("nan"), 0, 1, 1))


def test_clip_to_image():
    assert clip_xyxy((-5, 250, 30, 320), 400, 300) == (0, 250, 30, 300)
    with pytest.raises(ValueError, match="outside"):
        clip_xyxy((410, 10, 420, 20), 400, 300)


def test_overlapping_pairs():
    rows = [("a", 0, 10), ("b", 10, 20), ("c", 21, None), ("d", 30, 40), ("e", 50, 60)]
    # a/b share frame 10; c is open so it runs on over d and e; b ends before c starts
    assert overlapping_pairs(rows) == [("a", "b"), ("c", "d"), ("c", "e")]
    assert overlapping_pairs([("x", 0, 4), ("y", 5, 9)]) == []
