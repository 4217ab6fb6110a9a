"""Fixtures of the media tests (tests/media/)."""

from __future__ import annotations

import pytest

from tests.support.video_fixtures import encode


@pytest.fixture(scope="module")
def truncated(tmp_path_factory):
    """A 100-frame barcoded H.264 clip at 25 fps with B-frames (moov first), cut to 90 % of its bytes: its last
    packets do not decode."""
    folder = tmp_path_factory.mktemp("truncated")
    full = encode(folder / "full.mp4", 100, fps=25, args=["-c:v", "libx264", "-g", "25", "-bf", "2",
                                                           "-pix_fmt", "yuv420p", "-movflags", "+faststart"])
    data = full.read_bytes()
    cut = folder / "cut.mp4"
    cut.write_bytes(data[: int(len(data) * 0.9)])
    return cut
