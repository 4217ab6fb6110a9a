"""One frame's rows read in one session (issue 37 item 6): the same lists as the separate calls the viewer and the tags
panel made before (box_tracks.boxes_on_frame, list_annotations of rulers and angles, shape_tracks.shapes_on_frame,
rows.tags_at) on every frame of a video holding every kind, interpolated tracks, deleted rows and another media's
rows; and one connection where those calls opened four."""

from __future__ import annotations

from sqlalchemy import event, text

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import angles, box_tracks, frame_contents, rows, shape_tracks
from tests.support.annotation_fixtures import N_FRAMES, PHOTO_ID, VIDEO_ID

SQUARE = [[100, 100], [200, 100], [200, 200], [100, 200]]
MOVED = [[140, 120], [260, 120], [240, 240], [120, 220]]


def _separate_calls(p, media_id, frame):
    measures = [r for r in ann.list_annotations(p, media_id=media_id, kinds=["ruler", "angle"])
                if r.frame_index is None or r.frame_index == frame]
    media_tags, frame_tags = rows.tags_at(p, media_id, frame)
    return (box_tracks.boxes_on_frame(p, media_id, frame), measures, shape_tracks.shapes_on_frame(p, media_id, frame),
            media_tags, frame_tags)


def _marked(p) -> None:
    """Every kind the viewer draws or the tags panel lists, on frames 2-20 of the video and on the photo."""
    box_track = box_tracks.next_track_id(p, VIDEO_ID)
    ann.add_box(p, VIDEO_ID, (10, 10, 50, 40), frame_index=2, track_id=box_track)
    ann.add_box(p, VIDEO_ID, (90, 50, 50, 40), frame_index=12, track_id=box_track)
    ann.add_box(p, VIDEO_ID, (300, 300, 20, 20), frame_index=12)                       # a box of no track
    gone = ann.add_box(p, VIDEO_ID, (5, 5, 9, 9), frame_index=7)
    ann.delete(p, gone)
    shape_track = box_tracks.next_track_id(p, VIDEO_ID)
    ann.add_shape(p, VIDEO_ID, "polygon", SQUARE, frame_index=4, track_id=shape_track)
    ann.add_shape(p, VIDEO_ID, "polygon", MOVED, frame_index=8, track_id=shape_track)
    ann.add_shape(p, VIDEO_ID, "polyline", SQUARE[:3], frame_index=20)
    ann.add_ruler(p, VIDEO_ID, (5, 5), (9, 9), frame_index=5)
    ann.add_ruler(p, VIDEO_ID, (1, 1), (2, 2), frame_index=6)
    angles.add_angle(p, VIDEO_ID, (0, 10), (0, 0), (10, 0), frame_index=6)
    ann.add_tag(p, VIDEO_ID, "dusk")
    ann.add_tag(p, VIDEO_ID, "blurry", frame_index=6)
    ann.add_tag(p, VIDEO_ID, "occluded", frame_index=6)
    ann.delete(p, ann.add_tag(p, VIDEO_ID, "undone", frame_index=6))
    ann.add_event(p, VIDEO_ID, 6)                                                      # not drawn: never read
    ann.add_box(p, PHOTO_ID, (1, 2, 3, 4))
    ann.add_ruler(p, PHOTO_ID, (0, 0), (30, 40))
    angles.add_angle(p, PHOTO_ID, (0, 10), (0, 0), (10, 0))
    ann.add_tag(p, PHOTO_ID, "photo tag")


def test_one_read_gives_what_the_separate_calls_give_on_every_frame_and_on_a_photo(media_project):
    p = media_project
    _marked(p)
    seen = set()
    for frame in [*range(N_FRAMES), None]:
        got = frame_contents.read_frame(p, VIDEO_ID, frame)
        want = _separate_calls(p, VIDEO_ID, frame)
        assert (got.boxes, got.measures, got.shapes, got.media_tags, got.frame_tags) == want, frame
        seen |= {(b.annotation_id is None, "box") for b in got.boxes} | {(s.annotation_id is None, s.kind)
                                                                         for s in got.shapes}
    # the comparison covered stored and interpolated boxes and polygons (True: interpolated), not only empty lists
    assert {(False, "box"), (True, "box"), (False, "polygon"), (True, "polygon"), (False, "polyline")} <= seen
    on6 = frame_contents.read_frame(p, VIDEO_ID, 6)
    assert [t.text for t in on6.frame_tags] == ["blurry", "occluded"] and [t.text for t in on6.media_tags] == ["dusk"]
    assert [(r.kind, r.frame_index) for r in on6.measures] == [("angle", 6), ("ruler", 6)]
    # frame 7: the box track interpolated at t = (7 - 2) / (12 - 2) = 1/2 from (10, 10, 60, 50) to (90, 50, 140, 90)
    assert [b.box for b in frame_contents.read_frame(p, VIDEO_ID, 7).boxes] == [(50.0, 30.0, 100.0, 70.0)]
    photo = frame_contents.read_frame(p, PHOTO_ID, None)
    assert (photo.boxes, photo.measures, photo.shapes, photo.media_tags, photo.frame_tags) == \
        _separate_calls(p, PHOTO_ID, None)
    assert len(photo.boxes) == 1 and [t.text for t in photo.media_tags] == ["photo tag"]
    assert [r.kind for r in photo.measures] == ["angle", "ruler"]


def test_an_unknown_media_reads_empty_lists(media_project):
    assert frame_contents.read_frame(media_project, "f" * 32, 3) == frame_contents.FrameContents([], [], [], [], [])


def test_a_frame_is_three_queries_on_the_main_threads_kept_connection(media_project):
    p = media_project
    _marked(p)
    connects, queries = [], []
    event.listen(p.read_engine, "connect", lambda *_a: connects.append(1))
    event.listen(p.read_engine, "before_cursor_execute", lambda _c, _cur, sql, *_a: queries.append(sql))
    frame_contents.read_frame(p, VIDEO_ID, 7)  # the box track spans frame 7, the shape track has keyframes beside
    frame_contents.read_frame(p, PHOTO_ID, None)  # a photo: its rows alone, no track to look for
    read = [q for q in queries if q.lstrip().upper().startswith("SELECT")]
    assert len(read) == 3 + 1 and len(connects) <= 1  # the first read of the test may open the kept connection
    connects.clear(), queries.clear()
    _separate_calls(p, VIDEO_ID, 7)
    assert len([q for q in queries if q.lstrip().upper().startswith("SELECT")]) >= 8 and not connects


def test_rows_made_at_the_same_instant_come_in_the_same_order_both_ways(media_project):
    # a burst of marks (an import, a paste; a clock of 15 ms resolution) can share one creation time: the one read
    # orders them by id after time, as list_annotations does, and so must the separate reads of boxes and shapes
    p = media_project
    for i in range(6):
        ann.add_box(p, VIDEO_ID, (10 + 40 * i, 10, 30, 30), frame_index=3)
        ann.add_shape(p, VIDEO_ID, "polyline", [[10 + 40 * i, 100], [30 + 40 * i, 120]], frame_index=3)
    with p.write() as s:
        s.execute(text("UPDATE annotation SET created_at = (SELECT min(created_at) FROM annotation)"))
    got = frame_contents.read_frame(p, VIDEO_ID, 3)
    assert (got.boxes, got.measures, got.shapes, got.media_tags, got.frame_tags) == _separate_calls(p, VIDEO_ID, 3)
    assert [b.annotation_id for b in got.boxes] == sorted(b.annotation_id for b in got.boxes)
