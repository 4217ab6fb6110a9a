"""The packet index (demuxing only) opens a video at once; the decoded index verifies and replaces it, and
annotations made before keep their pictures (issue 21)."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.media import decoded_table, frame_table, library, packet_table, video, video_index
from fieldstudio.media.frames import FrameSource
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.store.project import Project
from tests.support.video_fixtures import read_barcode


def ffprobe_packet_pts(path) -> list[float]:
    """PTS seconds of the video packets as ffprobe lists them, in presentation order."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
                          "-of", "csv=p=0", str(path)], check=True, capture_output=True, text=True).stdout
    return sorted(float(x) for x in out.split() if x.strip() not in ("", "N/A"))


@pytest.mark.parametrize("name", ["cfr_bframes", "vfr", "hevc", "mpeg4_avi", "mkv", "webm", "mov", "rot90"])
def test_packet_index_lists_ffprobes_packets_and_matches_the_decoded_index(clips, name):
    table = packet_table.build_packet_table(clips[name])
    assert table.seconds_array() == pytest.approx(ffprobe_packet_pts(clips[name]), abs=1e-6)
    decoded = decoded_table.build_frame_table(clips[name])
    assert frame_table.same_frames(table, decoded)
    assert table.keyframe[0] and np.array_equal(table.keyframe, decoded.keyframe)


def _video_project(tmp_path, clip):
    p = Project.create(tmp_path / "p.fieldstudio")
    report = library.add_paths(p, [clip])
    return p, report.media_ids[0]


def _barcode(project, media_id, index) -> int:
    source = FrameSource(project)
    try:
        return read_barcode(source.get(library.find_media(project, media_id), index).rgb)
    finally:
        source.close()


def test_a_frame_that_does_not_decode_moves_its_annotation_to_the_frame_shown_at_its_time(tmp_path, truncated,
                                                                                            monkeypatch):
    # demuxing lists the cut packet (as for any container but MP4, whose sample tables show it cut)
    monkeypatch.setattr(packet_table, "_packet_table_from_sample_tables", lambda *args: None)
    p, mid = _video_project(tmp_path, truncated)
    try:
        assert video_index.index_videos(p, [mid], packets_only=True) == []
        media = library.find_media(p, mid)
        assert media.index_status == "packets"
        packets = video_index.load_frame_table(p, media)
        decoded = decoded_table.build_frame_table(truncated)
        lost = np.setdiff1d(packets.pts, decoded.pts)
        assert len(lost) == 1 and len(packets) == len(decoded) + 1  # the cut packet
        lost_index = int(np.flatnonzero(packets.pts == lost[0])[0])
        kept = ann.add_box(p, mid, (10, 60, 50, 40), frame_index=10)
        gone = ann.add_box(p, mid, (10, 60, 50, 40), frame_index=lost_index)
        seen = _barcode(p, mid, 10)  # the picture the annotator looked at, decoded through the packet index

        step = video_index.index_next_video(p)
        assert step.media_id == mid and step.status == "ready" and step.replaced and step.moved == 1
        assert library.find_media(p, mid).index_status == "ready"
        a, b = ann.get_annotation(p, kept), ann.get_annotation(p, gone)
        assert (a.frame_index, a.pts) == (10, int(decoded.pts[10]))
        assert _barcode(p, mid, a.frame_index) == seen
        shown_then = int(np.searchsorted(decoded.pts, lost[0], side="right")) - 1
        assert (b.frame_index, b.pts) == (shown_then, int(decoded.pts[shown_then]))
        assert video_index.index_next_video(p) is None  # nothing left
    finally:
        p.close()


def _on_a_packet_index_with_one_packet_more(tmp_path, clip):
    """A project holding ``clip`` on a packet index with one packet more between frames 100 and 101 (a frame
    that does not decode there): (project, media id, the decoded table, the packet table stored)."""
    p, mid = _video_project(tmp_path, clip)
    try:
        decoded = decoded_table.build_frame_table(clip)
        extra = int(decoded.pts[100]) + 1
        packets = frame_table.FrameTable(pts=np.insert(decoded.pts, 101, extra),
                                         keyframe=np.insert(decoded.keyframe, 101, False), time_base=decoded.time_base)
        video_index.store_frame_table(p, mid, packets, status="packets")
    except BaseException:
        p.close()
        raise
    return p, mid, decoded, packets


def test_annotations_follow_their_pictures_when_the_verified_index_shifts(tmp_path, clips):
    """A packet index with one packet more in the middle (a frame that does not decode there) puts every
    later frame one index too far; verification moves the annotations back onto the same pictures."""
    p, mid, _, packets = _on_a_packet_index_with_one_packet_more(tmp_path, clips["cfr_bframes"])
    try:
        ids = {n: ann.add_box(p, mid, (10, 60, 50, 40), frame_index=n) for n in (50, 100, 150, 299)}
        segment = ann.add_segment(p, mid, None, 120, end_frame=200)
        pictures = {n: int(packets.pts[n]) for n in ids}

        step = video_index.index_next_video(p)
        assert step.replaced and step.moved == 2 + 1  # the two boxes after the extra packet, and the segment
        for n, aid in ids.items():
            a = ann.get_annotation(p, aid)
            assert a.pts == pictures[n]  # the same picture...
            assert a.frame_index == (n if n <= 100 else n - 1)  # ...at its decoded index
            assert read_barcode(_frame(p, mid, a.frame_index)) == a.frame_index  # barcode = decoded index
        s = ann.get_annotation(p, segment)
        assert (s.frame_index, s.end_frame_index) == (119, 199)
    finally:
        p.close()


def test_rating_items_follow_their_pictures_in_the_transaction_that_stores_the_new_index(tmp_path, clips, monkeypatch):
    """Rating items name a frame too (store.frame_references): they move with the annotations, and only when
    the new index is stored: a failure while storing it leaves every mark where it was."""
    p, mid, decoded, packets = _on_a_packet_index_with_one_packet_more(tmp_path, clips["cfr_bframes"])
    try:
        ratings.create_rating_set(p, "frames", "The frame shows the zone")
        ratings.add_items(p, "frames", [(mid, 50), (mid, 150)])
        box = ann.add_box(p, mid, (10, 60, 50, 40), frame_index=150)

        def disk_full(*args):
            raise OSError("disk full")

        monkeypatch.setattr(video_index, "_insert_frame_rows", disk_full)
        with pytest.raises(OSError, match="disk full"):
            video_index.store_frame_table(p, mid, decoded)
        assert [i.frame_index for i in ratings.list_items(p, "frames")] == [50, 150]
        assert ann.get_annotation(p, box).frame_index == 150
        assert frame_table.same_frames(video_index.load_frame_table(p, library.find_media(p, mid)), packets)

        monkeypatch.undo()
        assert video_index.store_frame_table(p, mid, decoded) == 2  # the box and the item on frame 150
        assert [i.frame_index for i in ratings.list_items(p, "frames")] == [50, 149]
        a = ann.get_annotation(p, box)
        assert (a.frame_index, a.pts) == (149, int(packets.pts[150]))
    finally:
        p.close()


def _frame(project, media_id, index) -> np.ndarray:
    source = FrameSource(project)
    try:
        return source.get(library.find_media(project, media_id), index).rgb
    finally:
        source.close()


@pytest.mark.parametrize("name", ["cfr_bframes", "vfr", "hevc", "mov", "rot270"])
def test_an_mp4s_sample_tables_give_the_packet_index_demuxing_gives(clips, name, monkeypatch):
    container = video.open_video(clips[name])
    try:
        fast = packet_table._packet_table_from_sample_tables(clips[name], container, container.streams.video[0])
    finally:
        container.close()
    assert fast is not None, "an intact MP4 is read from its sample tables"
    monkeypatch.setattr(packet_table, "_packet_table_from_sample_tables", lambda *args: None)
    assert frame_table.same_frames(fast, packet_table.build_packet_table(clips[name]))


def test_a_cut_mp4s_sample_tables_leave_out_the_samples_whose_data_is_missing(truncated):
    table = packet_table.build_packet_table(truncated)
    assert frame_table.same_frames(table, decoded_table.build_frame_table(truncated))


def test_packet_indexing_comes_first_for_every_video_and_the_preferred_one_leads(tmp_path, clips):
    p = Project.create(tmp_path / "p.fieldstudio")
    try:
        report = library.add_paths(p, [clips["cfr_bframes"], clips["mkv"], clips["webm"]])
        last = report.media_ids[-1]
        stages = []
        while (step := video_index.index_next_video(p, prefer=last,
                                                    started=lambda m, n, packets: stages.append((m, packets)))):
            assert step.error is None
        assert [packets for _, packets in stages] == [True, True, True, False, False, False]
        assert stages[0][0] == last and stages[3][0] == last
        assert video_index.index_counts(p)["ready"] == 3
    finally:
        p.close()


def test_exact_frames_on_the_packet_index_equal_ffmpegs(tmp_path, clips):
    from tests.support.video_fixtures import ffmpeg_frame

    clip = clips["cfr_bframes"]
    p, mid = _video_project(tmp_path, clip)
    try:
        source = FrameSource(p)  # no index stored: the packet index is built and stored on first use
        for n in (0, 137, 138, 299):
            assert np.array_equal(source.get(library.find_media(p, mid), n).rgb, ffmpeg_frame(clip, n))
        source.close()
        assert library.find_media(p, mid).index_status == "packets"
    finally:
        p.close()
