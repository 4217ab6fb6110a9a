"""Exact frames: every decoded frame carries its own index as a barcode; ffmpeg is the reference."""

from __future__ import annotations

import numpy as np
import pytest

from fieldstudio.media import decoded_table, frame_reader, library, video, video_index
from fieldstudio.media.frames import FrameSource, get_frame
from tests.support.video_fixtures import ffmpeg_frame, ffprobe_pts, read_barcode

PROBE_INDICES = [0, 1, 59, 61, 100, 137, 151, 200, 250, 299]


@pytest.mark.parametrize("name", ["vfr", "cfr_bframes", "hevc", "mpeg4_avi", "mkv", "webm", "mov", "ts",
                                  "rot90", "rot180", "rot270"])
def test_frame_table_matches_ffprobe(clips, name):
    path = clips[name]
    table = decoded_table.build_frame_table(path)
    expected = ffprobe_pts(path)
    assert len(table) == len(expected)
    assert np.allclose(table.seconds_array(), expected, atol=1e-4)


@pytest.mark.parametrize("name", ["vfr", "cfr_bframes", "hevc", "mpeg4_avi", "mkv", "webm", "mov", "ts"])
def test_random_access_lands_on_the_requested_frame(clips, name):
    path = clips[name]
    table = decoded_table.build_frame_table(path)
    reader = frame_reader.FrameReader(path, table)
    order = [i for i in PROBE_INDICES if i < len(table)] + [len(table) - 1, 3, len(table) // 2, 2]
    for n in order:
        assert read_barcode(reader.get(n)) == n, f"{name}: asked for {n}"
    reader.close()


def test_vfr_timestamps_are_pts_not_index_over_fps(clips):
    table = decoded_table.build_frame_table(clips["vfr"])
    assert table.is_vfr()
    assert table.seconds(150) == pytest.approx(5.0, abs=1e-3)
    assert table.seconds(180) == pytest.approx(7.0, abs=1e-3)
    assert table.seconds(181) == pytest.approx(7.0 + 1 / 15, abs=1e-3)
    assert table.index_at(7.0) == 180
    assert not decoded_table.build_frame_table(clips["cfr_bframes"]).is_vfr()


@pytest.mark.parametrize("name,n", [("vfr", 181), ("cfr_bframes", 137), ("hevc", 77), ("rot90", 45),
                                    ("rot180", 10), ("rot270", 89), ("webm", 33)])
def test_pixels_equal_ffmpeg(clips, name, n):
    path = clips[name]
    probe = video.probe_video(path)
    reader = frame_reader.FrameReader(path, decoded_table.build_frame_table(path), rotation=probe.rotation)
    ours = reader.get(n)
    theirs = ffmpeg_frame(path, n)
    assert ours.shape == theirs.shape
    assert np.abs(ours.astype(int) - theirs.astype(int)).mean() < 1.0
    assert read_barcode(ours, probe.rotation) == n
    # the viewer's picture (Qt's RGB32 bytes, B, G, R, 255): the same swscale conversion, to the byte, and opaque
    bgra = reader.get_bgra(n)
    assert bgra.shape == (*ours.shape[:2], 4) and (bgra[..., 3] == 255).all()
    assert np.array_equal(bgra[..., 2::-1], ours)


@pytest.mark.parametrize("name,within,size", [("cfr_bframes", (160, 160), (160, 96)), ("rot90", (160, 160), (96, 160)),
                                               ("cfr_bframes", (400, 400), (320, 192)),
                                               # a screen size a pixel off the aspect (Canvas.render_size rounds
                                               # each side): that size exactly, so that a blit covers it
                                               ("cfr_bframes", (161, 96), (161, 96)), ("rot90", (97, 160), (97, 160)),
                                               ("cfr_bframes", (162, 96), (160, 96))])
def test_a_picture_within_a_screen_size_is_the_frame_scaled_down_by_area(project, clips, name, within, size):
    """The viewer's previews: the frame fitted into ``within`` (W, H) upright pixels, aspect kept (never enlarged),
    against OpenCV's area resampling of the full picture."""
    import cv2

    library.add_paths(project, [clips[name]])
    source = FrameSource(project)
    media = library.find_media(project, clips[name].name)
    probe = video.probe_video(clips[name])
    small = source.get_bgra(media, 45, within)
    assert (small.shape[1], small.shape[0]) == size and (small[..., 3] == 255).all()
    full = source.get_bgra(media, 45)
    source.close()
    theirs = cv2.resize(full, size, interpolation=cv2.INTER_AREA)
    assert np.abs(small.astype(int) - theirs.astype(int)).mean() < 3.0
    assert read_barcode(np.ascontiguousarray(cv2.resize(small, (full.shape[1], full.shape[0]))[..., 2::-1]),
                        probe.rotation) == 45


@pytest.mark.parametrize("name", ["vfr", "cfr_bframes", "hevc", "mpeg4_avi", "mkv", "webm", "mov", "ts"])
def test_the_first_frames_are_sought_as_any_other_and_mpeg_ts_reads_its_start(clips, name):
    """Frames of the first group of pictures, asked for after one far from them with nothing cached, are reached by
    a seek to the first keyframe: the file and its decoder stay open (reopening them made the next decode 1.5x
    slower at 1080p). MPEG-TS seeks by DTS, which lands past its first keyframe: that file is read from its start
    (reopened), as before."""
    path = clips[name]
    table = decoded_table.build_frame_table(path)
    reader = frame_reader.FrameReader(path, table, cache_bytes=1, min_frames=1)  # nothing kept but the last frame
    assert read_barcode(reader.get(len(table) - 1)) == len(table) - 1
    opened = reader._container
    for n in (0, len(table) // 2, 2, 1):
        assert read_barcode(reader.get(n)) == n, f"{name}: asked for {n}"
    assert (reader._container is opened) is (name != "ts")
    reader.close()


@pytest.mark.parametrize("deg", [90, 180, 270])
def test_rotation_metadata_gives_upright_size(clips, deg):
    probe = video.probe_video(clips[f"rot{deg}"])
    assert probe.rotation == deg
    assert (probe.width, probe.height) == ((192, 320) if deg in (90, 270) else (320, 192))


def test_stepping_back_and_forth_uses_the_cache(clips):
    path = clips["cfr_bframes"]
    reader = frame_reader.FrameReader(path, decoded_table.build_frame_table(path))
    reader.get(170)
    for n in range(169, 150, -1):  # backwards through the GOP, then forwards again
        assert read_barcode(reader.get(n)) == n
    for n in range(151, 190):
        assert read_barcode(reader.get(n)) == n


def test_converted_frames_are_kept_by_bytes_not_by_count(clips, monkeypatch):
    """The RGB frames kept are bounded by RGB_CACHE_BYTES: room for two and a half 320 x 192 frames (184,320
    bytes each) keeps two, so asking again for the third-newest converts it again (a new array); with the
    default bound, four are kept as before (the same arrays come back)."""
    path = clips["cfr_bframes"]
    table = decoded_table.build_frame_table(path)
    monkeypatch.setattr(frame_reader, "RGB_CACHE_BYTES", int(2.5 * 320 * 192 * 3))
    reader = frame_reader.FrameReader(path, table)
    first = [reader.get(n) for n in (10, 11, 12)]
    assert reader.get(12) is first[2] and reader.get(11) is first[1]
    again = reader.get(10)
    assert again is not first[0] and read_barcode(again) == 10
    monkeypatch.undo()
    reader = frame_reader.FrameReader(path, table)
    first = [reader.get(n) for n in (10, 11, 12, 13)]
    assert all(reader.get(n) is f for n, f in zip((10, 11, 12, 13), first))


def test_get_frame_through_the_project(project, clips):
    report = library.add_paths(project, [clips["vfr"], clips["rot90"]])
    assert report.imported["video"] == 2
    assert video_index.index_videos(project) == []
    f = get_frame(project, "vfr.mp4", 181)
    assert f.pts_seconds == pytest.approx(7.0 + 1 / 15, abs=1e-3)
    assert read_barcode(f.rgb) == 181
    source = FrameSource(project)
    g = source.get("rot90.mp4", 45)
    assert g.rgb.shape[:2] == (320, 192)
    assert read_barcode(g.rgb, 90) == 45
    with pytest.raises(IndexError):
        source.get("rot90.mp4", 90)
    source.close()
