"""Per-vertex interpolation of shape tracks (issue 32 item 1), checked against values worked out by hand."""

from __future__ import annotations

import pytest

from fieldstudio.core import shape_tracks


def test_each_vertex_moves_on_the_line_between_its_two_keyframes():
    # frame 10: triangle (0,0) (10,0) (0,10); frame 14: the same moved by (+8, +4) and its third vertex to (4, 30)
    got = shape_tracks.interpolate_shape_track([(10, [[0, 0], [10, 0], [0, 10]]), (14, [[8, 4], [18, 4], [4, 30]])])
    assert sorted(got) == [10, 11, 12, 13, 14]
    # frame 11: t = 1/4 -> (2, 1), (12, 1), (1, 15); frame 13: t = 3/4 -> (6, 3), (16, 3), (3, 25)
    assert got[11].vertices == ((2.0, 1.0), (12.0, 1.0), (1.0, 15.0))
    assert got[13].vertices == ((6.0, 3.0), (16.0, 3.0), (3.0, 25.0))
    assert not got[12].keyframe and got[12].source == (10, 14) and got[14].keyframe


def test_keyframes_of_different_vertex_counts_leave_the_frames_between_empty_and_say_why():
    keys = [(0, [[0, 0], [4, 0], [4, 4]]), (4, [[0, 0], [4, 0], [4, 4], [0, 4]]), (6, [[2, 0], [6, 0], [6, 4], [2, 4]])]
    got = shape_tracks.interpolate_shape_track(keys)
    assert sorted(got) == [0, 4, 5, 6]          # 1-3 left out, 5 interpolated between the two 4-vertex keyframes
    assert got[5].vertices == ((1.0, 0.0), (5.0, 0.0), (5.0, 4.0), (1.0, 4.0))
    why = shape_tracks.gap_reason(0, keys[0][1], 4, keys[1][1])
    assert "3 vertices" in why and "4 vertices" in why and "frames 1-3" in why
    assert shape_tracks.gap_reason(4, keys[1][1], 6, keys[2][1]) is None
    assert shape_tracks.gap_reason(0, keys[0][1], 1, keys[1][1]) is None   # adjacent: nothing between


def test_a_skeleton_point_absent_on_either_keyframe_is_absent_between_them():
    got = shape_tracks.interpolate_shape_track([(0, [[0, 0], None, [10, 10]]), (2, [[4, 2], [5, 5], None])], [1])
    assert got[1].vertices == ((2.0, 1.0), None, None)


def test_frames_asked_outside_the_track_and_two_keyframes_on_one_frame():
    keys = [(5, [[0, 0], [2, 0]]), (7, [[2, 0], [4, 0]])]
    assert sorted(shape_tracks.interpolate_shape_track(keys, [0, 6, 9])) == [6]
    with pytest.raises(ValueError, match="two keyframes on frame 5"):
        shape_tracks.interpolate_shape_track(keys + [(5, [[1, 1], [3, 3]])])


def test_needed_keyframes_keeps_the_files_own_and_those_interpolation_would_not_give_back():
    frames = [0, 1, 2, 3, 4, 5, 6]
    line = [[[f, 0.0], [f + 10.0, 0.0]] for f in frames]      # moves 1 px a frame: linear
    line[4] = [[4.0, 3.0], [14.0, 0.0]]                        # frame 4 off the line by 3 px
    forced = [True, False, False, False, False, False, True]
    keep = shape_tracks.needed_keyframes(frames, line, forced, tol=0.01)
    got = shape_tracks.interpolate_shape_track([(frames[i], line[i]) for i in keep])
    assert all(shape_tracks.vertices_close(got[f].vertices, line[f], 0.01) for f in frames)
    assert 4 in keep and keep[0] == 0 and keep[-1] == 6 and len(keep) < len(frames)
    flat = [[[f, 0.0], [f + 10.0, 0.0]] for f in frames]
    assert shape_tracks.needed_keyframes(frames, flat, [True, False, False, True, False, False, True], 0.01) == [0, 3, 6]
