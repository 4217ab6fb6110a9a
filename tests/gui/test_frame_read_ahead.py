"""The window's one read of the frame being decoded (gui/viewer/frame_read_ahead.py): one per state, read once per
``frame_decoding``, taken once by each part for that frame only, dropped on request, and gone with its state."""

from __future__ import annotations

import gc
import weakref

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import frame_contents
from fieldstudio.gui.state import ViewState
from fieldstudio.gui.viewer.frame_read_ahead import FrameReadAhead
from fieldstudio.media import library
from tests.support.annotation_fixtures import VIDEO_ID


def test_one_read_per_decoded_frame_each_part_takes_it_once_and_an_edit_drops_it(media_project, monkeypatch):
    p = media_project
    ann.add_box(p, VIDEO_ID, (10, 10, 20, 20), frame_index=5)
    state = ViewState(project=p, media=library.find_media(p, VIDEO_ID))
    ahead = FrameReadAhead.of(state)
    assert FrameReadAhead.of(state) is ahead and FrameReadAhead.of(ViewState()) is not ahead
    reads = []
    real = frame_contents.read_frame
    monkeypatch.setattr(frame_contents, "read_frame", lambda *a: reads.append(a[2]) or real(*a))
    state.frame_decoding = 5
    assert reads == [5]
    assert ahead.take("marks", p, VIDEO_ID, 4) is None                      # another frame: not this read
    got = ahead.take("marks", p, VIDEO_ID, 5)
    assert [b.box for b in got.boxes] == [(10.0, 10.0, 30.0, 30.0)]
    assert ahead.take("marks", p, VIDEO_ID, 5) is None                      # once per part
    assert ahead.take("tags", p, VIDEO_ID, 5) is got and reads == [5]       # the other part: the same read
    state.frame_decoding = 6
    ahead.drop()
    assert ahead.take("tags", p, VIDEO_ID, 6) is None and reads == [5, 6]


def test_it_goes_with_its_state(media_project):
    state = ViewState(project=media_project)
    FrameReadAhead.of(state)
    gone = weakref.ref(state)
    del state
    gc.collect()
    assert gone() is None
