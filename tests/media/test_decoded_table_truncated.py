"""A tail-truncated video keeps every frame ffmpeg decodes from it (item 7h)."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from fieldstudio.media import decoded_table, frame_reader
from tests.support.video_fixtures import ffmpeg_frame, ffprobe_pts


def test_frame_table_of_a_truncated_file_matches_ffprobe(truncated):
    expected = ffprobe_pts(truncated)  # what ffprobe decodes from the cut file
    count = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                            "stream=nb_read_frames", "-of", "csv=p=0", str(truncated)],
                           check=True, capture_output=True, text=True).stdout.strip()
    assert len(expected) == int(count) and 0 < len(expected) < 100
    table = decoded_table.build_frame_table(truncated)
    assert len(table) == len(expected)
    assert table.seconds_array() == pytest.approx(np.asarray(expected), abs=1e-6)


def test_last_frames_of_a_truncated_file_are_readable_exactly(truncated):
    table = decoded_table.build_frame_table(truncated)
    reader = frame_reader.FrameReader(truncated, table)
    try:
        for n in (len(table) - 1, len(table) - 2, 0, len(table) - 3):
            rgb = reader.get(n)
            assert np.abs(rgb.astype(int) - ffmpeg_frame(truncated, n).astype(int)).mean() < 1.0
    finally:
        reader.close()
