"""The decoded index built from keyframe-bounded ranges on several threads (issue 21: the verifying index at
<= 0.6x of ffprobe) names exactly the frames a whole-file decode names: checked against ffprobe's own frame
list and keyframe flags, and against fieldstudio's one-thread decode, on every fixture container, an open-GOP
stream whose leading pictures sit across a cut, an MPEG-TS remux, duplicated timestamps and a cut file."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from fieldstudio.media import decoded_table, frame_table
from tests.support.video_fixtures import X264, encode, make_duplicate_pts


@pytest.fixture
def three_ranges(monkeypatch):
    """Three ranges per file, and short ranges allowed, so the small fixture clips are cut (CI has 2 cores)."""
    monkeypatch.setattr(decoded_table, "_MIN_RANGE_FRAMES", 30)
    monkeypatch.setattr(decoded_table, "_MIN_RANGE_PIXELS", 0)
    monkeypatch.setattr("os.cpu_count", lambda: 3)
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    calls: list[tuple] = []
    real = decoded_table._decode_range

    def counted(path, lo, hi, done, stop):
        calls.append((lo, hi))
        return real(path, lo, hi, done, stop)

    monkeypatch.setattr(decoded_table, "_decode_range", counted)
    return calls


def ffprobe_frames(path: Path) -> tuple[list[float], list[int]]:
    """(PTS seconds, key_frame flag) of every decoded frame as ffprobe lists them (the PTS, else the packet's
    DTS, as fieldstudio names a frame), in presentation order."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "frame=pts_time,pkt_dts_time,key_frame", "-of", "json", str(path)],
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for frame in json.loads(out)["frames"]:
        stamp = frame.get("pts_time", frame.get("pkt_dts_time"))
        rows.append((float(stamp), int(frame["key_frame"])))
    rows.sort(key=lambda r: r[0])  # stable: frames sharing a PTS keep ffprobe's order
    return [r[0] for r in rows], [r[1] for r in rows]


def one_thread(path: Path) -> frame_table.FrameTable:
    pts, keys, _, tb = decoded_table._decode_timestamps(path, threads=False, progress=lambda d, t: None,
                                                        cancelled=lambda: False)
    order = np.argsort(np.asarray(pts, dtype=np.int64), kind="stable")
    return frame_table.FrameTable(pts=np.asarray(pts, dtype=np.int64)[order], keyframe=np.asarray(keys, bool)[order],
                                  time_base=tb)


@pytest.fixture(scope="module")
def open_gop(tmp_path_factory) -> Path:
    """300 frames of H.264 with open GOPs (recovery-point keyframes whose leading B-frames reference the GOP
    before), a keyframe every 30 frames and 3 B-frames."""
    out = tmp_path_factory.mktemp("open_gop") / "open_gop.mp4"
    return encode(out, 300, args=[*X264, "-g", "30", "-keyint_min", "30", "-sc_threshold", "0", "-bf", "3",
                                  "-x264-params", "open-gop=1"])


@pytest.fixture(scope="module")
def transport_stream(open_gop) -> Path:
    out = open_gop.with_suffix(".ts")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(open_gop), "-c", "copy", str(out)], check=True)
    return out


def check_against_references(path: Path) -> None:
    table = decoded_table.build_frame_table(path)
    stamps, keys = ffprobe_frames(path)
    assert table.seconds_array() == pytest.approx(stamps, abs=1e-6)
    assert table.keyframe.astype(int).tolist() == keys
    assert frame_table.same_frames(table, one_thread(path))


@pytest.mark.parametrize("name", ["cfr_bframes", "vfr", "hevc", "mov", "mkv", "mpeg4_avi"])
def test_ranges_name_the_frames_ffprobe_decodes(clips, name, three_ranges):
    check_against_references(clips[name])
    assert len(three_ranges) >= 2, "the clip was not cut into ranges"


def test_open_gop_leading_pictures_across_a_cut(open_gop, three_ranges):
    check_against_references(open_gop)
    assert len(three_ranges) == 3
    cuts = [lo for lo, _ in three_ranges if lo is not None]
    table = decoded_table.build_frame_table(open_gop)
    # a cut falls on a keyframe that has leading pictures: frames shown before it that are decoded after it
    first = int(np.searchsorted(table.pts, cuts[0]))
    assert table.keyframe[first] and first > 0


def test_transport_stream(transport_stream, three_ranges):
    check_against_references(transport_stream)


def test_duplicated_timestamps(tmp_path, three_ranges):
    check_against_references(make_duplicate_pts(tmp_path))


def test_cut_file_keeps_what_a_whole_decode_keeps(open_gop, tmp_path, three_ranges):
    data = open_gop.read_bytes()
    cut = tmp_path / "cut.mp4"
    # a moov-first copy cut at 70%: the sample tables name frames whose data is gone
    faststart = tmp_path / "faststart.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(open_gop), "-c", "copy", "-movflags", "+faststart",
                    str(faststart)], check=True)
    data = faststart.read_bytes()
    cut.write_bytes(data[: int(len(data) * 0.7)])
    table = decoded_table.build_frame_table(cut)
    assert frame_table.same_frames(table, one_thread(cut))
    stamps, _ = ffprobe_frames(cut)
    assert table.seconds_array() == pytest.approx(stamps, abs=1e-6)
    assert 0 < len(table) < 300


def test_cancel_stops_every_range(clips, three_ranges):
    with pytest.raises(InterruptedError):
        decoded_table.build_frame_table(clips["cfr_bframes"], cancelled=lambda: True)


def test_progress_reaches_the_frame_count(clips, three_ranges):
    seen: list[tuple[int, int]] = []
    table = decoded_table.build_frame_table(clips["cfr_bframes"], progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (len(table), len(table))
    assert all(d <= t for d, t in seen)


def test_small_frames_are_decoded_in_one_piece(clips, monkeypatch):
    """Under 1280x720 the ranges would take turns at the GIL: one decoder with FFmpeg's threads instead."""
    monkeypatch.setattr(decoded_table, "_MIN_RANGE_FRAMES", 30)
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    calls = []
    monkeypatch.setattr(decoded_table, "_decode_range", lambda *a: calls.append(a))
    table = decoded_table.build_frame_table(clips["cfr_bframes"])  # 320x192
    assert calls == [] and len(table) == 300
