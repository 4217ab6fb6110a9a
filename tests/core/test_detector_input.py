"""The picture check both detectors share: shape first, then the pixel cap with the detector's own error."""
import numpy as np
import pytest

from fieldstudio.core.detector_input import checked_size


class Refused(Exception):
    pass


def test_size_is_height_then_width():
    assert checked_size(np.zeros((3, 5, 3), np.uint8), max_pixels=15, too_large=Refused, reader="r") == (3, 5)


def test_one_pixel_over_the_cap_raises_the_callers_type_naming_size_and_cap():
    picture = np.zeros((1000, 2001, 3), np.uint8)  # 2,001,000 pixels against a 2,000,000 cap
    with pytest.raises(Refused) as raised:
        checked_size(picture, max_pixels=2_000_000, too_large=Refused, reader="the test detector",
                     advice="shrink it")
    assert str(raised.value) == "2001 x 1000 pixels is more than the test detector reads (2 MP); shrink it"


@pytest.mark.parametrize("shape", [(4, 4), (4, 4, 4), (4, 4, 1)])
def test_not_three_channels_is_a_value_error(shape):
    with pytest.raises(ValueError, match=r"H x W x 3"):
        checked_size(np.zeros(shape, np.uint8), max_pixels=100, too_large=Refused, reader="r")
