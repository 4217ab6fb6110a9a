"""Which frame a picture shows, against a real H.264 clip whose frames carry their number as a barcode (read back
independently of fieldstudio by ``read_barcode``)."""

from __future__ import annotations

import cv2
import pytest

from fieldstudio.media import decoded_table, frame_reader
from fieldstudio.media import picture_match as pm
from tests.support.video_fixtures import X264, encode, read_barcode

HELD = 39  # barcode 39 is held for 10 frames: frames 39..48 show 39, frame 49 shows 40
NUMBERS = [n if n < HELD else max(HELD, n - 9) for n in range(120)]


@pytest.fixture(scope="module")
def held_clip(tmp_path_factory):
    """A 120-frame barcode clip (30 fps, B-frames, a GOP of 60) with frames 39..48 identical. Gives a reader."""
    path = encode(tmp_path_factory.mktemp("match") / "held.mp4", 120, args=[*X264, "-g", "60"], numbers=NUMBERS)
    reader = frame_reader.FrameReader(path, decoded_table.build_frame_table(path))
    yield reader
    reader.close()


def _shown(rgb, size=(777, 466)):
    """A picture as libVLC might show it: scaled to another size (bilinear) and blurred a little."""
    return cv2.GaussianBlur(cv2.resize(rgb, size, interpolation=cv2.INTER_LINEAR), (3, 3), 0)


def test_the_clip_holds_what_the_tests_expect(held_clip):
    assert len(held_clip) == 120
    assert [read_barcode(held_clip.get(i)) for i in (38, 39, 44, 48, 49, 119)] == [38, 39, 39, 39, 40, 110]


@pytest.mark.parametrize("shown, estimate", [(5, 0), (5, 14), (30, 21), (60, 48), (75, 80), (119, 110), (57, 57)])
def test_a_scaled_blurred_picture_is_matched_to_its_frame(held_clip, shown, estimate):
    m = pm.match_picture(_shown(held_clip.get(shown)), held_clip.get, estimate, len(held_clip))
    assert m.found == pm.PICTURE and m.frame_index == shown, m.why
    assert read_barcode(held_clip.get(m.frame_index)) == NUMBERS[shown]
    assert m.best < pm.MATCH_BELOW and m.second >= pm.CLEAR_FACTOR * m.best


def test_a_picture_of_a_held_frame_gives_the_first_frame_of_the_identical_run(held_clip):
    for shown, estimate in ((44, 46), (48, 50), (39, 35), (41, 30)):
        m = pm.match_picture(_shown(held_clip.get(shown)), held_clip.get, estimate, len(held_clip))
        assert (m.found, m.frame_index) == (pm.PICTURE, HELD), m.why


def test_a_run_that_may_start_before_the_window_stays_on_the_clock(held_clip):
    m = pm.match_picture(_shown(held_clip.get(45)), held_clip.get, 57, len(held_clip), radius=12)  # window 45..69, run 39..48
    assert (m.found, m.frame_index) == (pm.CLOCK, 57), m.why


def test_a_picture_of_no_frame_nearby_stays_on_the_clock(held_clip):
    m = pm.match_picture(_shown(held_clip.get(100)), held_clip.get, 20, len(held_clip))
    assert (m.found, m.frame_index) == (pm.CLOCK, 20) and m.best > pm.MATCH_BELOW, m.why
    grey = held_clip.get(20) // 2 + 64  # the right frame, its contrast halved: too far from every frame
    m = pm.match_picture(grey, held_clip.get, 20, len(held_clip))
    assert (m.found, m.frame_index) == (pm.CLOCK, 20), m.why


def test_an_estimate_outside_the_video_is_refused(held_clip):
    with pytest.raises(ValueError, match="outside"):
        pm.match_picture(held_clip.get(0), held_clip.get, 120, len(held_clip))


def test_with_one_frame_to_compare_only_the_threshold_decides(held_clip):
    # frame 0: no frame before it, so its run cannot start earlier
    alone = pm.match_picture(_shown(held_clip.get(0)), held_clip.get, 0, len(held_clip), radius=0)
    assert (alone.found, alone.frame_index, alone.second) == (pm.PICTURE, 0, None), alone.why
    other = pm.match_picture(_shown(held_clip.get(100)), held_clip.get, 0, len(held_clip), radius=0)
    assert (other.found, other.frame_index, other.second) == (pm.CLOCK, 0, None), other.why
